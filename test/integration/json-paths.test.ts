/**
 * Ad-hoc JSON arrow paths against the real Trino: every demo topic's hard cases (not JSON, not UTF-8,
 * missing and mistyped fields, JSON null, unicode, big integers, arrays) in every format, paging exact under ties,
 * groups and aggregates over paths, explain's residual label, the guardrail and the caps.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { tableFromIPC } from 'apache-arrow';
import { sql, testApp } from '../helpers.js';

let app: FastifyInstance;
beforeAll(async () => {
  app = await testApp();
});
afterAll(() => app.close());

const get = (url: string) => app.inject(url);
const ORDERS_SELECT =
  'key,status:value->>status,amount:value->amount,country:value->customer->address->>country,sku:value->items->0->>sku,customer:value->customer';
/** The first 40 minutes of orders hold every hard case (HARD_CASES in scripts/demo-data.ts). */
const ORDERS_URL = `/v1/topics/orders/events?select=${ORDERS_SELECT}&until=2026-11-01T00:40:00Z&limit=200`;
const J = 'CASE WHEN to_utf8(from_utf8(value)) = value THEN from_utf8(value) END';
const TOTAL = 'ORDER BY timestamp_broker, key, value, timestamp_producer, headers';

const PATHS_WINDOW_SQL = `timestamp_broker >= TIMESTAMP '2026-11-01 00:00:00' AND timestamp_broker < TIMESTAMP '2026-11-01 04:00:00'`;
const PAID_OR_PENDING = `json_extract_scalar(from_utf8(value), '$.status') IN ('paid', 'pending')`;

/**
 * The counts the tests compare with, by hand-written SQL in one query (each a scalar subquery of its own, as each test
 * wrote it): JSON-null refs among the first hour of clicks; paid or pending orders of four hours, and their distinct
 * (key, broker time, producer time); refunded orders of three hours.
 */
let sqlCounts: Promise<{ clickNulls: number; paidOrPending: number; distinct: number; refunded: number }> | undefined;
const expectedCounts = () =>
  (sqlCounts ??= sql(
    `SELECT (SELECT count(*) FROM clicks WHERE timestamp_broker >= TIMESTAMP '2026-11-01 00:00:00' AND timestamp_broker < TIMESTAMP '2026-11-01 01:00:00' AND json_extract_scalar(from_utf8(value), '$.ref') IS NULL),
            (SELECT count(*) FROM orders WHERE ${PATHS_WINDOW_SQL} AND ${PAID_OR_PENDING}),
            (SELECT count(*) FROM (SELECT key, timestamp_broker, timestamp_producer FROM orders WHERE ${PATHS_WINDOW_SQL} AND ${PAID_OR_PENDING} GROUP BY 1, 2, 3)),
            (SELECT count(*) FROM orders WHERE timestamp_broker >= TIMESTAMP '2026-11-01 00:00:00' AND timestamp_broker < TIMESTAMP '2026-11-01 03:00:00' AND json_extract_scalar(from_utf8(value), '$.status') = 'refunded')`,
  ).then(([row]) => {
    const [clickNulls, paidOrPending, distinct, refunded] = row!.map(Number) as [number, number, number, number];
    return { clickNulls, paidOrPending, distinct, refunded };
  }));

type OrderRow = { key: unknown; status: unknown; amount: unknown; country: unknown; sku: unknown; customer: unknown };

