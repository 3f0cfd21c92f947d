/**
 * Loads the Avro demo topic (scripts/demo-avro.ts) beside the other demo topics: its schemas are registered in
 * the Schema Registry first (the framed bytes carry the ids the registry assigns), then the tables are filled.
 * It has its own reuse marker, so a shared Trino that already holds the other demo topics gets just this topic
 * (and reloads it only when the events or the registry's ids differ), without touching the others.
 */
import { createHash } from 'node:crypto';
import { HttpTrino } from '../src/trino/http-trino.js';
import type { TrinoPort } from '../src/trino/trino-port.js';
import { quoteIdent } from '../src/query/sql/sql-text.js';
import { AVRO_TOPIC, demoAvroStatements, registerDemoSchemas, type DemoSchemaIds } from './demo-avro.js';
import { DEMO_CATALOG, DEMO_SCHEMA } from './demo-data.js';

/** The PostgreSQL copy (the pushdown catalog), as scripts/load-demo.ts names it. */
const PG = `${quoteIdent('vastpg')}.${quoteIdent('demo_topics')}`;
const MARKER = `${quoteIdent(DEMO_CATALOG)}.${quoteIdent('topicgate_meta')}.${quoteIdent('demo_load_avro')}`;

async function loadedFingerprint(client: TrinoPort): Promise<string | null> {
  try {
    const { rows } = await client.all(`SELECT fingerprint FROM ${MARKER}`);
    return (rows[0]?.[0] as string | undefined) ?? null;
  } catch {
    return null;
  }
}

export interface AvroDemoLoad {
  ids: DemoSchemaIds;
  events: number;
  reused: boolean;
  seconds: number;
}

/** Registers the schemas and (re)loads payments_avro and payments_json (and the PostgreSQL copy when asked). */
export async function loadAvroDemo(
  trinoUrl: string,
  registryUrl: string,
  events: number,
  options: { pgCopy?: boolean; reuse?: boolean } = {},
): Promise<AvroDemoLoad> {
  const t0 = performance.now();
  const ids = await registerDemoSchemas(registryUrl);
  const client = new HttpTrino({ server: trinoUrl, user: 'topicgate-loader' });
  const statements = demoAvroStatements(events, ids);
  const pgCopy = options.pgCopy
    ? [
        `DROP TABLE IF EXISTS ${PG}.${quoteIdent(AVRO_TOPIC)}`,
        `CREATE TABLE ${PG}.${quoteIdent(AVRO_TOPIC)} AS SELECT key, value, timestamp_broker, timestamp_producer ` +
          `FROM ${quoteIdent(DEMO_CATALOG)}.${quoteIdent(DEMO_SCHEMA)}.${quoteIdent(AVRO_TOPIC)}`,
      ]
    : [];
  const fingerprint = createHash('sha256')
    .update(JSON.stringify([statements, pgCopy]))
    .digest('hex');
  const seconds = () => (performance.now() - t0) / 1000;
  if (options.reuse && (await loadedFingerprint(client)) === fingerprint) {
    const pgThere =
      !options.pgCopy ||
      (await client.all(`SELECT count(*) FROM ${PG}.${quoteIdent(AVRO_TOPIC)}`).then(
        () => true,
        () => false,
      ));
    if (pgThere) return { ids, events, reused: true, seconds: seconds() };
  }
  const run = (sql: string) => client.all(sql, { timeoutMs: 1_800_000 });
  await run(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(DEMO_CATALOG)}.${quoteIdent('topicgate_meta')}`);
  await run(`DROP TABLE IF EXISTS ${MARKER}`);
  for (const sql of statements) await run(sql);
  if (options.pgCopy) {
    await run(`CREATE SCHEMA IF NOT EXISTS ${PG}`);
    for (const sql of pgCopy) await run(sql);
  }
  await run(`CREATE TABLE ${MARKER} AS SELECT '${fingerprint}' AS fingerprint, current_timestamp AS loaded_at`);
  return { ids, events, reused: false, seconds: seconds() };
}
