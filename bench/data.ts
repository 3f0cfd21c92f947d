/**
 * The benchmark's data, in its own schema (`vast."bench|kafka_topics"`) so loading never touches the demo or test
 * schemas:
 * - clicks: the demo generator at 1,000,000 events (1,001,000 rows; small JSON values, no headers);
 * - orders: the demo generator at 100,000 events (its timestamps overflow Trino's date_add beyond ~107k events),
 *   copied 10 times with the broker/producer times shifted back 24 days per copy (the gateway serves only
 *   events before now): 1,002,000 rows of bigger values
 *   with headers, every hard case included;
 * - s3_events: 1 event (unused), orders_expanded rebuilt over the copied orders.
 * Reused when the row counts already match.
 */
import { HttpTrino } from '../src/trino/http-trino.js';
import { quoteIdent } from '../src/query/sql-text.js';
import { demoStatements } from '../scripts/demo-data.js';

export const BENCH_CATALOG = 'vast';
export const BENCH_SCHEMA = 'bench|kafka_topics';
export const BENCH_SIZES = { orders: 100_000, clicks: 1_000_000, s3_events: 1 };
/** Copies of the 100k demo orders (each shifted by 24 days; 100k events span 23.1 days). */
const ORDER_COPIES = 10;

/** Rows the demo generator writes for n events (it stores every `every`-th event twice, starting at `at`). */
function withDuplicates(n: number, every: number, at: number): number {
  return n + (n > at ? Math.floor((n - 1 - at) / every) + 1 : 0);
}

export const EXPECTED_ROWS: Record<string, number> = {
  clicks: withDuplicates(BENCH_SIZES.clicks, 1000, 17),
  orders: withDuplicates(BENCH_SIZES.orders, 500, 7) * ORDER_COPIES,
  s3_events: BENCH_SIZES.s3_events,
  orders_expanded: withDuplicates(BENCH_SIZES.orders, 500, 7) * ORDER_COPIES,
};

const table = (name: string) => `${quoteIdent(BENCH_CATALOG)}.${quoteIdent(BENCH_SCHEMA)}.${quoteIdent(name)}`;

/** Rows of a table; for a topic, only those the gateway can serve (broker time before now). */
async function count(c: HttpTrino, name: string): Promise<number> {
  const what = name.endsWith('_expanded') ? 'count(*)' : 'count_if(timestamp_broker < localtimestamp)';
  return c.all(`SELECT ${what} FROM ${table(name)}`).then(
    (r) => Number(r.rows[0]![0]),
    () => -1,
  );
}

/** Loads the bench schema unless it already holds exactly the expected rows; returns what it did. */
export async function ensureBenchData(
  trinoUrl: string,
  log: (msg: string) => void,
): Promise<{ reused: boolean; seconds: number; rows: Record<string, number> }> {
  const c = new HttpTrino({ server: trinoUrl, user: 'topicgate-bench' });
  const have: Record<string, number> = {};
  for (const t of Object.keys(EXPECTED_ROWS)) have[t] = await count(c, t);
  if (Object.keys(EXPECTED_ROWS).every((t) => have[t] === EXPECTED_ROWS[t])) {
    return { reused: true, seconds: 0, rows: have };
  }
  log(`loading ${BENCH_CATALOG}."${BENCH_SCHEMA}" (found ${JSON.stringify(have)})`);
  const t0 = performance.now();
  const statements = demoStatements(BENCH_SIZES, BENCH_CATALOG, BENCH_SCHEMA);
  const expanded = statements.slice(-2); // DROP + CTAS orders_expanded: rebuilt after the copies
  if (!expanded[1]?.includes('orders_expanded'))
    throw new Error('demoStatements changed shape: orders_expanded is not last');
  const shift = (col: string) => `date_add('day', -24 * k, ${col})`;
  const copies =
    `INSERT INTO ${table('orders')} SELECT key, value, ${shift('timestamp_broker')}, ${shift('timestamp_producer')}, headers ` +
    `FROM ${table('orders')} CROSS JOIN UNNEST(sequence(1, ${ORDER_COPIES - 1})) AS c(k)`;
  for (const sql of [...statements.slice(0, -2), copies, ...expanded]) {
    await c.all(sql, { timeoutMs: 1_800_000 });
  }
  const rows: Record<string, number> = {};
  for (const t of Object.keys(EXPECTED_ROWS)) rows[t] = await count(c, t);
  for (const t of Object.keys(EXPECTED_ROWS)) {
    if (rows[t] !== EXPECTED_ROWS[t])
      throw new Error(`bench data: ${t} has ${rows[t]} rows, expected ${EXPECTED_ROWS[t]}`);
  }
  return { reused: false, seconds: (performance.now() - t0) / 1000, rows };
}