describe('orders: the hard cases through select with aliases', () => {
  let rows: OrderRow[];
  let expected: OrderRow[];
  beforeAll(async () => {
    const res = await get(ORDERS_URL);
    expect(res.statusCode, res.body).toBe(200);
    rows = res.json().rows;
    const raw = await sql(
      `SELECT json_extract_scalar(${J}, '$.status'), json_format(json_extract(${J}, '$.amount')),
              json_extract_scalar(${J}, '$.customer.address.country'), json_extract_scalar(${J}, '$.items[0].sku'),
              json_format(json_extract(${J}, '$.customer'))
       FROM orders WHERE timestamp_broker < TIMESTAMP '2026-11-01 00:40:00' ${TOTAL} LIMIT 200`,
    );
    expected = raw.map((r) => ({
      key: undefined,
      status: r[0],
      amount: r[1] === null ? null : JSON.parse(r[1] as string),
      country: r[2],
      sku: r[3],
      customer: r[4] === null ? null : JSON.parse(r[4] as string),
    }));
  });

  it('every row equals the hand-written extraction (text for ->>, JSON for ->)', () => {
    expect(rows.length).toBe(expected.length);
    expect(rows.map(({ key: _k, ...r }) => ({ key: undefined, ...r }))).toEqual(expected);
  });

  it('not JSON, not UTF-8: every path is NULL; missing fields NULL; a mistyped field keeps its JSON type', () => {
    const notJson = rows.find((r) => r.key === 'order-1000001' && r.status === null)!;
    expect(notJson).toMatchObject({ amount: null, country: null, sku: null, customer: null });
    expect(rows.filter((r) => r.status === null).length).toBeGreaterThanOrEqual(2); // i = 3 (not JSON), i = 5 (not UTF-8)
    expect(rows.some((r) => r.status !== null && r.amount === null && r.country === null)).toBe(true); // i = 11
    expect(rows.some((r) => r.amount === 'twelve')).toBe(true); // i = 13: a JSON string where numbers are
    expect(rows.some((r) => r.country === 'DE')).toBe(true);
  });

  it('NDJSON, CSV and Arrow carry the same values', async () => {
    const nd = (await get(`${ORDERS_URL}&format=ndjson`)).body
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(nd).toEqual(rows);
    const csv = (await get(`${ORDERS_URL}&format=csv`)).body.split('\r\n').filter(Boolean);
    expect(csv[0]).toBe('key,status,amount,country,sku,customer');
    expect(csv.length - 1).toBe(rows.length);
    const arrow = tableFromIPC((await get(`${ORDERS_URL}&format=arrow`)).rawPayload);
    expect(arrow.numRows).toBe(rows.length);
    expect(arrow.getChild('status')!.toArray()).toEqual(rows.map((r) => r.status));
    expect(arrow.getChild('country')!.toArray()).toEqual(rows.map((r) => r.country));
    const customers = arrow.getChild('customer')!.toArray() as (string | null)[];
    expect(customers.map((c) => (c === null ? null : JSON.parse(c)))).toEqual(rows.map((r) => r.customer));
  });
});

describe('clicks and s3_events', () => {
  it('clicks: ->> of JSON null is NULL, -> of JSON null is JSON null (not SQL NULL), as in PostgreSQL', async () => {
    const window = 'since=2026-11-01T00:00:00Z&until=2026-11-01T01:00:00Z&limit=10000&select=key';
    const text = (await get(`/v1/topics/clicks/events?value->>ref=is.null&${window}`)).json().rows.length;
    const json = (await get(`/v1/topics/clicks/events?value->ref=is.null&${window}`)).json().rows.length;
    const nulls = (await expectedCounts()).clickNulls;
    expect(nulls).toBeGreaterThan(0);
    expect([text, json]).toEqual([nulls, 0]);
    const res = await get(`/v1/topics/clicks/events?select=ref:value->ref,ms:value->ms&until=2026-11-01T00:00:01Z`);
    const rows = res.json().rows as { ref: unknown; ms: unknown }[];
    expect(rows.some((r) => r.ref === null) && rows.some((r) => r.ref === 'search')).toBe(true);
    expect(rows.every((r) => typeof r.ms === 'number')).toBe(true);
  });

  it('s3_events: big integers keep every digit, unicode text, arrays by index, a missing unicode key', async () => {
    const o = 'value->Records->0->s3->object';
    const res = await get(
      `/v1/topics/s3_events/events?select=size:${o}->>size,size_json:${o}->size,key:${o}->>key,name:value->Records->0->>eventName,nope:value->>"été"&${o}->>size=like.180143985094*&since=2026-11-01T00:00:00Z&until=2026-11-02T00:00:00Z&limit=1000`,
    );
    expect(res.statusCode, res.body).toBe(200);
    const rows = res.json().rows as Record<string, unknown>[];
    const want = await sql(
      `SELECT json_extract_scalar(from_utf8(value), '$.Records[0].s3.object.size'), json_extract_scalar(from_utf8(value), '$.Records[0].s3.object.key')
       FROM s3_events WHERE json_extract_scalar(from_utf8(value), '$.Records[0].s3.object.size') LIKE '180143985094%' ORDER BY timestamp_broker`,
    );
    expect(want.length).toBeGreaterThan(0);
    expect(rows.map((r) => [r.size, r.key])).toEqual(want);
    expect(res.body).toContain(`"size_json":${want[0]![0]}`); // the JSON number, every digit
    expect(rows.every((r) => String(r.key).includes('été') && r.nope === null)).toBe(true);
    expect(rows.every((r) => String(r.name).startsWith('Object'))).toBe(true);
  });
});

