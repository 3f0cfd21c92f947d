/**
 * The local lake: Trino's Iceberg connector as catalog `lake`, its Iceberg JDBC catalog in the local PostgreSQL (a
 * schema of its own, `iceberg_lake`, in the `topicgate` database) and its warehouse in a bucket on the local S3
 * server the spooling already runs (local-s3.ts). Loads (API.md "Loads run by Trino") land topics here.
 *
 * The S3 server keeps its objects in memory, so the warehouse lives as long as the server; the catalog's rows
 * would outlive it in PostgreSQL and point at files that are gone. Each local Trino has a catalog name of its own
 * (`lake_<port>`), and its rows are forgotten whenever its S3 server starts afresh, so the catalog always
 * describes the warehouse that is there.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { pgDown, pgLayout, pgReady, pgUp, pgUrl } from './local-postgres.js';
import { LAKE_BUCKET, type LocalS3Layout } from './local-s3.js';

/** The Trino catalog of the lake. */
export const LAKE_CATALOG = 'lake';
/** The PostgreSQL schema holding the Iceberg JDBC catalog's tables (iceberg_tables, iceberg_namespace_properties). */
export const LAKE_PG_SCHEMA = 'iceberg_lake';

/**
 * A second Iceberg catalog of the same kind, for what a test writes beside the lake (the cluster's load targets,
 * when the lake holds the topics): its own catalog name and warehouse folder, so its rows never mix with the lake's.
 */
export const SINK_CATALOG = 'sink';

/**
 * The Iceberg catalog name of `catalog` (the lake unless told) of the local Trino on `trinoPort` (rows in the
 * shared tables are keyed by it).
 */
export function lakeCatalogName(trinoPort: number, catalog = LAKE_CATALOG): string {
  return `${catalog}_${trinoPort}`;
}

const lines = (...l: string[]) => `${l.join('\n')}\n`;

/**
 * `etc/catalog/lake.properties` (or `<catalog>.properties`): the Iceberg connector over the JDBC catalog and the S3
 * warehouse, the lake's in `warehouse/`, another catalog's in a folder of its own name.
 */
export function lakeProperties(t: { port: number; pgPort: number }, s3: LocalS3Layout, catalog = LAKE_CATALOG): string {
  const warehouse = catalog === LAKE_CATALOG ? 'warehouse' : catalog;
  return lines(
    'connector.name=iceberg',
    'iceberg.catalog.type=jdbc',
    'iceberg.jdbc-catalog.driver-class=org.postgresql.Driver',
    // currentSchema: the catalog's tables are created and read in a schema of their own.
    `iceberg.jdbc-catalog.connection-url=jdbc:postgresql://127.0.0.1:${t.pgPort}/topicgate?currentSchema=${LAKE_PG_SCHEMA}`,
    'iceberg.jdbc-catalog.connection-user=topicgate',
    'iceberg.jdbc-catalog.connection-password=topicgate',
    `iceberg.jdbc-catalog.catalog-name=${lakeCatalogName(t.port, catalog)}`,
    `iceberg.jdbc-catalog.default-warehouse-dir=s3://${LAKE_BUCKET}/${warehouse}`,
    'fs.native-s3.enabled=true',
    `s3.endpoint=${s3.url}`,
    's3.region=us-east-1',
    's3.path-style-access=true',
    // moto accepts any key; a real deployment names its own (docs/loads.md, "The lake").
    's3.aws-access-key=topicgate',
    's3.aws-secret-key=topicgate',
  );
}

/**
 * The Iceberg JDBC catalog's tables, as Iceberg's JdbcUtil lays them out (schema version V1): Trino's JDBC catalog
 * reads and writes them but does not create them.
 */
const CATALOG_TABLES = [
  `CREATE TABLE IF NOT EXISTS ${LAKE_PG_SCHEMA}.iceberg_tables (
    catalog_name VARCHAR(255) NOT NULL,
    table_namespace VARCHAR(255) NOT NULL,
    table_name VARCHAR(255) NOT NULL,
    metadata_location VARCHAR(1000),
    previous_metadata_location VARCHAR(1000),
    iceberg_type VARCHAR(5),
    PRIMARY KEY (catalog_name, table_namespace, table_name)
  )`,
  `CREATE TABLE IF NOT EXISTS ${LAKE_PG_SCHEMA}.iceberg_namespace_properties (
    catalog_name VARCHAR(255) NOT NULL,
    namespace VARCHAR(255) NOT NULL,
    property_key VARCHAR(255),
    property_value VARCHAR(1000),
    PRIMARY KEY (catalog_name, namespace, property_key)
  )`,
];

/** In a local Trino's run dir: the port of the PostgreSQL that its start started for the lake. */
const PG_STARTED_FILE = 'postgres-started';

/**
 * Makes the catalog's PostgreSQL schema (idempotent) and, when the S3 server has just started with an empty
 * warehouse, forgets the rows of this Trino's Iceberg catalogs (`catalogs`: the lake unless told). A PostgreSQL that
 * is not running is started, recorded in the Trino's `runDir` first (so a start interrupted half-way counts): the
 * Trino's `down` stops it too (lakePgDown).
 */
export async function prepareLake(
  trinoPort: number,
  freshWarehouse: boolean,
  runDir: string,
  catalogs: readonly string[] = [LAKE_CATALOG],
): Promise<void> {
  const l = pgLayout();
  if (!(await pgReady(l.url))) {
    writeFileSync(join(runDir, PG_STARTED_FILE), `${l.port}\n`);
    await pgUp(l);
  }
  const client = new pg.Client({ connectionString: pgUrl({ port: l.port }), connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    // The names are constants of this file. Checked first: CREATE SCHEMA IF NOT EXISTS needs CREATE on the database.
    const have = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [LAKE_PG_SCHEMA]);
    if (have.rowCount === 0) await client.query(`CREATE SCHEMA IF NOT EXISTS ${LAKE_PG_SCHEMA}`);
    for (const statement of CATALOG_TABLES) await client.query(statement);
    if (!freshWarehouse) return;
    for (const table of ['iceberg_tables', 'iceberg_namespace_properties']) {
      await client.query(`DELETE FROM ${LAKE_PG_SCHEMA}.${table} WHERE catalog_name = ANY($1)`, [
        catalogs.map((c) => lakeCatalogName(trinoPort, c)),
      ]);
    }
  } finally {
    await client.end();
  }
}

/** Stops the PostgreSQL that the start of the Trino of `runDir` started for the lake, if it did. */
export async function lakePgDown(runDir: string): Promise<boolean> {
  const file = join(runDir, PG_STARTED_FILE);
  const port = existsSync(file) ? Number(readFileSync(file, 'utf8').trim()) : Number.NaN;
  if (!Number.isInteger(port)) return false;
  const stopped = await pgDown(pgLayout({ ...process.env, TOPICGATE_LOCAL_PG_PORT: String(port) }));
  rmSync(file, { force: true });
  return stopped;
}
