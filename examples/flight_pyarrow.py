"""A topic read over Arrow Flight SQL with pyarrow.flight alone (no ADBC): the statement's FlightInfo asked for with
Flight SQL's CommandStatementQuery, then each endpoint's ticket read by DoGet, the batches joined into one table.

  python3 examples/flight_pyarrow.py grpc://127.0.0.1:3001 [SQL]

TOPICGATE_TOKEN (an API key or a JWT), when set, is sent as the bearer token on each call. pyarrow has no Flight SQL
client, so the command is packed here: a protobuf Any holding CommandStatementQuery (its field 1, the query).
"""
import os
import sys

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.flight as flight

SQL = (
    "SELECT key, timestamp_broker FROM orders "
    "WHERE timestamp_broker >= TIMESTAMP '2026-11-01 00:00:00' AND timestamp_broker < TIMESTAMP '2026-11-04 00:00:00'"
)


def length_delimited(field, data):
    """One protobuf field of wire type 2 (bytes, strings, messages): its tag, its length, its bytes."""
    out, n = bytearray([field << 3 | 2]), len(data)
    while n >= 0x80:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    return bytes(out + bytes([n]) + data)


def statement_command(sql):
    query = length_delimited(1, sql.encode())
    type_url = b"type.googleapis.com/arrow.flight.protocol.sql.CommandStatementQuery"
    return length_delimited(1, type_url) + length_delimited(2, query)


def main(uri, sql):
    token = os.environ.get("TOPICGATE_TOKEN")
    options = flight.FlightCallOptions(headers=[(b"authorization", f"Bearer {token}".encode())] if token else [])
    client = flight.FlightClient(uri)
    info = client.get_flight_info(flight.FlightDescriptor.for_command(statement_command(sql)), options)
    tables = [client.do_get(endpoint.ticket, options).read_all() for endpoint in info.endpoints]
    table = pa.concat_tables(tables) if tables else info.schema.empty_table()
    print(f"rows: {table.num_rows} in {len(tables)} endpoints")
    print(f"schema: {', '.join(f'{f.name}: {f.type}' for f in table.schema)}")
    if "timestamp_broker" in table.column_names:
        days = pc.strftime(table["timestamp_broker"], format="%Y-%m-%d")
        for row in pa.table({"day": days}).group_by("day").aggregate([("day", "count")]).sort_by("day").to_pylist():
            print(f"day {row['day']}: {row['day_count']} events")
    client.close()


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: flight_pyarrow.py grpc://host:port [SQL]")
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else SQL)