describe('every topic, every format: the same path values', () => {
  const CASES: [string, string][] = [
    ['clicks', 'select=ref:value->>ref,user:value->>user,ms:value->ms&until=2026-11-01T00:00:05Z'],
    [
      's3_events',
      'select=size:value->Records->0->s3->object->>size,key:value->Records->0->s3->object->>key,nope:value->>"été"&until=2026-11-01T01:00:00Z',
    ],
    [
      'orders',
      'select=status:value->>status,sku:value->items->1->>sku,nope:value->items->9->>sku&until=2026-11-01T00:40:00Z',
    ],
  ];
  it.each(CASES)('%s', async (topic, params) => {
    const url = `/v1/topics/${topic}/events?${params}&limit=200`;
    const json = (await get(url)).json() as { columns: { name: string }[]; rows: Record<string, unknown>[] };
    const names = json.columns.map((c) => c.name);
    const text = (v: unknown) => (v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v));
    expect(json.rows.length).toBeGreaterThan(0);
    const nd = (await get(`${url}&format=ndjson`)).body
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(nd).toEqual(json.rows);
    const csv = (await get(`${url}&format=csv`)).body.split('\r\n').filter(Boolean);
    expect(csv[0]).toBe(names.join(','));
    // Cells without commas or quotes read back as written (the ones with them are quoted: checked by count).
    expect(csv.length - 1).toBe(json.rows.length);
    const first = names[0]!;
    expect(csv.slice(1).map((l) => l.split(',')[0])).toEqual(json.rows.map((r) => text(r[first])));
    const arrow = tableFromIPC((await get(`${url}&format=arrow`)).rawPayload);
    for (const n of names) {
      const col = arrow.getChild(n)!.toArray() as unknown[];
      expect(col.map((v) => (v === null ? null : String(v)))).toEqual(
        json.rows.map((r) => (r[n] === null ? null : text(r[n]))),
      );
    }
  });
});

describe('paging over path filters and path order is exact under ties', () => {
  async function follow(url: string): Promise<unknown[]> {
    const out: unknown[] = [];
    let next: string | null = url;
    for (let i = 0; next && i < 200; i++) {
      const res = await get(next);
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json();
      out.push(...body.rows);
      next = body.next;
    }
    expect(next).toBeNull();
    return out;
  }
  const window = 'since=2026-11-01T00:00:00Z&until=2026-11-01T04:00:00Z';

  it.each([
    ['broker-time order (anchored pages)', ''],
    ['ordered by paths (offset pages)', '&order=value->customer->address->>country.desc,value->>status'],
  ])('%s', async (_what, order) => {
    const rows = await follow(
      `/v1/topics/orders/events?value->>status=in.(paid,pending)&select=key,timestamp_broker,timestamp_producer,status:value->>status&${window}&limit=7${order}`,
    );
    const { paidOrPending, distinct } = await expectedCounts();
    expect(rows.length).toBe(paidOrPending);
    // Every (key, times) the SQL counts comes back as often as it exists: ties and duplicates exactly once each.
    const seen = new Map<string, number>();
    for (const r of rows as Record<string, string>[]) {
      const k = `${r.key}|${r.timestamp_broker}|${r.timestamp_producer}`;
      seen.set(k, (seen.get(k) ?? 0) + 1);
    }
    expect(seen.size).toBe(distinct);
  });
});

describe('paging a path query in every format (Link: rel="next")', () => {
  const q =
    '/v1/topics/orders/events?value->>status=eq.refunded&select=key,timestamp_broker,status:value->>status,amount:value->amount' +
    '&since=2026-11-01T00:00:00Z&until=2026-11-01T03:00:00Z&limit=9';

  async function pages(format: string): Promise<{ bodies: Buffer[]; count: number }> {
    const bodies: Buffer[] = [];
    let next: string | null = `${q}&format=${format}`;
    let count = 0;
    for (let i = 0; next && i < 100; i++) {
      const res = await get(next);
      expect(res.statusCode, res.body).toBe(200);
      bodies.push(res.rawPayload);
      if (format === 'arrow') count += tableFromIPC(res.rawPayload).numRows;
      else
        count += res.body.split(format === 'csv' ? '\r\n' : '\n').filter(Boolean).length - (format === 'csv' ? 1 : 0);
      const link = /<([^>]+)>; rel="next"/.exec(String(res.headers.link ?? ''));
      next = link ? link[1]! : null;
    }
    expect(next).toBeNull();
    return { bodies, count };
  }

  /** The JSON pages: the same requests for every format's comparison, so followed once for the three. */
  let jsonPages: Promise<unknown[]> | undefined;
  async function followJson(): Promise<unknown[]> {
    const json: unknown[] = [];
    let next: string | null = q;
    while (next) {
      const body: { rows: unknown[]; next: string | null } = (await get(next)).json();
      json.push(...body.rows);
      next = body.next;
    }
    return json;
  }

  it.each(['ndjson', 'csv', 'arrow'])('%s pages hold every row once, as the JSON pages do', async (format) => {
    const json = await (jsonPages ??= followJson());
    const n = (await expectedCounts()).refunded;
    expect(json.length).toBe(n);
    const { bodies, count } = await pages(format);
    expect(bodies.length).toBeGreaterThan(1);
    expect(count).toBe(n);
    if (format === 'ndjson') {
      const rows = bodies.flatMap((b) =>
        b
          .toString()
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l)),
      );
      expect(rows).toEqual(json);
    }
  });
});

