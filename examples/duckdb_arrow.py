#!/usr/bin/env python3
"""Query a topicgate result with DuckDB, in process, as it streams in: the Arrow stream is a pyarrow
RecordBatchReader that DuckDB scans by name, batch by batch.

    python3 examples/duckdb_arrow.py 'http://127.0.0.1:3000/v1/topics/orders/events?since=2026-11-01T00:00:00Z&until=2026-11-04T00:00:00Z&limit=all' \
        ["SELECT ... FROM events ..."]

The default query counts events and keys per hour of broker time. A cut response (aborted transfer, no Arrow
end-of-stream) makes the scan raise, and the script exits non-zero.
"""

import sys
from urllib.parse import urlsplit, urlunsplit, parse_qsl, urlencode
from urllib.request import urlopen

import duckdb
import pyarrow as pa

DEFAULT_SQL = """
SELECT date_trunc('hour', timestamp_broker) AS hour, count(*) AS events, count(DISTINCT key) AS keys
FROM events GROUP BY 1 ORDER BY 1
"""


def with_format(url, fmt):
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != "format"]
    return urlunsplit(parts._replace(query=urlencode(query + [("format", fmt)])))


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    sql = sys.argv[2] if len(sys.argv) == 3 else DEFAULT_SQL
    con = duckdb.connect()
    with urlopen(with_format(sys.argv[1], "arrow")) as response:
        events = pa.ipc.open_stream(response)  # noqa: F841 (DuckDB finds it by name)
        result = con.sql(sql)
        columns, rows = result.columns, result.fetchall()
    print("\t".join(columns))
    for row in rows:
        print("\t".join(str(v) for v in row))
    print(f"result rows: {len(rows)}")


if __name__ == "__main__":
    main()
