/**
 * Blob expansion on the demo `orders` topic: declared fields give the same answers as the native expansion
 * table `orders_expanded` (built from the same payloads), through filters, groups, sums, dedupe and every
 * format, including the hard cases (not JSON, not UTF-8, missing and mistyped fields, big integers, cents).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { tableFromIPC } from 'apache-arrow';
import { stringify } from 'yaml';
import { sql, testApp, testConfig } from '../helpers.js';
import { ConfigError } from '../../src/config/config.js';

const dir = mkdtempSync(join(tmpdir(), 'topicgate-expand-'));
const EXPAND = {
  order_id: { path: '$.order_id', type: 'bigint' },
  status: { path: '$.status', type: 'varchar' },
  amount: { path: '$.amount', type: 'decimal(12,2)' },
  country: { path: '$.customer.address.country', type: 'varchar' },
  customer_name: { path: '$["customer"]["name"]', type: 'varchar' },
  created: { path: '$.created_at', type: 'timestamp(3)' },
  trace_id: { path: '$.trace_id', type: 'bigint' },
  items: { path: '$.items', type: 'array(row(sku varchar, qty integer, price double))' },
  first_sku: { path: '$.items[0].sku', type: 'varchar' },
  // Key names with dots, quotes, spaces and unicode are data, never SQL: absent here, so NULL.
  odd: { path: `$["we.ird 'key\\" ü"]`, type: 'varchar' },
};
function writeConfig(name: string, topics: object): string {
  const file = join(dir, name);
  writeFileSync(file, stringify({ topics }));
  return file;
}

let app: FastifyInstance;
const WINDOW = 'since=2026-11-01T00:00:00Z&until=2026-11-04T00:00:00Z';
const BODY_WINDOW = { since: '2026-11-01T00:00:00Z', until: '2026-11-04T00:00:00Z' };

beforeAll(async () => {
  app = await testApp({ TOPICGATE_CONFIG: writeConfig('topics.yaml', { orders: { expand: EXPAND } }) });
});
afterAll(async () => {
  await app.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('declared expansion', () => {
  it('the topic description lists expanded fields and the native expansion table', async () => {
    const res = await app.inject('/v1/topics/orders');
    const body = res.json();
    expect(
      body.columns
        .filter((c: { origin: string }) => c.origin === 'expansion')
        .map((c: { name: string; type: string; path: string }) => [c.name, c.type, c.path]),
    ).toEqual(Object.entries(EXPAND).map(([n, f]) => [n, f.type.replace(/,\s*/g, ','), f.path]));
    expect(body.expansionTable).toMatchObject({ name: 'orders_expanded', found: true, joinable: false });
    expect(body.expansionTable.note).toContain('has no key or timestamp_broker');
    expect((await app.inject('/v1/topics/orders_expanded')).json().expansionOf).toBe('orders');
  });

  it('filters on expanded fields match the expansion table', async () => {
    const res = await app.inject(
      `/v1/topics/orders/events?${WINDOW}&amount=gte.400&country=in.(DE,FR)&select=order_id,amount&limit=10000`,
    );
    expect(res.statusCode, res.body).toBe(200);
    const [[n]] = (await sql(
      `SELECT count(*) FROM orders_expanded WHERE amount >= 400 AND customer__address__country IN ('DE', 'FR')`,
    )) as [[number]];
    expect(n).toBeGreaterThan(100);
    expect(res.json().rows.length).toBe(n);
  });

  it('group, count and exact decimal sums match the expansion table', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/v1/topics/orders/query',
      payload: {
        ...BODY_WINDOW,
        select: [
          'status',
          { fn: 'count', as: 'n' },
          { fn: 'sum', field: 'amount', as: 'total' },
          { fn: 'max', field: 'trace_id', as: 'top' },
        ],
        groupBy: ['status'],
        order: [{ field: 'status', nulls: 'first' }],
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    const expected = await sql(
      `SELECT status, count(*), CAST(sum(amount) AS varchar), max(trace_id) FROM orders_expanded GROUP BY status ORDER BY status NULLS FIRST`,
    );
    expect(res.json().rows.map((r: { status: string; n: number }) => [r.status, r.n])).toEqual(
      expected.map((r) => [r[0], r[1]]),
    );
    for (const r of expected) expect(res.body).toContain(`"total":${r[2] ?? 'null'},"top":${r[3] ?? 'null'}`);
  });

  it('hard cases give NULL fields, never a failed query', async () => {
    const res = await app.inject(
      `/v1/topics/orders/events?${WINDOW}&select=value,order_id,amount,status,created,items&limit=120`,
    );
    const rows = res.json().rows as Record<string, unknown>[];
    const notJson = rows.find((r) => r.value === 'not json: order 3')!;
    expect([notJson.order_id, notJson.amount, notJson.status, notJson.created, notJson.items]).toEqual([
      null,
      null,
      null,
      null,
      null,
    ]);
    const notUtf8 = rows.find((r) => typeof r.value === 'string' && r.value.startsWith('\\xc328'))!;
    expect([notUtf8.order_id, notUtf8.amount]).toEqual([null, null]);
    const missing = rows.find((r) => typeof r.value === 'object' && r.value !== null && !('amount' in r.value))!;
    expect(missing.amount).toBeNull();
    expect(missing.order_id).not.toBeNull();
    const mistyped = rows.find(
      (r) => typeof r.value === 'object' && (r.value as { amount?: unknown }).amount === 'twelve',
    )!;
    expect([mistyped.amount, mistyped.order_id]).toEqual([null, null]);
  });

  it('big integers, cents, timestamps, arrays of rows: exact in JSON, CSV, NDJSON and Arrow', async () => {
    const q = `/v1/topics/orders/events?${WINDOW}&order_id=eq.1000000&select=order_id,amount,created,trace_id,items,odd&order=trace_id`;
    const json = await app.inject(q);
    expect(json.body).toContain(
      '"order_id":1000000,"amount":0.99,"created":"2026-11-01T00:00:00.000Z","trace_id":9007199254740993,"items":[{"sku":"SKU-0","qty":1,"price":9.99},{"sku":"SKU-0","qty":1,"price":19.5}],"odd":null',
    );
    const nd = await app.inject(`${q}&format=ndjson`);
    expect(nd.body.split('\n')[0]).toContain('"trace_id":9007199254740993');
    const csv = await app.inject(`${q}&format=csv`);
    expect(csv.body.split('\r\n')[1]).toMatch(/^1000000,0\.99,2026-11-01T00:00:00\.000Z,9007199254740993,/);
    const arrow = tableFromIPC((await app.inject(`${q}&format=arrow`)).rawPayload);
    expect(arrow.getChild('trace_id')!.get(0)).toBe(9007199254740993n);
    expect(arrow.getChild('order_id')!.get(0)).toBe(1000000n);
    expect(String(arrow.schema.fields.find((f) => f.name === 'amount')!.type)).toMatch(/Decimal/);
  });

  it('dedupe by an expanded field keeps one event per order', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/v1/topics/orders/query',
      payload: {
        ...BODY_WINDOW,
        select: ['order_id'],
        dedupe: { by: ['order_id'], keep: 'latest' },
        where: { field: 'order_id', op: 'lt', value: 1000100 },
        limit: 1000,
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    const [[n]] = (await sql(`SELECT count(DISTINCT order_id) FROM orders_expanded WHERE order_id < 1000100`)) as [
      [number],
    ];
    expect(res.json().rows.length).toBe(n);
  });

  it('explain marks expanded-field filters residual and the time window pushed', async () => {
    const body = (await app.inject(`/v1/topics/orders/events?${WINDOW}&status=eq.paid&explain=true`)).json();
    expect(body.pushdown.residual).toHaveLength(1);
    expect(body.pushdown.residual[0]).toContain(`json_extract_scalar`);
    expect(body.pushdown.pushed).toHaveLength(2);
  });
});

