/**
 * Decoded Avro fields as columns against the real Trino and Schema Registry: `payments_avro`
 * filtered, sorted, projected and aggregated by fields of its decoded value. The expected answers come from the
 * whole window decoded in one response and filtered, sorted and summed here, in the test.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { stringify } from 'yaml';
import { tableFromIPC } from 'apache-arrow';
import { buildApp } from '../../src/server/app.js';
import { apiKeyHash } from '../../src/access/api-keys.js';
import { parseLosslessJson } from '../../src/core/lossless-json.js';
import { registerDemoSchemas } from '../../scripts/demo-avro.js';
import { testApp, testConfig } from '../helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'topicgate-avro-fields-'));
const registryUrl = inject('registryUrl');
const TOPICS = { payments_avro: { key: { format: 'avro' }, value: { format: 'avro' } } };
const BASE = Date.UTC(2026, 10, 1);
const EVENTS = 400;
const WINDOW = `since=${new Date(BASE).toISOString()}&until=${new Date(BASE + EVENTS * 30_000).toISOString()}`;
const URL_ = '/v1/topics/payments_avro/events';

type Row = Record<string, unknown> & { value: Record<string, unknown> | null };
let app: FastifyInstance;
/** Every event of the window, decoded, in broker-time order. */
let all: Row[];

function file(name: string, doc: object): string {
  const f = join(dir, name);
  writeFileSync(f, stringify(doc));
  return f;
}

async function ndjson(url: string, a: FastifyInstance = app): Promise<Row[]> {
  const res = await a.inject(url);
  expect(res.statusCode, res.body).toBe(200);
  expect(res.body.endsWith('\n')).toBe(true);
  return res.body
    .split('\n')
    .filter(Boolean)
    .map((l) => parseLosslessJson(l) as Row);
}

/** Every page of a GET read, following `next`, as JSON bodies. */
async function pages(url: string): Promise<{ rows: Row[]; count: number }> {
  const rows: Row[] = [];
  let next: string | null = url;
  let count = 0;
  while (next) {
    const res = await app.inject(next);
    expect(res.statusCode, res.body).toBe(200);
    const body = parseLosslessJson(res.body) as { rows: Row[]; next: string | null; complete: boolean };
    expect(body.complete).toBe(true);
    rows.push(...body.rows);
    next = body.next;
    count++;
  }
  return { rows, count };
}

const cents = (v: unknown) => Math.round(Number(v) * 100);

