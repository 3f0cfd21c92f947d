"""Talks to topicgate's Flight SQL server with the real clients, for test/integration/flight-sql.test.ts: ADBC's
Flight SQL driver (bearer key, or a username/password handshake) and pyarrow.flight (a basic-token handshake, then
GetFlightInfo and DoGet by hand). One JSON argument names the steps; one JSON line is printed:

  python3 flight_sql.py '{"uri": "grpc://...", "token": "...", "steps": [{"do": "objects"}, {"do": "query", "sql": "..."}]}'

Steps (each answers {"ok": ...} or {"error": {"grpc": <status name>, "message": ...}}):
  objects                       adbc_get_objects(depth="all"): [[catalog, schema, table, [column names]]]
  table_schema {table, schema}  adbc_get_table_schema: [{"name", "type"}]
  table_types                   adbc_get_table_types
  info                          adbc_get_info: vendor name and version
  query {sql}                   cursor.execute + fetch_arrow_table: {"schema", "rows"} as read_arrow.py prints them
  prepared {sql}                cursor.adbc_prepare, then execute twice: both tables
  flight {sql}                  pyarrow.flight: handshake (basic), get_flight_info of CommandStatementQuery, do_get
  cross {sql, token2}           pyarrow.flight: get_flight_info as "token", do_get of its ticket as "token2"
  handshake                     pyarrow.flight's authenticate_basic_token: the "authorization" value answered
  raw {call, hex}               pyarrow.flight with hostile bytes: "do_get" of a ticket, "info" / "schema" of a
                                command descriptor, "path" info of a path descriptor, "action" {type} with a body,
                                "actions": ListActions, "meta": GetFlightInfo + DoGet of a metadata command
Credentials: "token" (Authorization: Bearer), or "user" + "password" (ADBC's handshake); none without either.
"tlsRoots": a PEM file the server's certificate is checked against (a grpc+tls:// URI).
"""
import json
import os
import sys

import adbc_driver_flightsql
import adbc_driver_flightsql.dbapi as flight_sql
import adbc_driver_manager
import pyarrow as pa
import pyarrow.flight as fl

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "pyarrow"))
from read_arrow import column_values  # noqa: E402  (the one JSON form of Arrow values the tests compare)


def plain(table):
    columns = {name: column_values(table.column(name), table.schema.field(name).type) for name in table.column_names}
    rows = [{name: columns[name][i] for name in table.column_names} for i in range(table.num_rows)]
    return {"schema": [{"name": f.name, "type": str(f.type)} for f in table.schema], "rows": rows}


def connect(args):
    kwargs = {}
    if args.get("token"):
        kwargs[adbc_driver_flightsql.DatabaseOptions.AUTHORIZATION_HEADER.value] = f"Bearer {args['token']}"
    if args.get("tlsRoots"):
        with open(args["tlsRoots"], encoding="ascii") as f:
            kwargs[adbc_driver_flightsql.DatabaseOptions.TLS_ROOT_CERTS.value] = f.read()
    if args.get("user") is not None:
        kwargs["username"] = args["user"]
        kwargs["password"] = args.get("password", "")
    return flight_sql.connect(args["uri"], db_kwargs=kwargs)


def command_any(name, payload):
    """A Flight SQL command packed in a google.protobuf.Any (type_url = 1, value = 2), written by hand."""
    def field(number, data):
        key = bytes([(number << 3) | 2])
        n, out = len(data), bytearray()
        while n >= 0x80:
            out.append((n & 0x7F) | 0x80)
            n >>= 7
        out.append(n)
        return key + bytes(out) + data

    url = f"type.googleapis.com/arrow.flight.protocol.sql.{name}".encode()
    return field(1, url) + field(2, payload)


def flight_query(args, sql):
    client = fl.FlightClient(args["uri"])
    options = fl.FlightCallOptions()
    if args.get("user") is not None:
        header = client.authenticate_basic_token(args["user"], args.get("password", ""))
        options = fl.FlightCallOptions(headers=[header])
    elif args.get("token"):
        options = fl.FlightCallOptions(headers=[(b"authorization", f"Bearer {args['token']}".encode())])
    cmd = command_any("CommandStatementQuery", bytes([0x0A]) + _varint(len(sql.encode())) + sql.encode())
    info = client.get_flight_info(fl.FlightDescriptor.for_command(cmd), options)
    tables = [client.do_get(e.ticket, options).read_all() for e in info.endpoints]
    table = pa.concat_tables(tables) if tables else info.schema.empty_table()
    out = plain(table)
    out["infoSchema"] = [{"name": f.name, "type": str(f.type)} for f in info.schema]
    out["endpoints"] = len(info.endpoints)
    return out


