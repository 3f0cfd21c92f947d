"""Reads topicgate responses with the readers analytics users reach for: pandas, polars, DuckDB and
Python's csv module, each straight from the HTTP response, as their own documentation shows.

usage: read_with.py <reader> <cases.json>
cases.json: [{"format": "csv", "url": "http://..."}, ...]. Prints one JSON list: per case {"rows": n,
"columns": [...], "nulls": n} when the reader took the body, or {"error": "<type>: <message>"} when it failed.
"""

import csv
import io
import json
import os
import sys
import traceback
from urllib.request import urlopen


def frame_stats(rows, columns, nulls):
    return {"rows": int(rows), "columns": [str(c) for c in columns], "nulls": int(nulls)}


def with_pandas(fmt, url):
    import pandas as pd
    import pyarrow as pa

    if fmt == "json":
        df = pd.json_normalize(json.load(urlopen(url)), record_path="rows", max_level=0)
    elif fmt == "ndjson":
        df = pd.read_json(url, lines=True)
    elif fmt == "csv":
        df = pd.read_csv(url)
    elif fmt == "arrow":
        with pa.ipc.open_stream(urlopen(url)) as reader:
            df = reader.read_pandas()
    else:
        df = pd.read_parquet(url)
    return frame_stats(len(df), df.columns, df["key"].isna().sum())


def with_polars(fmt, url):
    import polars as pl

    # Polars' URL readers want Content-Length and range requests (object_store), which a streamed response has
    # not: they are given the HTTP response as a file-like object instead.
    if fmt == "json":
        # `value` is an object or a string (a payload that is not JSON): polars takes one type per column.
        rows = json.load(urlopen(url))["rows"]
        df = pl.from_dicts(rows, schema={"key": pl.String, "timestamp_broker": pl.String})
    elif fmt == "ndjson":
        df = pl.read_ndjson(urlopen(url), schema={"key": pl.String, "timestamp_broker": pl.String})
    elif fmt == "csv":
        df = pl.read_csv(urlopen(url))
    elif fmt == "arrow":
        df = pl.read_ipc_stream(urlopen(url))
    else:
        df = pl.read_parquet(urlopen(url))
    return frame_stats(df.height, df.columns, df["key"].null_count())


def with_duckdb(fmt, url):
    import duckdb
    import pyarrow as pa

    con = duckdb.connect()
    if fmt == "arrow":
        # DuckDB scans the Arrow stream as it arrives (a pyarrow RecordBatchReader, replacement scan by name).
        stream = pa.ipc.open_stream(urlopen(url))  # noqa: F841 (read by name below)
        rel = con.sql("SELECT * FROM stream")
    elif fmt == "json":
        # One JSON object: its `rows` member, unnested into columns.
        body = con.read_json(urlopen(url), format="auto")
        rel = body.query("body", "SELECT unnest(rows, recursive := false) AS r FROM body").select("unnest(r)")
    else:
        # The HTTP response is a file-like object; DuckDB reads it through fsspec (httpfs would need a download).
        read = {"ndjson": con.read_json, "csv": con.read_csv, "parquet": con.read_parquet}[fmt]
        rel = read(urlopen(url))
    n, nulls = rel.query("rel", "SELECT count(*), count(*) - count(key) FROM rel").fetchall()[0]
    return frame_stats(n, rel.columns, nulls)


def with_csv_module(fmt, url):
    assert fmt == "csv", "the csv module reads CSV only"
    records = list(csv.reader(io.TextIOWrapper(urlopen(url), encoding="utf-8", newline="")))
    header, rows = records[0], records[1:]
    return frame_stats(len(rows), header, sum(1 for r in rows if len(r) != len(header)))


READERS = {"pandas": with_pandas, "polars": with_polars, "duckdb": with_duckdb, "csv": with_csv_module}


def main():
    reader = READERS[sys.argv[1]]
    with open(sys.argv[2]) as f:
        cases = json.load(f)
    out = []
    for case in cases:
        try:
            out.append(reader(case["format"], case["url"]))
        except BaseException as err:  # the reader's own report (polars panics: a BaseException) is what is tested
            out.append({"error": f"{type(err).__name__}: {err}"[:500]})
            if "--trace" in sys.argv:
                traceback.print_exc()
    print(json.dumps(out))
    sys.stdout.flush()
    # The answers are out: leave without running native libraries' static destructors. A loaded CI machine once saw
    # pyarrow's thread pool abort the interpreter's exit ("terminate called without an active exception").
    os._exit(0)


if __name__ == "__main__":
    main()
