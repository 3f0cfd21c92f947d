#!/usr/bin/env python3
"""Read a bulk window through a read session into DuckDB: `read_parquet` over the session's presigned streams.

    python3 examples/session_duckdb.py 'http://127.0.0.1:3000/v1/topics/orders/sessions' \\
        '{"since": "2026-11-01T00:00:00Z", "until": "2026-11-04T00:00:00Z", "streams": 4}' \\
        ["SELECT ... FROM events"]

The session is made presigned (API.md "Read sessions"): each stream URL works alone until `expiresAt`, with no
credentials, as a tool that cannot send headers needs. The streams are fetched concurrently as Parquet (each a
whole file) and handed to `read_parquet` as one list, in stream index order, which with order `time` is the
broker-time order of the whole read. DuckDB is handed the responses' bytes rather than the URLs: its own HTTP reader
(the httpfs extension, a download) wants a URL's size and range requests, as polars' URL readers do, which a
streamed response has not. The events per day are printed, then the result of the optional query over `events`.
Credentials for making the session, if the gateway wants them: TOPICGATE_API_KEY (sent as X-API-Key). A cut stream
(an aborted transfer) raises http.client.IncompleteRead, and the script exits non-zero.
"""

import io
import json
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urljoin
from urllib.request import Request, urlopen

import duckdb

PER_DAY = "SELECT strftime(timestamp_broker, '%Y-%m-%d'), count(*) FROM events GROUP BY 1 ORDER BY 1"


def create_session(url, body):
    key = os.environ.get("TOPICGATE_API_KEY")
    request = Request(url, data=json.dumps({**body, "presign": True}).encode(), method="POST",
                      headers={"Content-Type": "application/json", **({"X-API-Key": key} if key else {})})
    with urlopen(request) as response:
        return json.load(response)


def fetch_parquet(url):
    # Presigned: the URL alone, no credentials.
    with urlopen(f"{url}&format=parquet") as response:
        return response.read()


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    sessions_url, body = sys.argv[1], json.loads(sys.argv[2])
    session = create_session(sessions_url, body)
    urls = [urljoin(sessions_url, s["url"]) for s in session["streams"]]
    with ThreadPoolExecutor(max_workers=min(8, len(urls))) as pool:
        parts = list(pool.map(fetch_parquet, urls))  # in index order, whatever order they finish in
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    events = con.read_parquet([io.BytesIO(p) for p in parts])  # noqa: F841 (the SQL reads it by name)
    rows = con.sql("SELECT count(*) FROM events").fetchall()[0][0]
    sizes = [con.read_parquet(io.BytesIO(p)).aggregate("count(*)").fetchall()[0][0] for p in parts]
    print(f"rows: {rows} in {len(parts)} streams ({', '.join(str(n) for n in sizes)})")
    if "timestamp_broker" in events.columns:
        # The scan keeps the files' order (DuckDB preserves insertion order unless told otherwise).
        times = events.select("epoch_ms(timestamp_broker)").fetchall()
        print(f"broker-time order: {str(all(a <= b for (a,), (b,) in zip(times, times[1:]))).lower()}")
        for day, n in con.sql(PER_DAY).fetchall():
            print(f"day {day}: {n} events")
    if len(sys.argv) == 4:
        result = con.sql(sys.argv[3])
        print("\t".join(result.columns))
        for row in result.fetchall():
            print("\t".join(str(v) for v in row))


if __name__ == "__main__":
    main()
