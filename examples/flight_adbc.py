"""A topic read over Arrow Flight SQL with ADBC: the statement's partitions read at once, any gateway instance
serving each, joined into one Arrow table, then aggregated per day in pyarrow.

  python3 examples/flight_adbc.py grpc://127.0.0.1:3001 [SQL] [PARTITIONS]

TOPICGATE_TOKEN (an API key or a JWT), when set, is sent as the bearer token. The default SQL reads the demo orders
of three days. A bulk statement (rows, no LIMIT, a closed window on timestamp_broker) comes back as partitions, one
per read-session stream: PARTITIONS of them (the `topicgate-streams` call header), or one per million rows; any
other statement as one.
"""
import os
import sys
from concurrent.futures import ThreadPoolExecutor

import adbc_driver_flightsql
import adbc_driver_flightsql.dbapi as flight_sql
import pyarrow as pa
import pyarrow.compute as pc

SQL = (
    "SELECT key, timestamp_broker FROM orders "
    "WHERE timestamp_broker >= TIMESTAMP '2026-11-01 00:00:00' AND timestamp_broker < TIMESTAMP '2026-11-04 00:00:00'"
)


def connect(uri, partitions=None):
    options = {}
    token = os.environ.get("TOPICGATE_TOKEN")
    if token:
        options[adbc_driver_flightsql.DatabaseOptions.AUTHORIZATION_HEADER.value] = f"Bearer {token}"
    if partitions:
        options[f"{adbc_driver_flightsql.DatabaseOptions.RPC_CALL_HEADER_PREFIX.value}topicgate-streams"] = partitions
    # autocommit: the gateway only reads, there is no transaction to commit.
    return flight_sql.connect(uri, db_kwargs=options, autocommit=True)


def read_partition(uri, partition):
    # One connection per partition: each is read at once, and could be read on another machine.
    with connect(uri) as conn, conn.cursor() as cur:
        cur.adbc_read_partition(partition)
        return cur.fetch_arrow_table()


def main(uri, sql, partitions):
    with connect(uri, partitions) as conn, conn.cursor() as cur:
        partitions, schema = cur.adbc_execute_partitions(sql)
    with ThreadPoolExecutor(max_workers=max(1, len(partitions))) as pool:
        tables = list(pool.map(lambda p: read_partition(uri, p), partitions))
    table = pa.concat_tables(tables) if tables else schema.empty_table()
    print(f"rows: {table.num_rows} in {len(partitions)} partitions ({', '.join(str(t.num_rows) for t in tables)})")
    print(f"schema: {', '.join(f'{f.name}: {f.type}' for f in table.schema)}")
    if "timestamp_broker" in table.column_names:
        days = pc.strftime(table["timestamp_broker"], format="%Y-%m-%d")
        for row in pa.table({"day": days}).group_by("day").aggregate([("day", "count")]).sort_by("day").to_pylist():
            print(f"day {row['day']}: {row['day_count']} events")


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: flight_adbc.py grpc://host:port [SQL] [PARTITIONS]")
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 and sys.argv[2] else SQL, sys.argv[3] if len(sys.argv) > 3 else None)
