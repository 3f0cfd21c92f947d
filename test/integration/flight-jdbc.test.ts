/**
 * The Arrow Flight SQL JDBC driver (Maven Central's `flight-sql-jdbc-driver`, as DBeaver and JDBC BI tools load it)
 * against the real gateway's Flight SQL entrance over the real Trino, in a Java program of its own
 * (test/jdbc/src/main/java/topicgate/FlightJdbc.java, built once into the cache dir): `DatabaseMetaData.getTables`
 * lists what the caller may read and nothing else, `getColumns` the columns of `GET /v1/topics/{topic}`; `executeQuery`
 * and a `PreparedStatement` give the REST Arrow output of the same read value for value (bigints beyond 2^53, decimals
 * with their scale, bytes that are not UTF-8, UTC timestamps, headers), ties and duplicates in the same order; a bearer
 * key and a user/password handshake read the same rows; SQL outside the subset is the driver's error carrying
 * INVALID_ARGUMENT and the TG_ code, and the gateway keeps serving.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { apiKeyHash } from '../../src/access/api-keys.js';
import { flightGateway, restArrow, type FlightGateway } from '../flight-gateway.js';
import { ensureJdbcJar, runJdbc, type JdbcResult } from '../jdbc/jdbc-program.js';

const run = randomBytes(4).toString('hex');
const KEY = `key-jdbc-${run}-000000000000000`;
const PRINCIPAL = `jdbc-${run}`;
const dir = mkdtempSync(join(tmpdir(), 'topicgate-jdbc-'));
let gw: FlightGateway;
let jdbcUrl: string;

/** An hour of the demo orders: ten-way ties, identical duplicates, null and non-UTF-8 keys, headers. */
const SINCE = '2026-11-01T00:00:00Z';
const UNTIL = '2026-11-01T01:00:00Z';
const WINDOW_SQL =
  "timestamp_broker >= TIMESTAMP '2026-11-01 00:00:00' AND timestamp_broker < TIMESTAMP '2026-11-01 01:00:00'";
const ORDERS_SQL = `SELECT * FROM orders WHERE ${WINDOW_SQL}`;

beforeAll(async () => {
  ensureJdbcJar();
  const file = join(dir, 'jdbc.yaml');
  writeFileSync(
    file,
    stringify({
      auth: { apiKeys: [{ principal: PRINCIPAL, sha256: apiKeyHash(KEY), roles: ['r'] }] },
      // s3_events is not granted: absent from getTables, as from GET /v1/topics.
      access: [{ roles: ['r'], topics: ['orders', 'orders_expanded', 'clicks'], actions: ['read'] }],
    }),
  );
  gw = await flightGateway('demo|kafka_topics', {
    TOPICGATE_CONFIG: file,
    TOPICGATE_CURSOR_SECRET: `jdbc-secret-${run}-0123456789abcdef0123`,
  });
  jdbcUrl = `jdbc:arrow-flight-sql://127.0.0.1:${gw.flightPort}/?useEncryption=false`;
}, 300_000);
afterAll(async () => {
  await gw?.close();
  rmSync(dir, { recursive: true, force: true });
});

const withToken = () => `${jdbcUrl}&token=${encodeURIComponent(KEY)}`;

/** The REST Arrow output of a GET read, as test/pyarrow/read_arrow.py prints it. */
const restOf = (path: string) => restArrow(`${gw.url}${path}`, { 'x-api-key': KEY }, dir);

function ok(r: JdbcResult | undefined): Required<Pick<JdbcResult, 'columns' | 'rows'>> {
  expect(r?.error, JSON.stringify(r?.error)).toBeUndefined();
  return { columns: r!.columns!, rows: r!.rows! };
}

