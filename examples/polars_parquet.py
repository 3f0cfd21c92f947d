#!/usr/bin/env python3
"""Read a window of a topic as Parquet into polars and aggregate it there.

    python3 examples/polars_parquet.py 'http://127.0.0.1:3000/v1/topics/orders/events?since=2026-11-01T00:00:00Z&until=2026-11-04T00:00:00Z&limit=all'

`limit=all` with `until` streams the whole closed window in one response. Polars' URL readers want
`Content-Length` and range requests, which a streamed response has not, so the HTTP response object is handed to
`pl.read_parquet` instead. A cut response (aborted transfer, no Parquet footer) makes it raise, and the script
exits non-zero.
"""

import sys
from urllib.parse import urlsplit, urlunsplit, parse_qsl, urlencode
from urllib.request import urlopen

import polars as pl


def with_format(url, fmt):
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != "format"]
    return urlunsplit(parts._replace(query=urlencode(query + [("format", fmt)])))


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    with urlopen(with_format(sys.argv[1], "parquet")) as response:
        df = pl.read_parquet(response)
    print(f"rows: {df.height}")
    print(df.schema)
    per_day = (
        df.group_by(pl.col("timestamp_broker").dt.truncate("1d").alias("day"))
        .agg(pl.len().alias("events"), pl.col("key").drop_nulls().n_unique().alias("keys"))
        .sort("day")
    )
    with pl.Config(tbl_rows=50, tbl_cols=10):
        print(per_day)
    for row in per_day.iter_rows(named=True):
        print(f"day {row['day']:%Y-%m-%d}: {row['events']} events, {row['keys']} keys")


if __name__ == "__main__":
    main()
