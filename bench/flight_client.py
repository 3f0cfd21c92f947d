"""The benchmark's reader of one case (bench/flight.ts), in a process of its own, at C++ speed (pyarrow reads the
Arrow IPC in C++ and releases the GIL): the HTTP Arrow stream of a read, or the same read over Flight SQL's DoGet,
its endpoints read at once, one thread each. Prints {"rows", "seconds", "endpoints"}; every batch is read and
dropped, and the row count checked by the caller.

  python3 flight_client.py http <events url>
  python3 flight_client.py flight <grpc uri> <sql> <partitions>
"""
import json
import sys
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor

import pyarrow as pa
import pyarrow.flight as flight


def field(number, data):
    out, n = bytearray([number << 3 | 2]), len(data)
    while n >= 0x80:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    return bytes(out + bytes([n]) + data)


def command(sql):
    type_url = b"type.googleapis.com/arrow.flight.protocol.sql.CommandStatementQuery"
    return field(1, type_url) + field(2, field(1, sql.encode()))


def drain(reader):
    rows = 0
    while True:
        try:
            rows += reader.read_chunk().data.num_rows
        except StopIteration:
            return rows


def http(url):
    with urllib.request.urlopen(url) as res:
        reader = pa.ipc.open_stream(res)
        rows = 0
        for batch in reader:
            rows += batch.num_rows
    return rows, 1


def doget(uri, sql, partitions):
    client = flight.FlightClient(uri)
    options = flight.FlightCallOptions(headers=[(b"topicgate-streams", partitions.encode())])
    info = client.get_flight_info(flight.FlightDescriptor.for_command(command(sql)), options)
    with ThreadPoolExecutor(max_workers=len(info.endpoints)) as pool:
        counts = list(pool.map(lambda e: drain(client.do_get(e.ticket)), info.endpoints))
    client.close()
    return sum(counts), len(info.endpoints)


if __name__ == "__main__":
    t0 = time.perf_counter()
    rows, endpoints = http(sys.argv[2]) if sys.argv[1] == "http" else doget(*sys.argv[2:5])
    print(json.dumps({"rows": rows, "seconds": time.perf_counter() - t0, "endpoints": endpoints}))
