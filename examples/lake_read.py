"""Reads a table a topicgate load landed in the lake, with pyiceberg alone (no Trino, no gateway).

The lake's Iceberg catalog is a JDBC (SQL) catalog in PostgreSQL, its warehouse an S3 bucket: pyiceberg's
SqlCatalog reads the same catalog tables Trino's Iceberg connector writes, and the data files straight from S3.

    python3 examples/lake_read.py <catalog name> <postgres URL> <S3 endpoint> <namespace.table>

For the local lake (scripts/local-lake.ts): catalog name lake_<Trino port>, the PostgreSQL URL
postgresql+psycopg2://topicgate:topicgate@127.0.0.1:15432/topicgate?options=-csearch_path%3Diceberg_lake
(the catalog's tables are in the schema iceberg_lake), the S3 endpoint http://127.0.0.1:<Trino port + 9>.
Prints the table's Iceberg schema (the load's typed columns) and how many rows it holds, then the first rows.
"""

import sys

from pyiceberg.catalog.sql import SqlCatalog


def main() -> None:
    name, uri, endpoint, table = sys.argv[1:5]
    catalog = SqlCatalog(
        name,
        uri=uri,
        **{
            "s3.endpoint": endpoint,
            "s3.region": "us-east-1",
            "s3.access-key-id": "topicgate",
            "s3.secret-access-key": "topicgate",
        },
    )
    t = catalog.load_table(table)
    print(t.schema())
    rows = t.scan().to_arrow()
    print(f"rows: {rows.num_rows}")
    print(rows.slice(0, 3).to_pylist())


if __name__ == "__main__":
    main()
