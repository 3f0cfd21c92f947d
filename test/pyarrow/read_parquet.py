"""Reads a Parquet file (argv[1]) with pyarrow and prints it as JSON, for topicgate's encoder tests.

Output: {"schema": [{"name", "type"}], "rows": [{...}], "row_groups": n, "codecs": [...], "complete": true}, values as
read_arrow.py prints them (bytes as hex, int64 as decimal strings, timestamps as "<integer> <unit>", ...). A map's
type is printed without pyarrow's note on its entries field name ("map<string, int64>"), which Parquet renames.
"codecs" lists the column codecs of every column chunk (e.g. ["ZSTD"]). A file pyarrow cannot open (a body cut before its footer) prints {"complete": false, "error": "..."}.
With --summary (large files): only the last row instead of "rows", plus "num_rows".
"""
import json
import re
import sys

import pyarrow as pa
import pyarrow.parquet as pq

from read_arrow import column_values


def main(path, summary=False):
    try:
        file = pq.ParquetFile(path)
        table = file.read()
    except (pa.ArrowInvalid, OSError) as err:
        json.dump({"complete": False, "error": str(err)}, sys.stdout)
        return
    num_rows = table.num_rows
    if summary:
        table = table.slice(max(table.num_rows - 1, 0))
    columns = {name: column_values(table.column(name), table.schema.field(name).type) for name in table.column_names}
    rows = [{name: columns[name][i] for name in table.column_names} for i in range(table.num_rows)]
    schema = [{"name": f.name, "type": re.sub(r" \('[^']*'\)>", ">", str(f.type))} for f in table.schema]
    metadata = {k.decode(): v.decode() for k, v in (table.schema.metadata or {}).items() if k != b"ARROW:schema"}
    json.dump(
        {
            "schema": schema,
            "rows": rows,
            "num_rows": num_rows,
            "row_groups": file.metadata.num_row_groups,
            "codecs": sorted(
                {
                    file.metadata.row_group(g).column(c).compression
                    for g in range(file.metadata.num_row_groups)
                    for c in range(file.metadata.num_columns)
                }
            ),
            "metadata": metadata,
            "complete": True,
        },
        sys.stdout,
    )


if __name__ == "__main__":
    main(sys.argv[-1], summary="--summary" in sys.argv)
