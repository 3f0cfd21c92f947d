#!/usr/bin/env python3
"""Read a bulk window through a read session: its streams fetched concurrently (a thread pool) into one pyarrow Table.

    python3 examples/session_pyarrow.py 'http://127.0.0.1:3000/v1/topics/orders/sessions' \\
        '{"since": "2026-11-01T00:00:00Z", "until": "2026-11-04T00:00:00Z", "streams": 4}'

The session (API.md "Read sessions") splits the window into streams of about equal rows; each stream is its own Trino
query and can be served by any gateway instance. Each is read as an Arrow IPC stream (exact types) in its own thread;
the tables are joined in stream index order, which with order `time` is the broker-time order of the whole read.
Credentials, if the gateway wants them: TOPICGATE_API_KEY (sent as X-API-Key; not needed for presigned streams).
A cut stream (the gateway aborts its transfer) raises http.client.IncompleteRead and the script exits non-zero.
"""

import json
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urljoin
from urllib.request import Request, urlopen

import pyarrow as pa
import pyarrow.compute as pc


def headers():
    key = os.environ.get("TOPICGATE_API_KEY")
    return {"X-API-Key": key} if key else {}


def create_session(url, body):
    request = Request(url, data=json.dumps(body).encode(), method="POST",
                      headers={"Content-Type": "application/json", **headers()})
    with urlopen(request) as response:
        return json.load(response)


def read_stream(url):
    with urlopen(Request(f"{url}&format=arrow", headers=headers())) as response:
        return pa.ipc.open_stream(response).read_all()


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sessions_url, body = sys.argv[1], json.loads(sys.argv[2])
    session = create_session(sessions_url, body)
    urls = [urljoin(sessions_url, s["url"]) for s in session["streams"]]
    with ThreadPoolExecutor(max_workers=min(8, len(urls))) as pool:
        # map keeps the streams' order, whatever order they finish in.
        tables = list(pool.map(read_stream, urls))
    table = pa.concat_tables(tables)
    print(f"rows: {table.num_rows} in {len(tables)} streams ({', '.join(str(t.num_rows) for t in tables)})")
    print(f"estimated: {', '.join(str(s['estimatedRows']) for s in session['streams'])}")
    if "timestamp_broker" in table.column_names:
        times = table["timestamp_broker"].combine_chunks()
        in_order = table.num_rows < 2 or pc.all(pc.greater_equal(times[1:], times[:-1])).as_py()
        print(f"broker-time order: {str(in_order).lower()}")
        days = pc.strftime(times, format="%Y-%m-%d")
        for entry in sorted(pc.value_counts(days).to_pylist(), key=lambda x: x["values"]):
            print(f"day {entry['values']}: {entry['counts']} events")


if __name__ == "__main__":
    main()