describe('guardrail: residual-only filters need a bounded window', () => {
  it('refuses without since, naming the bound to add; explain says so too', async () => {
    const res = await app.inject('/v1/topics/orders/events?status=eq.paid');
    expect(res.statusCode).toBe(400);
    expect(res.json().error.code).toBe('TG_TIME_BOUND_REQUIRED');
    expect(res.json().error.message).toContain('add since=');
    const explain = (await app.inject('/v1/topics/orders/events?status=eq.paid&explain=true')).json();
    expect(explain.refused.code).toBe('TG_TIME_BOUND_REQUIRED');
  });

  it('refuses a window wider than the limit; allows a narrow one, a pushed filter, or a topic that allows full scans', async () => {
    expect(
      (
        await app.inject(
          '/v1/topics/orders/events?status=eq.paid&since=2026-10-01T00:00:00Z&until=2026-11-04T00:00:00Z',
        )
      ).statusCode,
    ).toBe(400);
    expect((await app.inject(`/v1/topics/orders/events?status=eq.paid&${WINDOW}`)).statusCode).toBe(200);
    expect((await app.inject('/v1/topics/orders/events?status=eq.paid&key=eq.order-1000001')).statusCode).toBe(200);
    const open = await testApp({
      TOPICGATE_CONFIG: writeConfig('open.yaml', { orders: { expand: EXPAND, allowFullScan: true } }),
    });
    expect((await open.inject('/v1/topics/orders/events?status=eq.paid')).statusCode).toBe(200);
    await open.close();
    const narrow = await testApp({
      TOPICGATE_CONFIG: writeConfig('narrow.yaml', { orders: { expand: EXPAND } }),
      TOPICGATE_RESIDUAL_SCAN_MAX_WINDOW: '1h',
    });
    expect((await narrow.inject(`/v1/topics/orders/events?status=eq.paid&${WINDOW}`)).statusCode).toBe(400);
    await narrow.close();
  });
});

