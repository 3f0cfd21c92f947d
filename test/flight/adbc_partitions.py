"""Reads a Flight SQL statement with ADBC both ways, for topicgate's partition tests: once whole (execute +
fetch_arrow_table) and as partitions (adbc_execute_partitions, then adbc_read_partition of each), the partitions
read round robin over the given readers' connections (other gateway instances serve them too).

  python3 adbc_partitions.py '{"uri": "grpc://...", "readers": ["grpc://..."], "token": "...", "sql": "SELECT ..."}'

Prints JSON: {"single": {"schema", "rows"}, "partitions": [{"reader": i, "rows": n}], "union": {"schema", "rows"}},
values as test/pyarrow/read_arrow.py prints them. "readers" defaults to [uri]; without "token" no credentials; "headers" are sent on each call of the statement.
"""
import json
import os
import sys

import adbc_driver_flightsql
import adbc_driver_flightsql.dbapi as flight_sql
import pyarrow as pa

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "pyarrow"))
from read_arrow import column_values  # noqa: E402  (the one JSON form of Arrow values the tests compare)


def connect(uri, token, headers):
    # Call headers as ADBC sends them on every call (here `topicgate-streams`: how many partitions to cut).
    kwargs = {f"{adbc_driver_flightsql.DatabaseOptions.RPC_CALL_HEADER_PREFIX.value}{k}": v for k, v in headers.items()}
    if token:
        kwargs[adbc_driver_flightsql.DatabaseOptions.AUTHORIZATION_HEADER.value] = f"Bearer {token}"
    return flight_sql.connect(uri, db_kwargs=kwargs, autocommit=True)


def plain(table):
    columns = {name: column_values(table.column(name), table.schema.field(name).type) for name in table.column_names}
    rows = [{name: columns[name][i] for name in table.column_names} for i in range(table.num_rows)]
    return {"schema": [{"name": f.name, "type": str(f.type)} for f in table.schema], "rows": rows}


def main(args):
    readers_uris = args.get("readers") or [args["uri"]]
    token, headers = args.get("token"), args.get("headers") or {}
    conn = connect(args["uri"], token, headers)
    readers = [connect(u, token, {}) for u in readers_uris]
    try:
        cur = conn.cursor()
        cur.execute(args["sql"])
        single = cur.fetch_arrow_table()
        partitions, schema = cur.adbc_execute_partitions(args["sql"])
        tables, counts = [], []
        for i, partition in enumerate(partitions):
            reader = readers[i % len(readers)].cursor()
            reader.adbc_read_partition(partition)
            table = reader.fetch_arrow_table()
            tables.append(table)
            counts.append({"reader": i % len(readers), "rows": table.num_rows})
            reader.close()
        union = pa.concat_tables(tables) if tables else schema.empty_table()
        out = {"single": plain(single), "partitions": counts, "union": plain(union), "schema": str(schema)}
        json.dump(out, sys.stdout)
    finally:
        for c in [conn, *readers]:
            c.close()


if __name__ == "__main__":
    main(json.loads(sys.argv[1]))
