"""Sends statements to topicgate's Flight SQL server as a client would, for test/integration/flight-hostile.test.ts.

One argument: the path of a JSON file {"uri", "token", "statements": [hex of the statement's UTF-8 bytes, ...]}
(bytes, so a statement may be invalid UTF-8 or longer than a command line). Each statement is sent as
CommandStatementQuery through pyarrow.flight (GetFlightInfo, then DoGet of each endpoint), in one connection, one
after another. One JSON line is printed: for each statement {"ok": rows} or {"error": {"status", "message"}}, where
status is the gRPC status the client saw (pyarrow says it in its message: "Flight returned ... error").
"""
import json
import re
import sys

import pyarrow as pa
import pyarrow.flight as fl

# pyarrow turns each gRPC status into an exception; its message names the status, which is read here.
STATUS_WORDS = {
    "invalid argument": "INVALID_ARGUMENT",
    "not found": "NOT_FOUND",
    "resource exhausted": "RESOURCE_EXHAUSTED",
    "internal": "INTERNAL",
    "unknown": "UNKNOWN",
    "unauthenticated": "UNAUTHENTICATED",
    "permission denied": "PERMISSION_DENIED",
    "unavailable": "UNAVAILABLE",
    "deadline exceeded": "DEADLINE_EXCEEDED",
    "cancelled": "CANCELLED",
    "unimplemented": "UNIMPLEMENTED",
    "failed precondition": "FAILED_PRECONDITION",
    "out of range": "OUT_OF_RANGE",
    "aborted": "ABORTED",
    "already exists": "ALREADY_EXISTS",
    "data loss": "DATA_LOSS",
}
CLASSES = {
    fl.FlightInternalError: "INTERNAL",
    fl.FlightUnauthenticatedError: "UNAUTHENTICATED",
    fl.FlightUnauthorizedError: "PERMISSION_DENIED",
    fl.FlightUnavailableError: "UNAVAILABLE",
    fl.FlightTimedOutError: "DEADLINE_EXCEEDED",
    fl.FlightCancelledError: "CANCELLED",
}


def status_of(err):
    m = re.search(r"(?:gRPC|Flight) returned ([a-z ]+?) error", str(err))
    if m and m.group(1) in STATUS_WORDS:
        return STATUS_WORDS[m.group(1)]
    for cls, name in CLASSES.items():
        if isinstance(err, cls):
            return name
    return type(err).__name__


def varint(n):
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def field(number, data):
    return bytes([(number << 3) | 2]) + varint(len(data)) + data


def statement_query(sql):
    """CommandStatementQuery {query = 1} packed in a google.protobuf.Any {type_url = 1, value = 2}."""
    url = b"type.googleapis.com/arrow.flight.protocol.sql.CommandStatementQuery"
    return field(1, url) + field(2, field(1, sql))


def send(client, options, sql):
    info = client.get_flight_info(fl.FlightDescriptor.for_command(statement_query(sql)), options)
    return sum(client.do_get(e.ticket, options).read_all().num_rows for e in info.endpoints)


def main(path):
    with open(path, encoding="utf8") as f:
        args = json.load(f)
    client = fl.FlightClient(args["uri"])
    options = fl.FlightCallOptions(headers=[(b"authorization", f"Bearer {args['token']}".encode())])
    results = []
    for hex_sql in args["statements"]:
        try:
            results.append({"ok": send(client, options, bytes.fromhex(hex_sql))})
        except (fl.FlightError, pa.ArrowException) as err:
            results.append({"error": {"status": status_of(err), "message": str(err)[:2000]}})
    print(json.dumps({"results": results}))


if __name__ == "__main__":
    main(sys.argv[1])