beforeAll(async () => {
  await registerDemoSchemas(registryUrl);
  app = await testApp({
    TOPICGATE_CONFIG: file('a.yaml', { schemaRegistry: { url: registryUrl }, topics: TOPICS }),
    TOPICGATE_GATEWAY_MAX_ROWS: '1000',
  });
  all = await ndjson(`${URL_}?${WINDOW}&limit=all&format=ndjson`);
  expect(all).toHaveLength(EVENTS);
});
afterAll(async () => {
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('filters on decoded fields', () => {
  it('pages of kept rows, followed to the end, are exactly the matching events in order', async () => {
    const want = all.filter(
      (r) => r.value && cents(r.value.amount) >= 20_000 && (r.value.customer as Row).country === 'DE',
    );
    expect(want.length).toBeGreaterThan(10);
    const got = await pages(`${URL_}?${WINDOW}&value.amount=gte.200.00&value->customer->country=eq.DE&limit=7`);
    expect(got.rows).toEqual(want);
    expect(got.count).toBe(Math.ceil(want.length / 7));
  });

  it('OR across a decoded field and a table column, NOT, and a missing value (unframed) kept out', async () => {
    const third = new Date(BASE + 90_000).toISOString();
    const want = all.filter((r) => (r.value && !(cents(r.value.amount) > 0)) || r.timestamp_broker === third);
    const q = `or=(value->amount.not.gt.0,timestamp_broker.eq.${new Date(BASE + 90_000).toISOString()})`;
    const rows = await ndjson(`${URL_}?${WINDOW}&${q}&limit=all&format=ndjson`);
    expect(rows).toEqual(want);
    expect(rows.some((r) => r.value === null)).toBe(false);
  });

  it('select shows decoded fields by name (arrow paths by their last key), in every text format', async () => {
    const q = `${URL_}?${WINDOW}&select=timestamp_broker,value.payment_id,value->customer,value.status&value.status=eq.REFUNDED&limit=5`;
    const rows = await ndjson(`${q}&format=ndjson`);
    const want = all.filter((r) => r.value?.status === 'REFUNDED').slice(0, 5);
    expect(rows).toEqual(
      want.map((r) => ({
        timestamp_broker: r.timestamp_broker,
        'value.payment_id': r.value!.payment_id,
        customer: r.value!.customer,
        'value.status': 'REFUNDED',
      })),
    );
    const csv = await app.inject(`${q}&format=csv`);
    expect(csv.statusCode).toBe(200);
    expect(csv.body.split('\r\n')[0]).toBe(
      'timestamp_broker,value.payment_id,customer.id,customer.country,value.status',
    );
    expect(csv.body).toContain(`,${String(want[0]!.value!.payment_id)},`);
  });

  it('Arrow keeps the decoded types (Decimal, Int64 past 2^53)', async () => {
    const res = await app.inject(
      `${URL_}?${WINDOW}&select=value.payment_id,value.amount&value.amount=lt.0&limit=3&format=arrow`,
    );
    expect(res.statusCode).toBe(200);
    const table = tableFromIPC(res.rawPayload);
    expect(String(table.schema.fields[0]!.type)).toBe('Int64');
    expect(String(table.schema.fields[1]!.type)).toMatch(/^Decimal/);
    const want = all.filter((r) => r.value && cents(r.value.amount) < 0).slice(0, 3);
    expect(Array.from(table.getChildAt(0)!.toArray(), String)).toEqual(want.map((r) => String(r.value!.payment_id)));
  });

  it('explain lists decoded filters as gateway; the SQL never names them', async () => {
    const res = await app.inject(`${URL_}?${WINDOW}&value.amount=gte.200.00&explain=true`);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json() as { sql: string; pushdown: { pushed: string[]; gateway: string[] } };
    expect(body.pushdown.gateway).toEqual([`"value.amount" >= DECIMAL '200.00'`]);
    expect(body.pushdown.pushed.join(' ')).toContain('timestamp_broker');
    expect(body.sql).not.toContain('amount');
  });
});

describe('sorting and aggregating decoded fields', () => {
  it('order by a decoded field: pages are offsets into one stable sort (ties in broker-time order)', async () => {
    const want = all
      .filter((r) => r.value)
      .map((r, i) => ({ r, i }))
      .sort((a, b) => cents(b.r.value!.amount) - cents(a.r.value!.amount) || a.i - b.i)
      .map(({ r }) => ({ 'value.customer.country': (r.value!.customer as Row).country, amount: r.value!.amount }));
    const got = await pages(
      `${URL_}?${WINDOW}&select=value.customer.country,value->amount&order=value->amount.desc.nullslast&value.payment_id=is.not_null&limit=150`,
    );
    expect(got.rows).toEqual(want);
  });

  it('group by a decoded field with exact sums, counts and averages (POST)', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/v1/topics/payments_avro/query',
      payload: {
        select: [
          'value.customer.country',
          { fn: 'count', as: 'n' },
          { fn: 'sum', field: 'value.amount', as: 'total' },
          { fn: 'max', field: 'value.payment_id', as: 'last_id' },
        ],
        groupBy: ['value.customer.country'],
        order: [{ field: 'value.customer.country' }],
        since: new Date(BASE).toISOString(),
        until: new Date(BASE + EVENTS * 30_000).toISOString(),
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    const rows = (parseLosslessJson(res.body) as { rows: Row[] }).rows;
    const groups = new Map<string | null, Row[]>();
    for (const r of all) {
      const c = r.value ? ((r.value.customer as Row).country as string) : null;
      groups.set(c, [...(groups.get(c) ?? []), r]);
    }
    const keys = [...groups.keys()].sort((a, b) => (a === null ? 1 : b === null ? -1 : a < b ? -1 : 1));
    expect(rows.map((r) => r['value.customer.country'])).toEqual(keys);
    for (const row of rows) {
      const rs = groups.get(row['value.customer.country'] as string | null)!;
      const decoded = rs.filter((r) => r.value);
      expect(row.n).toBe(rs.length);
      if (!decoded.length) continue;
      expect(cents(row.total)).toBe(decoded.reduce((n, r) => n + cents(r.value!.amount), 0));
      // biome-ignore lint/complexity/useMathMinMax: BigInt values (Math.max takes numbers only)
      const top = decoded.map((r) => BigInt(String(r.value!.payment_id))).reduce((a, b) => (b > a ? b : a));
      expect(String(row.last_id)).toBe(String(top));
    }
  });

  it('a sort that would hold more rows than the cap is a 422 naming it; without since the guardrail refuses', async () => {
    const wide = `since=${new Date(BASE).toISOString()}&until=${new Date(BASE + 2000 * 30_000).toISOString()}`;
    const res = await app.inject(`${URL_}?${wide}&order=value->amount`);
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json().error.message).toContain('TOPICGATE_GATEWAY_MAX_ROWS');
    const open = await app.inject(`${URL_}?order=value->amount`);
    expect(open.statusCode).toBe(400);
    expect(open.json().error.code).toBe('TG_TIME_BOUND_REQUIRED');
  });
});

describe('row policies on an Avro key', () => {
  it('a policy naming the key matches the stored frames (pushed, not widened)', async () => {
    const KEY = 'key-pay-000000000000000000000000000';
    const f = file('rows.yaml', {
      schemaRegistry: { url: registryUrl },
      topics: TOPICS,
      auth: { apiKeys: [{ principal: 'p7', sha256: apiKeyHash(KEY), roles: ['seven'] }] },
      access: [{ roles: ['seven'], topics: ['payments_avro'], actions: ['read', 'explain'] }],
      rowPolicies: { default: 'allow', payments_avro: [{ roles: ['seven'], filter: 'key=in.(pay-7,pay-8)' }] },
    });
    const secured = await buildApp(testConfig({ TOPICGATE_CONFIG: f }), { logger: false });
    try {
      const res = await secured.inject({
        url: `${URL_}?${WINDOW}&format=ndjson&value.amount=gt.-1000000`,
        headers: { authorization: `Bearer ${KEY}` },
      });
      expect(res.statusCode, res.body).toBe(200);
      const rows = res.body
        .split('\n')
        .filter(Boolean)
        .map((l) => parseLosslessJson(l) as Row);
      expect(rows.map((r) => r.key)).toEqual(['pay-8']); // event 7 has an unknown schema id: no amount to compare
      const all7 = await secured.inject({
        url: `${URL_}?${WINDOW}&format=ndjson`,
        headers: { authorization: `Bearer ${KEY}` },
      });
      expect(
        all7.body
          .split('\n')
          .filter(Boolean)
          .map((l) => (JSON.parse(l) as Row).key),
      ).toEqual(['pay-7', 'pay-8']);
    } finally {
      await secured.close();
    }
  });
});
