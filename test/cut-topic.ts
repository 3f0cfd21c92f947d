/**
 * A topic whose reads fail mid-stream in Trino itself, for tests of cut responses: the view
 * `vast."cut|kafka_topics".orders` is the demo orders, except that computing `value` for an event from
 * CUT_POISON_FROM on divides by zero. `cutReadPath` reads a two-day window as a bulk read in two slices
 * (parallel=2): the first slice's rows (the first day) are written, then the second slice's query fails
 * (DIVISION_BY_ZERO), after the body has started, so the response is cut, in every format.
 */
import { HttpTrino } from '../src/trino/http-trino.js';

export const CUT_SCHEMA = 'cut|kafka_topics';
export const CUT_SINCE = '2026-11-01T00:00:00Z';
export const CUT_UNTIL = '2026-11-03T00:00:00Z';
const CUT_POISON_FROM = '2026-11-02 00:00:00';
/** The topic of a cut Parquet read (the demo gateway reads `orders`). */
export const CUT_PARQUET_TOPIC = 'orders_x32';

/** Creates (or replaces) the poisoned view beside the demo topics; idempotent, safe to run concurrently. */
export async function ensureCutTopic(trinoUrl: string): Promise<void> {
  const trino = new HttpTrino({ server: trinoUrl, user: 'test' });
  await trino.all(`CREATE SCHEMA IF NOT EXISTS vast."${CUT_SCHEMA}"`);
  // Not a constant, so the planner cannot fold it: it fails only when an event of the second day is read.
  const value =
    `CASE WHEN timestamp_broker >= TIMESTAMP '${CUT_POISON_FROM}' ` +
    `THEN to_utf8(CAST(1 / (CAST(to_unixtime(timestamp_broker) AS bigint) * 0) AS varchar)) ELSE value END AS value`;
  const columns = `key, ${value}, timestamp_broker, timestamp_producer, headers`;
  await trino.all(
    `CREATE OR REPLACE VIEW vast."${CUT_SCHEMA}".orders AS SELECT ${columns} FROM vast."demo|kafka_topics".orders`,
  );
  // Parquet sends its first bytes with the first full row group (8 MiB encoded, or 131,072 rows): each event 32 times makes the first day (138,528 events)
  // large enough that one leaves before the failure.
  await trino.all(
    `CREATE OR REPLACE VIEW vast."${CUT_SCHEMA}".${CUT_PARQUET_TOPIC} AS SELECT ${columns} ` +
      `FROM vast."demo|kafka_topics".orders CROSS JOIN UNNEST(sequence(1, 32))`,
  );
}

/** The same two-day bulk read, on a gateway serving CUT_SCHEMA (cut) or the demo schema (complete). */
export function windowReadPath(format: string, topic = 'orders'): string {
  return `/v1/topics/${topic}/events?since=${CUT_SINCE}&until=${CUT_UNTIL}&limit=all&parallel=2&format=${format}`;
}

/** The read that is cut, on a gateway serving CUT_SCHEMA. */
export function cutReadPath(format: string): string {
  return windowReadPath(format, format === 'parquet' ? CUT_PARQUET_TOPIC : 'orders');
}
