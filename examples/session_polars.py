#!/usr/bin/env python3
"""Read a bulk window through a read session into one polars DataFrame: its streams read concurrently, concatenated.

    python3 examples/session_polars.py 'http://127.0.0.1:3000/v1/topics/orders/sessions' \\
        '{"since": "2026-11-01T00:00:00Z", "until": "2026-11-04T00:00:00Z", "streams": 4}'

The session (API.md "Read sessions") splits the window into streams of about equal rows, each its own Trino query,
servable by any gateway instance. Each stream is read as an Arrow IPC stream (exact types) by `pl.read_ipc_stream`
in a thread of its own; `pl.concat` joins the frames in stream index order, which with order `time` is the
broker-time order of the whole read. Polars is handed the HTTP response, not the URL: its URL readers want
`Content-Length` and range requests, which a streamed response has not. Credentials, if the gateway wants them:
TOPICGATE_API_KEY (sent as X-API-Key). A cut stream (an aborted transfer) raises http.client.IncompleteRead, and the
script exits non-zero rather than join what arrived.
"""

import json
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urljoin
from urllib.request import Request, urlopen

import polars as pl


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
        return pl.read_ipc_stream(response)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sessions_url, body = sys.argv[1], json.loads(sys.argv[2])
    session = create_session(sessions_url, body)
    urls = [urljoin(sessions_url, s["url"]) for s in session["streams"]]
    with ThreadPoolExecutor(max_workers=min(8, len(urls))) as pool:
        # map keeps the streams' order, whatever order they finish in.
        frames = list(pool.map(read_stream, urls))
    df = pl.concat(frames, how="vertical")
    print(f"rows: {df.height} in {len(frames)} streams ({', '.join(str(f.height) for f in frames)})")
    if "timestamp_broker" in df.columns:
        print(f"broker-time order: {str(df['timestamp_broker'].is_sorted()).lower()}")
        day = pl.col("timestamp_broker").dt.strftime("%Y-%m-%d").alias("day")
        per_day = df.group_by(day).agg(pl.len().alias("events")).sort("day")
        for row in per_day.iter_rows(named=True):
            print(f"day {row['day']}: {row['events']} events")


if __name__ == "__main__":
    main()
