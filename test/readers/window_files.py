"""Reads a settled window's file URL (/v1/topics/{t}/events.{parquet,arrow,csv,ndjson}) with the readers that open
files by URL and fetch them by byte range: DuckDB's httpfs (with an HTTP secret carrying the bearer header), Polars'
scan_parquet, pandas' read_parquet, and pyarrow's IPC file reader.

usage: window_files.py <case.json>
case.json: {"reader": "...", "url": "http://...", "bearer": "<key>"|null, "since": "<ISO instant>"|null}
(duckdb-list: "url" is a JSON list of URLs).
Prints one JSON object: {"rows": n, ...} or {"error": "<type>: <message>"}.

DuckDB's httpfs extension is loaded from the duckdb-extension-httpfs wheel, by path (no download): that wheel is
built for one DuckDB version (test/readers/httpfs-requirements.txt installs both into .local/duckdb-httpfs, which
the caller puts first on PYTHONPATH).
"""

import datetime
import glob
import io
import json
import os
import sys
import traceback
from urllib.request import Request, urlopen


def duckdb_connection(bearer):
    import duckdb
    import duckdb_extension_httpfs

    here = os.path.dirname(duckdb_extension_httpfs.__file__)
    con = duckdb.connect()
    con.execute(f"LOAD '{glob.glob(here + '/extensions/*/httpfs.duckdb_extension')[0]}'")
    if bearer:
        con.execute(
            "CREATE SECRET gateway (TYPE http, EXTRA_HTTP_HEADERS MAP {'Authorization': $auth})",
            {"auth": f"Bearer {bearer}"},
        )
    return con


def instant(text):
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))


def duckdb_parquet(case):
    con = duckdb_connection(case.get("bearer"))
    where = ""
    if case.get("since"):
        where = f"WHERE timestamp_broker >= TIMESTAMPTZ '{case['since']}'"
    # Reads the key column of every row group the filter keeps (count(*) alone is answered from the footer).
    row = con.execute(
        f"SELECT count(*), count(DISTINCT key), sum(octet_length(key)) FROM read_parquet($url) {where}",
        {"url": case["url"]},
    ).fetchone()
    return {"rows": row[0], "keys": row[1], "keyBytes": int(row[2] or 0)}


def duckdb_list(case):
    con = duckdb_connection(case.get("bearer"))
    urls = json.loads(case["url"])
    return {"rows": con.execute("SELECT count(*) FROM read_parquet($urls)", {"urls": urls}).fetchone()[0]}


def duckdb_count(case):
    con = duckdb_connection(case.get("bearer"))
    return {"rows": con.execute("SELECT count(*) FROM read_parquet($url)", {"url": case["url"]}).fetchone()[0]}


def duckdb_aggregate(case):
    con = duckdb_connection(case.get("bearer"))
    column = case["column"]
    row = con.execute(f'SELECT count(*), count(DISTINCT "{column}") FROM read_parquet($url)', {"url": case["url"]}).fetchone()
    return {"rows": row[0], "distinct": row[1]}


def duckdb_text(case):
    con = duckdb_connection(case.get("bearer"))
    fn = "read_csv" if case["reader"] == "duckdb-csv" else "read_json"
    row = con.execute(f"SELECT count(*), count(DISTINCT key) FROM {fn}($url)", {"url": case["url"]}).fetchone()
    return {"rows": row[0], "keys": row[1]}


def polars_parquet(case):
    import polars as pl

    lazy = pl.scan_parquet(case["url"])
    if case.get("since"):
        lazy = lazy.filter(pl.col("timestamp_broker") >= instant(case["since"]))
    return {"rows": int(lazy.select(pl.len()).collect().item())}


def pandas_parquet(case):
    import pandas as pd

    return {"rows": len(pd.read_parquet(case["url"]))}


def pyarrow_arrow(case):
    import pyarrow as pa

    data = urlopen(Request(case["url"])).read()
    with pa.ipc.open_file(io.BytesIO(data)) as reader:
        table = reader.read_all()
        return {"rows": table.num_rows, "batches": reader.num_record_batches, "columns": table.column_names}


def pyarrow_parquet_layout(case):
    import pyarrow.parquet as pq

    meta = pq.ParquetFile(io.BytesIO(urlopen(Request(case["url"])).read())).metadata
    column = [meta.schema.column(i).name for i in range(meta.num_columns)].index("timestamp_broker")
    groups = [meta.row_group(i) for i in range(meta.num_row_groups)]
    stats = [g.column(column).statistics for g in groups]
    return {
        "rows": meta.num_rows,
        "groups": [g.num_rows for g in groups],
        "minMax": [[s.min.isoformat(), s.max.isoformat()] for s in stats],
        "pageIndex": all(g.column(column).has_column_index and g.column(column).has_offset_index for g in groups),
    }


READERS = {
    "duckdb": duckdb_parquet,
    "duckdb-count": duckdb_count,
    "duckdb-list": duckdb_list,
    "duckdb-aggregate": duckdb_aggregate,
    "duckdb-csv": duckdb_text,
    "duckdb-ndjson": duckdb_text,
    "polars": polars_parquet,
    "pandas": pandas_parquet,
    "pyarrow-arrow": pyarrow_arrow,
    "pyarrow-parquet-layout": pyarrow_parquet_layout,
}


def main():
    with open(sys.argv[1]) as f:
        case = json.load(f)
    try:
        out = READERS[case["reader"]](case)
    except Exception as e:  # the test asserts on the outcome, whatever it is
        traceback.print_exc(file=sys.stderr)
        out = {"error": f"{type(e).__name__}: {e}"}
    print(json.dumps(out), flush=True)
    sys.stderr.flush()
    # DuckDB's httpfs can abort the interpreter's own shutdown ("terminate called without an active exception") after
    # the answer is printed: the outcome is already out, so leave without running the interpreter's exit.
    os._exit(0)


if __name__ == "__main__":
    main()