describe('the Flight SQL JDBC driver', () => {
  it('getTables lists the granted topics and tables, and no other', async () => {
    const [tables] = await runJdbc(withToken(), [['tables', '%']]);
    const names = ok(tables)
      .rows.map((r) => String(r.TABLE_NAME))
      .sort();
    expect(names).toEqual(['clicks', 'orders', 'orders_expanded']);
    const types = Object.fromEntries(ok(tables).rows.map((r) => [r.TABLE_NAME, r.TABLE_TYPE]));
    expect(types).toMatchObject({ orders: 'TOPIC', orders_expanded: 'TABLE' });
    expect(new Set(ok(tables).rows.map((r) => r.TABLE_CAT))).toEqual(new Set(['topicgate']));
  });

  it('getColumns gives the columns GET /v1/topics/{topic} gives, with their JDBC types', async () => {
    const res = await fetch(`${gw.url}/v1/topics/orders`, { headers: { 'x-api-key': KEY } });
    const topic = (await res.json()) as { columns: { name: string }[] };
    const [columns] = await runJdbc(withToken(), [['columns', 'orders']]);
    const rows = ok(columns).rows.filter((r) => r.TABLE_NAME === 'orders');
    expect(rows.map((r) => r.COLUMN_NAME)).toEqual(topic.columns.map((c) => c.name));
    const type = Object.fromEntries(rows.map((r) => [r.COLUMN_NAME, r.TYPE_NAME]));
    expect(type).toMatchObject({ key: 'VARBINARY', timestamp_broker: 'TIMESTAMP_WITH_TIMEZONE', headers: 'ARRAY' });
  });

  it('executeQuery and a PreparedStatement give the REST Arrow rows, value for value, ties and duplicates in order', async () => {
    const rest = await restOf(`/v1/topics/orders/events?since=${SINCE}&until=${UNTIL}&limit=all&format=arrow`);
    expect(rest.rows.length).toBeGreaterThan(100);
    const [query, prepared] = await runJdbc(withToken(), [
      ['query', ORDERS_SQL],
      ['prepared', ORDERS_SQL],
    ]);
    expect(ok(query).columns.map((c) => c.name)).toEqual(rest.schema.map((c) => c.name));
    expect(ok(query).rows).toEqual(rest.rows);
    expect(ok(prepared).rows).toEqual(rest.rows);
    const type = Object.fromEntries(ok(query).columns.map((c) => [c.name, c.type]));
    expect(type).toMatchObject({ key: 'VARBINARY', timestamp_broker: 'TIMESTAMP_WITH_TIMEZONE', headers: 'ARRAY' });
  });

  it('bigints beyond 2^53 and decimals with their scale, as the REST Arrow output has them', async () => {
    const select = 'order_id,amount,trace_id,created_at,customer__address__country';
    const rest = await restOf(
      `/v1/topics/orders_expanded/events?select=${select}&order=order_id.asc&limit=200&format=arrow`,
    );
    const [query] = await runJdbc(withToken(), [
      ['query', `SELECT ${select.replaceAll(',', ', ')} FROM orders_expanded ORDER BY order_id LIMIT 200`],
    ]);
    expect(ok(query).rows).toEqual(rest.rows);
    expect(ok(query).rows.some((r) => BigInt(String(r.trace_id ?? 0)) > 2n ** 53n)).toBe(true);
    expect(ok(query).rows.some((r) => /^\d+\.\d\d$/.test(String(r.amount)))).toBe(true);
    expect(ok(query).columns.find((c) => c.name === 'amount')?.type).toBe('DECIMAL');
  });

  it('a user/password handshake (principal and API key) reads what the bearer key reads', async () => {
    const [byToken] = await runJdbc(withToken(), [['query', `${ORDERS_SQL} LIMIT 50`]]);
    const [byLogin] = await runJdbc(jdbcUrl, [['query', `${ORDERS_SQL} LIMIT 50`]], { user: PRINCIPAL, password: KEY });
    expect(ok(byLogin).rows).toHaveLength(50);
    expect(ok(byLogin).rows).toEqual(ok(byToken).rows);
  });

  it('a wrong password is UNAUTHENTICATED; SQL outside the subset is INVALID_ARGUMENT with its TG_ code', async () => {
    const [wrong] = await runJdbc(jdbcUrl, [['query', ORDERS_SQL]], { user: PRINCIPAL, password: `${KEY}x` });
    expect(wrong?.command).toBe('connect');
    expect(wrong?.error?.status).toBe('UNAUTHENTICATED');
    expect(wrong?.error?.message).not.toContain(KEY);
    const [drop, union, after] = await runJdbc(withToken(), [
      ['query', 'DROP TABLE orders'],
      ['query', 'SELECT key FROM orders UNION SELECT key FROM clicks'],
      ['query', `${ORDERS_SQL} LIMIT 3`],
    ]);
    for (const r of [drop, union]) {
      expect(r?.error?.status, JSON.stringify(r)).toBe('INVALID_ARGUMENT');
      expect(r?.error?.message).toMatch(/TG_BAD_SQL/);
    }
    expect(ok(after).rows).toHaveLength(3);
  });
});
