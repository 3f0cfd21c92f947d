/**
 * The SQL subset means what Trino's SQL means: each statement below is valid Trino SQL and in the subset, so it is
 * run twice, straight on the local Trino and through the gateway's Flight SQL entrance (ADBC's execute, the statement
 * parsed into the `/query` body and compiled by the gateway), and the rows must be the same values in the same order:
 * groups with NULL keys, every comparison, IN / NOT IN, LIKE with ESCAPE, BETWEEN, AND over OR, NOT, IS [NOT] NULL,
 * IS DISTINCT FROM NULL, bigints beyond 2^53, exact decimals, aggregates, DISTINCT, time buckets, ordinals and LIMIT.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { apiKeyHash } from '../../src/access/api-keys.js';
import { flightGateway, python, type FlightGateway } from '../flight-gateway.js';
import { sql } from '../helpers.js';

const run = randomBytes(4).toString('hex');
const KEY = `key-differential-${run}-0000000`;
const dir = mkdtempSync(join(tmpdir(), 'topicgate-statement-differential-'));
let gw: FlightGateway;

beforeAll(async () => {
  const file = join(dir, 'differential.yaml');
  writeFileSync(
    file,
    stringify({
      auth: { apiKeys: [{ principal: `differential-${run}`, sha256: apiKeyHash(KEY), roles: ['r'] }] },
      access: [{ roles: ['r'], topics: ['*'], actions: ['read'] }],
    }),
  );
  gw = await flightGateway('demo|kafka_topics', {
    TOPICGATE_CONFIG: file,
    TOPICGATE_CURSOR_SECRET: `differential-secret-${run}-0123456789ab`,
  });
}, 300_000);
afterAll(async () => {
  await gw?.close();
  rmSync(dir, { recursive: true, force: true });
});

const HOURS =
  "timestamp_broker >= TIMESTAMP '2026-11-01 00:00:00' AND timestamp_broker < TIMESTAMP '2026-11-01 12:00:00'";

const STATEMENTS: string[] = [
  'SELECT status, currency, count(*) AS n FROM orders_expanded GROUP BY status, currency ORDER BY status, currency',
  "SELECT status, count(*) AS n, sum(amount) AS total, avg(order_id) AS a, min(created_at) AS lo, max(created_at) AS hi, count(DISTINCT customer__address__country) AS countries FROM orders_expanded WHERE currency IN ('EUR') AND amount BETWEEN 10 AND 500 GROUP BY status ORDER BY n DESC, status",
  "SELECT order_id, trace_id, status, amount FROM orders_expanded WHERE status LIKE 'p%' AND NOT (amount > 100 OR customer__address__country IS NULL) ORDER BY order_id, trace_id LIMIT 50",
  'SELECT order_id, trace_id FROM orders_expanded WHERE trace_id >= 9007199254750000 AND trace_id <> 9007199254750001 ORDER BY trace_id DESC LIMIT 5',
  "SELECT count(*) AS n FROM orders_expanded WHERE status IS NULL OR currency IS DISTINCT FROM NULL AND status != 'paid'",
  "SELECT customer__address__country AS c, count(*) FROM orders_expanded WHERE created_at >= TIMESTAMP '2026-11-01 00:00:00' AND created_at < TIMESTAMP '2026-11-02 00:00:00' AND status NOT IN ('cancelled', 'refunded') GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 10",
  "SELECT order_id FROM orders_expanded WHERE status LIKE 'pa!%%' ESCAPE '!' OR currency = 'EUR' AND amount < 1.5 ORDER BY order_id LIMIT 20",
  'SELECT order_id, amount FROM orders_expanded WHERE amount = 0.99 OR amount = 500.91 ORDER BY order_id LIMIT 20',
  "SELECT count(*) FROM orders_expanded WHERE 5 < amount AND NOT NOT (status = 'paid') AND created_at <= TIMESTAMP '2026-11-02 00:00:00'",
  'SELECT DISTINCT currency FROM orders_expanded ORDER BY currency',
  `SELECT date_trunc('hour', timestamp_broker) AS h, count(*) AS n FROM orders WHERE ${HOURS} GROUP BY 1 ORDER BY 1`,
  `SELECT key, timestamp_broker FROM orders WHERE ${HOURS} AND key IS NOT NULL ORDER BY timestamp_broker DESC, key LIMIT 20`,
];

interface Table {
  schema: { name: string; type: string }[];
  rows: Record<string, unknown>[];
}

/** A Flight value as Trino's client protocol writes it: timestamps as text, bytes as base64, scalars as text. */
function asTrino(value: unknown, type: string): unknown {
  if (value === null) return null;
  if (type.startsWith('timestamp')) {
    const ms = Number(String(value).split(' ')[0]);
    return new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
  }
  if (type === 'binary') return Buffer.from(String(value), 'hex').toString('base64');
  return String(value);
}

describe('a statement of the subset gives the rows Trino gives for the same SQL', () => {
  it('every statement, value for value and in order', async () => {
    const out = await python<{ results: ({ ok: Table } | { error: unknown })[] }>('flight_sql.py', {
      uri: gw.flightUri,
      token: KEY,
      steps: STATEMENTS.map((s) => ({ do: 'query', sql: s })),
    });
    for (const [i, statement] of STATEMENTS.entries()) {
      const r = out.results[i]!;
      expect(r, statement).toHaveProperty('ok');
      const { schema, rows } = (r as { ok: Table }).ok;
      const flight = rows.map((row) => schema.map((f) => asTrino(row[f.name], f.type)));
      const trino = (await sql(statement)).map((row) => row.map((v) => (v === null ? null : String(v))));
      expect(flight, statement).toEqual(trino);
      expect(trino.length, statement).toBeGreaterThan(0);
    }
  }, 300_000);
});