describe('bad expansion declarations stop start-up, naming each', () => {
  it.each([
    [{ 'bad name': { path: '$.a', type: 'varchar' } }, 'expand.bad name: the name must match'],
    [{ a: { path: 'a.b', type: 'varchar' } }, 'expand.a.path'],
    [{ a: { path: '$.a', type: 'varchar); DROP TABLE x; --' } }, 'expand.a.type'],
  ])('%j', (expand, message) => {
    const file = writeConfig('bad.yaml', { orders: { expand } });
    expect(() => testConfig({ TOPICGATE_CONFIG: file })).toThrow(ConfigError);
    expect(() => testConfig({ TOPICGATE_CONFIG: file })).toThrow(message);
  });
});

describe('inference', () => {
  it.each([
    [
      'orders',
      ['order_id', 'bigint'],
      ['amount', 'double'],
      ['created_at', 'timestamp(3)'],
      ['trace_id', 'bigint'],
      ['customer__address__country', 'varchar'],
    ],
    ['s3_events', ['Records', 'array(json)']],
  ])('%s: the proposed expand block, pasted into the config, works', async (topic, ...expectations) => {
    const res = await app.inject(`/v1/topics/${topic}/schema/infer?${WINDOW}&sample=3000`);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.sampled).toBe(topic === 'orders' ? 3000 : 1000);
    for (const [name, type] of expectations as [string, string][]) expect(body.expand[name]?.type, name).toBe(type);
    if (topic === 'orders') {
      expect(body.malformed.notJson + body.malformed.notUtf8).toBeGreaterThan(20);
      expect(body.fields.find((f: { name: string }) => f.name === 'amount').types.varchar).toBeGreaterThan(0); // "twelve"
    }
    expect(body.arrow_schema.length).toBe(Object.keys(body.expand).length);
    const pasted = await testApp({
      TOPICGATE_CONFIG: writeConfig(`${topic}-inferred.yaml`, { [topic]: { expand: body.expand } }),
    });
    const names = Object.keys(body.expand);
    const rows = await pasted.inject(`/v1/topics/${topic}/events?${WINDOW}&select=${names.join(',')}&limit=50`);
    expect(rows.statusCode, rows.body).toBe(200);
    const first = rows.json().rows as Record<string, unknown>[];
    for (const [name] of expectations as [string, string][])
      expect(
        first.some((r) => r[name] !== null),
        name,
      ).toBe(true);
    await pasted.close();
  });

  it('caps the sample and the window', async () => {
    expect((await app.inject(`/v1/topics/orders/schema/infer?${WINDOW}&sample=1000000`)).json().error.code).toBe(
      'TG_TOO_EXPENSIVE',
    );
    expect(
      (await app.inject('/v1/topics/orders/schema/infer?since=2026-01-01T00:00:00Z&until=2026-11-04T00:00:00Z')).json()
        .error.code,
    ).toBe('TG_TOO_EXPENSIVE');
    expect((await app.inject('/v1/topics/orders_expanded/schema/infer')).statusCode).toBe(400);
  });
});
