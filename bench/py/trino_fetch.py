"""Case: the python `trino` client (DB-API) reading one query with fetchmany, as a user's loader would.

    python3 trino_fetch.py <trino url> <user> <batch rows> [encoding]   (the SQL on stdin)

encoding: the spooling encodings asked for (e.g. json+zstd), `none` for the direct protocol; absent, the client's
own default.

Prints one JSON line: rows, seconds (execute to the last fetchmany), firstSeconds (until the first batch),
cpu (CPU seconds of this process over the same span) and peakRssKb (ru_maxrss of the process, whole life).
"""
import json
import resource
import sys
import time
from urllib.parse import urlparse

import trino


def cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def main() -> None:
    url, user, batch = urlparse(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    sql = sys.stdin.read()
    extra = {}
    if len(sys.argv) > 4:
        extra["encoding"] = None if sys.argv[4] == "none" else sys.argv[4]
    conn = trino.dbapi.connect(
        host=url.hostname, port=url.port, user=user, http_scheme=url.scheme, source="topicgate-bench", **extra
    )
    cur = conn.cursor()
    cpu0, t0 = cpu(), time.perf_counter()
    cur.execute(sql)
    rows, first = 0, -1.0
    while True:
        batch_rows = cur.fetchmany(batch)
        if not batch_rows:
            break
        if first < 0:
            first = time.perf_counter() - t0
        rows += len(batch_rows)
    seconds = time.perf_counter() - t0
    out = {
        "rows": rows,
        "seconds": seconds,
        "firstSeconds": first,
        "cpu": cpu() - cpu0,
        "peakRssKb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
    }
    print(json.dumps(out))


main()
