"""Reads an Arrow IPC stream file (argv[1]) with pyarrow and prints it as JSON, for topicgate's encoder tests.

Output: {"schema": [{"name", "type"}], "rows": [{...}], "eos": bool}. JSON cannot hold every Arrow value
exactly, so: bytes -> lowercase hex strings, int64 -> decimal strings, decimals -> their text, timestamps ->
the integer in their unit as a string plus the unit ("1793491200123 ms"), dates -> ISO text, floats NaN/inf ->
"NaN"/"Infinity"/"-Infinity", maps -> lists of [key, value]. `eos` says whether the stream ended with Arrow's
end-of-stream marker (a stream cut short by a failed query does not).
"""
import datetime
import decimal
import json
import math
import sys

import pyarrow as pa
import pyarrow.ipc as ipc

EOS = b"\xff\xff\xff\xff\x00\x00\x00\x00"


def plain(value, arrow_type):
    """One value (a Python object from to_pylist) as JSON-safe data, exactly."""
    if value is None:
        return None
    if pa.types.is_timestamp(arrow_type):
        return str(value)  # nested timestamps only; top-level columns are read as raw integers below
    if pa.types.is_binary(arrow_type) or pa.types.is_large_binary(arrow_type):
        return value.hex()
    if pa.types.is_integer(arrow_type):
        return str(value) if arrow_type.bit_width == 64 else value
    if pa.types.is_decimal(arrow_type):
        return format(value, "f")
    if pa.types.is_floating(arrow_type):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return value
    if pa.types.is_date(arrow_type):
        return value.isoformat()
    if pa.types.is_list(arrow_type):
        return [plain(v, arrow_type.value_type) for v in value]
    if pa.types.is_map(arrow_type):
        return [[plain(k, arrow_type.key_type), plain(v, arrow_type.item_type)] for k, v in value]
    if pa.types.is_struct(arrow_type):
        return {f.name: plain(value[f.name], f.type) for f in arrow_type}
    return value


def column_values(column, arrow_type):
    if pa.types.is_timestamp(arrow_type):
        # The raw integers, not datetime objects (those stop at microseconds).
        raw = column.cast(pa.int64()).to_pylist()
        return [None if v is None else f"{v} {arrow_type.unit}" for v in raw]
    return [plain(v, arrow_type) for v in column.to_pylist()]


def main(path):
    with open(path, "rb") as f:
        data = f.read()
    table = ipc.open_stream(pa.py_buffer(data)).read_all()
    columns = {name: column_values(table.column(name), table.schema.field(name).type) for name in table.column_names}
    rows = [{name: columns[name][i] for name in table.column_names} for i in range(table.num_rows)]
    schema = [{"name": f.name, "type": str(f.type)} for f in table.schema]
    json.dump({"schema": schema, "rows": rows, "eos": data.endswith(EOS)}, sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1])
