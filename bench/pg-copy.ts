/**
 * The bench topic on the PostgreSQL-backed catalog (`vastpg.bench_topics`), where range predicates on
 * `timestamp_broker` reach the scan: copied from the memory catalog with one CTAS (without `headers`, which the
 * PostgreSQL connector cannot store, as scripts/load-demo.ts does for the demo), then indexed on
 * `timestamp_broker` so a pushed range reads only its rows, the way VAST prunes by time. Reused when the row count
 * matches.
 */
import pg from 'pg';
import { pgLayout, pgUp } from '../scripts/local-postgres.js';
import { quoteIdent } from '../src/query/sql/sql-text.js';
import { HttpTrino } from '../src/trino/http-trino.js';
import { BENCH_CATALOG, BENCH_SCHEMA, EXPECTED_ROWS } from './data.js';

export const PG_BENCH_CATALOG = 'vastpg';
export const PG_BENCH_SCHEMA = 'bench_topics';

export async function ensurePgCopy(
  trinoUrl: string,
  topic: string,
  log: (msg: string) => void,
): Promise<{ pgStarted: boolean }> {
  const { url, started } = await pgUp(pgLayout());
  const c = new HttpTrino({ server: trinoUrl, user: 'topicgate-bench' });
  const dst = `${quoteIdent(PG_BENCH_CATALOG)}.${quoteIdent(PG_BENCH_SCHEMA)}.${quoteIdent(topic)}`;
  const have = await c.all(`SELECT count(*) FROM ${dst}`).then(
    (r) => Number(r.rows[0]![0]),
    () => -1,
  );
  if (have === EXPECTED_ROWS[topic]) return { pgStarted: started };
  log(`copying ${topic} to ${PG_BENCH_CATALOG}.${PG_BENCH_SCHEMA} (found ${have} rows)`);
  const src = `${quoteIdent(BENCH_CATALOG)}.${quoteIdent(BENCH_SCHEMA)}.${quoteIdent(topic)}`;
  await c.all(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(PG_BENCH_CATALOG)}.${quoteIdent(PG_BENCH_SCHEMA)}`);
  await c.all(`DROP TABLE IF EXISTS ${dst}`);
  await c.all(`CREATE TABLE ${dst} AS SELECT key, value, timestamp_broker, timestamp_producer FROM ${src}`, {
    timeoutMs: 1_800_000,
  });
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(
      `CREATE INDEX IF NOT EXISTS ${quoteIdent(`${topic}_timestamp_broker`)} ON ${quoteIdent(PG_BENCH_SCHEMA)}.${quoteIdent(topic)} (timestamp_broker)`,
    );
    await client.query(`ANALYZE ${quoteIdent(PG_BENCH_SCHEMA)}.${quoteIdent(topic)}`);
  } finally {
    await client.end();
  }
  return { pgStarted: started };
}