def cross(args, step):
    client = fl.FlightClient(args["uri"])
    opts = lambda t: fl.FlightCallOptions(headers=[(b"authorization", f"Bearer {t}".encode())])  # noqa: E731
    sql = step["sql"].encode()
    cmd = command_any("CommandStatementQuery", bytes([0x0A]) + _varint(len(sql)) + sql)
    info = client.get_flight_info(fl.FlightDescriptor.for_command(cmd), opts(args["token"]))
    return plain(client.do_get(info.endpoints[0].ticket, opts(step["token2"])).read_all())


def raw(args, step):
    client = fl.FlightClient(args["uri"])
    token = args.get("token")
    opts = fl.FlightCallOptions(headers=[(b"authorization", f"Bearer {token}".encode())] if token else [])
    data = bytes.fromhex(step.get("hex", ""))
    call = step["call"]
    if call == "do_get":
        return plain(client.do_get(fl.Ticket(data), opts).read_all())
    if call == "info":
        return len(client.get_flight_info(fl.FlightDescriptor.for_command(data), opts).endpoints)
    if call == "schema":
        return str(client.get_schema(fl.FlightDescriptor.for_command(data), opts).schema)
    if call == "path":
        return len(client.get_flight_info(fl.FlightDescriptor.for_path("orders"), opts).endpoints)
    if call == "meta":
        info = client.get_flight_info(fl.FlightDescriptor.for_command(data), opts)
        table = pa.concat_tables([client.do_get(e.ticket, opts).read_all() for e in info.endpoints])
        out = plain(table)
        out["infoSchema"] = [{"name": f.name, "type": str(f.type), "nullable": f.nullable} for f in info.schema]
        return out
    if call == "actions":
        return [a.type for a in client.list_actions(opts)]
    if call == "action":
        return [r.body.to_pybytes().hex() for r in client.do_action(fl.Action(step["type"], data), opts)]
    raise ValueError(f"unknown raw call {call}")


def _varint(n):
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def run(conn, args, step):
    do = step["do"]
    if do == "objects":
        objs = conn.adbc_get_objects(depth="all").read_all().to_pylist()
        return [
            [c["catalog_name"], s["db_schema_name"], t["table_name"], [col["column_name"] for col in t["table_columns"] or []]]
            for c in objs
            for s in c["catalog_db_schemas"] or []
            for t in s["db_schema_tables"] or []
        ]
    if do == "table_schema":
        schema = conn.adbc_get_table_schema(step["table"], db_schema_filter=step.get("schema"))
        return [{"name": f.name, "type": str(f.type)} for f in schema]
    if do == "table_types":
        return conn.adbc_get_table_types()
    if do == "info":
        info = conn.adbc_get_info()
        return {"vendor_name": info.get("vendor_name"), "vendor_version": info.get("vendor_version")}
    if do == "query":
        cur = conn.cursor()
        cur.execute(step["sql"])
        return plain(cur.fetch_arrow_table())
    if do == "prepared":
        cur = conn.cursor()
        cur.adbc_prepare(step["sql"])
        cur.execute(step["sql"])
        first = plain(cur.fetch_arrow_table())
        cur.execute(step["sql"])
        second = plain(cur.fetch_arrow_table())
        cur.close()
        return {"first": first, "second": second}
    if do == "flight":
        return flight_query(args, step["sql"])
    if do == "cross":
        return cross(args, step)
    if do == "raw":
        return raw(args, step)
    if do == "handshake":
        # pyarrow's basic-token handshake: the bearer token the server answered (the "user" and "password" args).
        _, value = fl.FlightClient(args["uri"]).authenticate_basic_token(args["user"], args.get("password", ""))
        return value.decode()
    raise ValueError(f"unknown step {do}")


def error_of(err):
    if isinstance(err, fl.FlightError) or isinstance(err, pa.ArrowException):
        # pyarrow names the gRPC status in its message ("gRPC returned resource exhausted error, ...").
        return {"grpc": type(err).__name__, "message": str(err)}
    if isinstance(err, adbc_driver_manager.Error):
        # ADBC says the gRPC status in its message ("[FlightSQL] ... (Unauthenticated; ...)") and its status code.
        return {"grpc": type(err).__name__, "message": str(err)}
    if isinstance(err, fl.FlightError):
        return {"grpc": type(err).__name__, "message": str(err)}
    return {"grpc": type(err).__name__, "message": str(err)}


def main(args):
    results = []
    conn = None
    try:
        conn = connect(args)
    except Exception as err:  # noqa: BLE001  (a refused handshake is an answer the test checks)
        print(json.dumps({"connect": error_of(err)}))
        return
    try:
        for step in args["steps"]:
            try:
                results.append({"ok": run(conn, args, step)})
            except Exception as err:  # noqa: BLE001
                results.append({"error": error_of(err)})
    finally:
        conn.close()
    print(json.dumps({"results": results}))


if __name__ == "__main__":
    main(json.loads(sys.argv[1]))
