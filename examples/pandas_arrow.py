#!/usr/bin/env python3
"""Read a topic into a pandas DataFrame: Arrow pages from topicgate, following `Link: <...>; rel="next"`.

    python3 examples/pandas_arrow.py 'http://127.0.0.1:3000/v1/topics/orders/events?since=2026-11-01T00:00:00Z&limit=5000'

Each page is an Arrow IPC stream read as it arrives (pyarrow), so types arrive exact: bigint as int64, decimals as
Decimal128, timestamps in UTC, `key`/`value` as bytes. A cut response (the gateway aborts the transfer) raises
http.client.IncompleteRead here and the script exits non-zero: a partial page is never taken for a whole one.
"""

import sys
from urllib.parse import urljoin, urlsplit, urlunsplit, parse_qsl, urlencode
from urllib.request import Request, urlopen

import pandas as pd
import pyarrow as pa


def with_format(url, fmt):
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != "format"]
    return urlunsplit(parts._replace(query=urlencode(query + [("format", fmt)])))


def next_link(response, base):
    """The `rel="next"` target of the Link header, if any (the gateway sends one link)."""
    link = response.headers.get("Link")
    if not link or 'rel="next"' not in link:
        return None
    return urljoin(base, link[link.index("<") + 1 : link.index(">")])


def read_pages(url):
    tables = []
    while url:
        with urlopen(Request(url, headers={"Accept": "application/vnd.apache.arrow.stream"})) as response:
            tables.append(pa.ipc.open_stream(response).read_all())
            url = next_link(response, url)
    return tables


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    tables = read_pages(with_format(sys.argv[1], "arrow"))
    df = pa.concat_tables(tables).to_pandas()
    print(f"rows: {len(df)} in {len(tables)} pages ({', '.join(str(t.num_rows) for t in tables)})")
    print(df.dtypes.to_string())
    df["key"] = df["key"].map(lambda b: None if b is None else b.decode("utf-8", "replace"))
    per_day = df.groupby(df["timestamp_broker"].dt.floor("D")).size()
    print("events per day:")
    print(per_day.to_string())
    print(df[["key", "timestamp_broker"]].head(3).to_string())


if __name__ == "__main__":
    main()