describe('groups and aggregates over paths (POST)', () => {
  it('count, sum, count_distinct, min, max and latest per status equal the SQL', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/v1/topics/orders/query',
      payload: {
        select: [
          'value->>status',
          { fn: 'count', as: 'n' },
          { fn: 'sum', field: 'value->>amount', as: 'total' },
          { fn: 'count_distinct', field: 'value->customer->address->>country', as: 'countries' },
          { fn: 'min', field: 'value->items->0->>sku', as: 'first_sku' },
          { fn: 'max', field: 'value->>created_at', as: 'last_created' },
        ],
        groupBy: ['value->>status'],
        order: [{ field: 'status', nulls: 'first' }],
        since: '2026-11-01T00:00:00Z',
        until: '2026-11-02T00:00:00Z',
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    const S = (p: string) => `json_extract_scalar(${J}, '${p}')`;
    const want = await sql(
      `SELECT ${S('$.status')}, count(*), round(sum(try_cast(${S('$.amount')} AS double)), 2), count(DISTINCT ${S('$.customer.address.country')}),
              min(${S('$.items[0].sku')}), max(${S('$.created_at')})
       FROM orders WHERE timestamp_broker >= TIMESTAMP '2026-11-01 00:00:00' AND timestamp_broker < TIMESTAMP '2026-11-02 00:00:00'
       GROUP BY 1 ORDER BY 1 NULLS FIRST`,
    );
    const rows = res.json().rows as Record<string, unknown>[];
    expect(
      rows.map((r) => [
        r.status,
        r.n,
        r.total === null ? null : Math.round((r.total as number) * 100) / 100,
        r.countries,
        r.first_sku,
        r.last_created,
      ]),
    ).toEqual(want);
  });
});

describe('a named cursor filtered and selected by paths', () => {
  it('reads batches of the matching events only, with the aliased field', async () => {
    const put = await app.inject({
      method: 'PUT',
      url: '/v1/cursors/paths-paid',
      payload: {
        topic: 'orders',
        start: '2026-11-01T00:00:00Z',
        filter: { field: 'value->>status', op: 'eq', value: 'paid' },
        select: ['key', 'status:value->>status', 'country:value->customer->address->>country'],
      },
    });
    expect(put.statusCode, put.body).toBe(201);
    const read = await app.inject({ method: 'POST', url: '/v1/cursors/paths-paid/read?limit=20' });
    expect(read.statusCode, read.body).toBe(200);
    const rows = read.json().rows as { status: string; country: string | null }[];
    expect(rows.length).toBe(20);
    expect(rows.every((r) => r.status === 'paid')).toBe(true);
    expect(rows.some((r) => r.country !== null)).toBe(true);
    await app.inject({ method: 'DELETE', url: '/v1/cursors/paths-paid' });
  });
});

describe('explain, the guardrail and the caps', () => {
  it('a path filter is residual in explain; without since the guardrail refuses it', async () => {
    const ex = await get(
      '/v1/topics/orders/events?value->>status=eq.paid&key=like.*1*&since=2026-11-01T00:00:00Z&until=2026-11-01T01:00:00Z&explain=true',
    );
    expect(ex.statusCode, ex.body).toBe(200);
    const { pushdown } = ex.json();
    expect(pushdown.residual.some((r: string) => r.includes(`'$["status"]'`))).toBe(true);
    expect(pushdown.pushed.every((p: string) => !p.includes('json_extract'))).toBe(true);
    const refused = await get('/v1/topics/orders/events?value->>status=eq.paid');
    expect([refused.statusCode, refused.json().error.code]).toEqual([400, 'TG_TIME_BOUND_REQUIRED']);
  });

  it.each([
    [`value${'->a'.repeat(17)}=eq.x`, 'a JSON path may have at most 16 steps'],
    [`value->>${'a'.repeat(600)}=eq.x`, 'a column reference may have at most 512 characters'],
    ['value->-1=eq.x', 'negative array indexes have no Trino counterpart here'],
    ['timestamp_broker->>a=eq.x', 'holds no JSON text'],
    ['select=key::text', 'casts (::) have no counterpart here'],
  ])('%s -> 400 naming the cap', async (params, message) => {
    const res = await get(`/v1/topics/orders/events?${params}&since=-1h`);
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().error.code).toBe('TG_BAD_REQUEST');
    expect(res.json().error.message).toContain(message);
  });
});
