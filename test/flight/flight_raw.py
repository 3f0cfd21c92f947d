"""pyarrow.flight against topicgate's Flight SQL entrance at the level of the Flight protocol, for the partition
tests: a statement's FlightInfo (its endpoints' tickets), one ticket's DoGet, and a DoGet held after its first batch
then cancelled (the call cancelled, or CancelFlightInfo).

  python3 flight_raw.py '<json>'   with {"mode": "info" | "get" | "hold", "uri", "token"?, "headers"?, ...}

- info {"sql"}: prints {"tickets": [hex], "ordered", "expires": [epoch s]}
- get {"ticket": hex}: prints {"rows": n, "queryId"} or {"error": {"kind", "message"}}
- spread {"sql"}: DoGet of every endpoint, each on a call of its own: prints {"reads": [{"rows", "instance"}]}, the
  instance as the X-Topicgate-Instance response header names it (HAProxy's, scripts/haproxy-config.ts)
- hold {"sql", "cancel": "call" | "action", "cancelToken"?}: DoGet of the first endpoint, its first batch read,
  prints {"queryId"} and waits for a line on stdin, then cancels (CancelFlightInfo with "cancelToken"'s credentials
  when given) and reads on, then reads the same ticket again: prints {"outcome", "again", "cancelResult"?}.
- action {"type", "bodyHex"}: one DoAction: prints {"results": [hex]} or {"error"}
The Flight SQL command is packed by hand (protobuf's wire format: two length-delimited fields).
"""
import json
import sys

import pyarrow.flight as flight


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def field(number, data):
    return varint(number << 3 | 2) + varint(len(data)) + data


def statement_command(sql):
    query = field(1, sql.encode())
    type_url = b"type.googleapis.com/arrow.flight.protocol.sql.CommandStatementQuery"
    return field(1, type_url) + field(2, query)


def options(args):
    headers = [(k.encode(), v.encode()) for k, v in (args.get("headers") or {}).items()]
    if args.get("token"):
        headers.append((b"authorization", f"Bearer {args['token']}".encode()))
    return flight.FlightCallOptions(headers=headers)


def query_id(reader):
    metadata = reader.schema.metadata or {}
    return (metadata.get(b"topicgate.query_id") or b"").decode()


def error_of(err):
    return {"kind": type(err).__name__, "message": str(err)}


def seconds(ts):
    """An endpoint's expiration time (a TimestampScalar, or None) as epoch seconds."""
    if ts is None or not ts.is_valid:
        return None
    return ts.value / {"s": 1, "ms": 1e3, "us": 1e6, "ns": 1e9}[ts.type.unit]


def info(client, args):
    fi = client.get_flight_info(flight.FlightDescriptor.for_command(statement_command(args["sql"])), options(args))
    return fi, {
        "tickets": [e.ticket.ticket.hex() for e in fi.endpoints],
        "ordered": fi.ordered if hasattr(fi, "ordered") else None,
        "expires": [seconds(e.expiration_time) for e in fi.endpoints],
    }


def get(client, args):
    try:
        reader = client.do_get(flight.Ticket(bytes.fromhex(args["ticket"])), options(args))
        table = reader.read_all()
        return {"rows": table.num_rows, "queryId": query_id(reader)}
    except Exception as err:  # noqa: BLE001 (pyarrow raises ArrowInvalid for INVALID_ARGUMENT)
        return {"error": error_of(err)}


class InstanceHeader(flight.ClientMiddlewareFactory):
    """Keeps the X-Topicgate-Instance header of each call's response, in call order."""

    def __init__(self):
        self.seen = []

    def start_call(self, info):
        factory = self

        class Middleware(flight.ClientMiddleware):
            def received_headers(self, headers):
                # Called for the headers, then again for the trailers (which do not carry it).
                if headers.get("x-topicgate-instance"):
                    factory.seen.append(headers["x-topicgate-instance"][0])

        return Middleware()


def spread(client, args, instances):
    fi, _ = info(client, args)
    reads = []
    for endpoint in fi.endpoints:
        table = client.do_get(endpoint.ticket, options(args)).read_all()
        reads.append({"rows": table.num_rows, "instance": instances.seen[-1] if instances.seen else None})
    return {"reads": reads}


def hold(client, args):
    fi, _ = info(client, args)
    reader = client.do_get(fi.endpoints[0].ticket, options(args))
    reader.read_chunk()
    print(json.dumps({"queryId": query_id(reader)}), flush=True)
    sys.stdin.readline()
    out = {}
    if args["cancel"] == "call":
        reader.cancel()
    else:
        # The action with the credentials of "cancelToken" when given (another principal's), else the reader's.
        canceller = dict(args, token=args.get("cancelToken") or args.get("token"))
        request = field(1, fi.serialize())
        results = list(client.do_action(flight.Action("CancelFlightInfo", request), options(canceller)))
        out["cancelResult"] = [r.body.to_pybytes().hex() for r in results]
    out["outcome"], out["message"] = read_on(lambda: reader)
    # The same ticket read again afterwards.
    out["again"], _ = read_on(lambda: client.do_get(fi.endpoints[0].ticket, options(args)))
    return out


def read_on(open_reader):
    """Reads a DoGet to its end: "complete", or the error's kind and message."""
    try:
        reader = open_reader()
        while True:
            reader.read_chunk()
    except StopIteration:
        return "complete", ""
    except Exception as err:  # noqa: BLE001 (pyarrow raises ArrowInvalid for INVALID_ARGUMENT)
        return type(err).__name__, str(err)


def action(client, args):
    results = client.do_action(flight.Action(args["type"], bytes.fromhex(args["bodyHex"])), options(args))
    return {"results": [r.body.to_pybytes().hex() for r in results]}


def main(args):
    instances = InstanceHeader()
    client = flight.FlightClient(args["uri"], middleware=[instances])
    try:
        if args["mode"] == "spread":
            print(json.dumps(spread(client, args, instances)))
        elif args["mode"] == "info":
            print(json.dumps(info(client, args)[1]))
        elif args["mode"] == "action":
            print(json.dumps(action(client, args)))
        elif args["mode"] == "get":
            print(json.dumps(get(client, args)))
        else:
            print(json.dumps(hold(client, args)), flush=True)
    except Exception as err:  # noqa: BLE001 (pyarrow raises ArrowInvalid for INVALID_ARGUMENT)
        print(json.dumps({"error": error_of(err)}))
    finally:
        client.close()


if __name__ == "__main__":
    main(json.loads(sys.argv[1]))
