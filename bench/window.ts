/**
 * The windows every client of the race reads: for n rows, from the topic's first broker time up to (excluding)
 * the broker time of its n-th row (0-based) in broker-time order, so the window holds at most n rows (fewer when
 * that row ties with earlier ones); the count is taken, not assumed.
 */
import { HttpTrino } from '../src/trino/http-trino.js';
import { quoteIdent } from '../src/query/sql/sql-text.js';

export interface Window {
  /** ISO-8601 instants (`...Z`), `since` inclusive, `until` exclusive. */
  since: string;
  until: string;
  rows: number;
}

const iso = (trinoTs: string) => `${trinoTs.replace(' ', 'T')}Z`;

export async function windowOf(
  trinoUrl: string,
  catalog: string,
  schema: string,
  topic: string,
  n: number,
): Promise<Window> {
  const c = new HttpTrino({ server: trinoUrl, user: 'topicgate-bench' });
  const t = `${quoteIdent(catalog)}.${quoteIdent(schema)}.${quoteIdent(topic)}`;
  const first = await c.all(`SELECT CAST(min(timestamp_broker) AS varchar), count(*) FROM ${t}`);
  // The n-th row from whichever end is nearer: a top-n of 10^7 rows takes Trino minutes, one of a few rows does not.
  const total = Number(first.rows[0]![1]);
  const fromEnd = total - 1 - n;
  const end =
    fromEnd < 0
      ? { rows: [] }
      : await c.all(
          fromEnd < n
            ? `SELECT CAST(timestamp_broker AS varchar) FROM ${t} ORDER BY timestamp_broker DESC OFFSET ${fromEnd} LIMIT 1`
            : `SELECT CAST(timestamp_broker AS varchar) FROM ${t} ORDER BY timestamp_broker OFFSET ${n} LIMIT 1`,
        );
  const since = String(first.rows[0]![0]);
  const until = end.rows[0] ? String(end.rows[0][0]) : undefined;
  if (!until) throw new Error(`${topic} has fewer than ${n + 1} rows`);
  const counted = await c.all(
    `SELECT count(*) FROM ${t} WHERE timestamp_broker >= TIMESTAMP '${since}' AND timestamp_broker < TIMESTAMP '${until}'`,
  );
  return { since: iso(since), until: iso(until), rows: Number(counted.rows[0]![0]) };
}
