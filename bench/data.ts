/**
 * The benchmark's data, in its own schema (`vast."bench|kafka_topics"`) so loading never touches the demo or test
 * schemas:
 * - clicks: the demo generator at 1,000,000 events (1,001,000 rows; small JSON values, no headers);
 * - orders: the demo generator at 100,000 events (its timestamps overflow Trino's date_add beyond ~107k events),
 *   copied 10 times with the broker/producer times shifted back 24 days per copy (the gateway serves only
 *   events before now): 1,002,000 rows of bigger values
 *   with headers, every hard case included;
 * - s3_events: 1 event (unused), orders_expanded rebuilt over the copied orders.
 * Reused when the row counts already match. Only the topics a run needs are loaded (the race needs clicks alone).
 */
import { HttpTrino } from '../src/trino/http-trino.js';
import { quoteIdent } from '../src/query/sql/sql-text.js';
import { demoStatements } from '../scripts/demo-data.js';

export const BENCH_CATALOG = 'vast';
export const BENCH_SCHEMA = 'bench|kafka_topics';
/** The 10^7-row race reads `clicks` of a schema of its own, loaded only when a size above 10^6 is asked. */
export const BIG_SCHEMA = 'bench_big|kafka_topics';
const BIG_CLICKS = 10_000_000;
export const BENCH_SIZES = { orders: 100_000, clicks: 1_000_000, s3_events: 1 };
/** Copies of the 100k demo orders (each shifted by 24 days; 100k events span 23.1 days). */
const ORDER_COPIES = 10;

/** Rows the demo generator writes for n events (it stores every `every`-th event twice, starting at `at`). */
function withDuplicates(n: number, every: number, at: number): number {
  return n + (n > at ? Math.floor((n - 1 - at) / every) + 1 : 0);
}

export const BIG_ROWS = withDuplicates(BIG_CLICKS, 1000, 17);

export const EXPECTED_ROWS: Record<string, number> = {
  clicks: withDuplicates(BENCH_SIZES.clicks, 1000, 17),
  orders: withDuplicates(BENCH_SIZES.orders, 500, 7) * ORDER_COPIES,
  s3_events: BENCH_SIZES.s3_events,
  orders_expanded: withDuplicates(BENCH_SIZES.orders, 500, 7) * ORDER_COPIES,
};

const table = (name: string, schema = BENCH_SCHEMA) =>
  `${quoteIdent(BENCH_CATALOG)}.${quoteIdent(schema)}.${quoteIdent(name)}`;

/** Rows of a table; for a topic, only those the gateway can serve (broker time before now). */
async function count(c: HttpTrino, name: string, schema = BENCH_SCHEMA): Promise<number> {
  const what = name.endsWith('_expanded') ? 'count(*)' : 'count_if(timestamp_broker < localtimestamp)';
  return c.all(`SELECT ${what} FROM ${table(name, schema)}`).then(
    (r) => Number(r.rows[0]![0]),
    () => -1,
  );
}

/** Loads the bench schema unless it already holds exactly the expected rows; returns what it did. */
export async function ensureBenchData(
  trinoUrl: string,
  log: (msg: string) => void,
  topics: string[] = ['clicks', 'orders'],
): Promise<{ reused: boolean; seconds: number; rows: Record<string, number> }> {
  const c = new HttpTrino({ server: trinoUrl, user: 'topicgate-bench' });
  // orders brings orders_expanded (rebuilt over the copies); s3_events is part of the demo shape.
  const tables = Object.keys(EXPECTED_ROWS).filter(
    (t) => topics.includes(t) || (t === 'orders_expanded' && topics.includes('orders')),
  );
  const have: Record<string, number> = {};
  for (const t of tables) have[t] = await count(c, t);
  if (tables.every((t) => have[t] === EXPECTED_ROWS[t])) {
    return { reused: true, seconds: 0, rows: have };
  }
  log(`loading ${BENCH_CATALOG}."${BENCH_SCHEMA}" ${tables.join(', ')} (found ${JSON.stringify(have)})`);
  const t0 = performance.now();
  const statements = demoStatements(BENCH_SIZES, BENCH_CATALOG, BENCH_SCHEMA);
  const expanded = statements.slice(-2); // DROP + CTAS orders_expanded: rebuilt after the copies
  if (!expanded[1]?.includes('orders_expanded'))
    throw new Error('demoStatements changed shape: orders_expanded is not last');
  const shift = (col: string) => `date_add('day', -24 * k, ${col})`;
  const copies =
    `INSERT INTO ${table('orders')} SELECT key, value, ${shift('timestamp_broker')}, ${shift('timestamp_producer')}, headers ` +
    `FROM ${table('orders')} CROSS JOIN UNNEST(sequence(1, ${ORDER_COPIES - 1})) AS c(k)`;
  const needed = (sql: string) => sql.startsWith('CREATE SCHEMA') || tables.some((t) => sql.includes(table(t)));
  const todo = [...statements.slice(0, -2).filter(needed), ...(topics.includes('orders') ? [copies, ...expanded] : [])];
  for (const sql of todo) await c.all(sql, { timeoutMs: 1_800_000 });
  const rows: Record<string, number> = {};
  for (const t of tables) rows[t] = await count(c, t);
  for (const t of tables) {
    if (rows[t] !== EXPECTED_ROWS[t])
      throw new Error(`bench data: ${t} has ${rows[t]} rows, expected ${EXPECTED_ROWS[t]}`);
  }
  return { reused: false, seconds: (performance.now() - t0) / 1000, rows };
}

/**
 * The demo generator's clicks at 10^7 events (10,010,000 rows over 7.7 days of broker time) in BIG_SCHEMA, unless
 * already there: about 1.3 GB of the memory connector, so the bench that asks for it runs Trino with a bigger heap
 * (TOPICGATE_LOCAL_TRINO_HEAP, see bench/run.ts).
 */
export async function ensureBigClicks(trinoUrl: string, log: (msg: string) => void): Promise<{ reused: boolean }> {
  const c = new HttpTrino({ server: trinoUrl, user: 'topicgate-bench' });
  const have = await count(c, 'clicks', BIG_SCHEMA);
  if (have === BIG_ROWS) return { reused: true };
  log(`loading ${BENCH_CATALOG}."${BIG_SCHEMA}".clicks (${BIG_CLICKS} events; found ${have} rows)`);
  const t0 = performance.now();
  const statements = demoStatements({ orders: 0, clicks: BIG_CLICKS, s3_events: 0 }, BENCH_CATALOG, BIG_SCHEMA);
  const clicks = table('clicks', BIG_SCHEMA);
  for (const sql of statements.filter((x) => x.startsWith('CREATE SCHEMA') || x.includes(clicks)))
    await c.all(sql, { timeoutMs: 1_800_000 });
  const rows = await count(c, 'clicks', BIG_SCHEMA);
  if (rows !== BIG_ROWS) throw new Error(`bench data: big clicks has ${rows} rows, expected ${BIG_ROWS}`);
  log(`loaded in ${((performance.now() - t0) / 1000).toFixed(0)}s`);
  return { reused: false };
}
