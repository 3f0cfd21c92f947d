/** Reads against the real Trino: exact results, lossless values, every format, aggregation, dedupe. */
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
const post = (url: string, payload: object) => app.inject({ method: 'POST', url, payload });

describe('filters give the same rows as the SQL they mean', () => {
  it.each([
    ['key=eq.order-1000100', `key = to_utf8('order-1000100')`],
    ['key=in.(order-1000100,order-1000101,"order,x")', `key IN (to_utf8('order-1000100'), to_utf8('order-1000101'))`],
    ['key=is.null', 'key IS NULL'],
    [
      'key=not.is.null&timestamp_broker=lt.2026-11-01T01:00:00Z',
      `key IS NOT NULL AND timestamp_broker < TIMESTAMP '2026-11-01 01:00:00'`,
    ],
    [
      'timestamp_broker=gte.2026-11-02T00:00:00Z&timestamp_broker=lt.2026-11-02T01:00:00Z',
      `timestamp_broker >= TIMESTAMP '2026-11-02 00:00:00' AND timestamp_broker < TIMESTAMP '2026-11-02 01:00:00'`,
    ],
    [
      'or=(key.eq.order-1000100,key.is.null)&until=2026-11-01T12:00:00Z',
      `(key = to_utf8('order-1000100') OR key IS NULL) AND timestamp_broker < TIMESTAMP '2026-11-01 12:00:00'`,
    ],
    ['key=eq.\\xff0000000000000001', `key = X'ff0000000000000001'`],
    [
      'value=like.*Zo*Müller*&since=2026-11-01T00:00:00Z&until=2026-11-01T06:00:00Z',
      `from_utf8(value) LIKE '%Zo%Müller%' AND timestamp_broker < TIMESTAMP '2026-11-01 06:00:00'`,
    ],
    [
      'since=2026-11-01T02:00:00%2B02:00&until=2026-11-01T01:00:00Z',
      `timestamp_broker >= TIMESTAMP '2026-11-01 00:00:00' AND timestamp_broker < TIMESTAMP '2026-11-01 01:00:00'`,
    ],
  ])('%s', async (params, where) => {
    const res = await get(`/v1/topics/orders/events?${params}&limit=10000&select=timestamp_broker`);
    expect(res.statusCode, res.body).toBe(200);
    const [[n]] = (await sql(`SELECT count(*) FROM orders WHERE ${where}`)) as [[number]];
    expect(n).toBeGreaterThan(0);
    expect(res.json().rows.length).toBe(n);
  });
});

describe('lossless and readable values', () => {
  it('non-UTF-8 keys and values come out as \\x hex, JSON values as JSON with exact big integers', async () => {
    const res = await get(
      '/v1/topics/orders/events?until=2026-11-01T00:40:00Z&select=key,value,timestamp_broker&limit=200',
    );
    const rows = res.json().rows as { key: unknown; value: unknown }[];
    expect(rows.some((r) => r.key === '\\xff0000000000000001')).toBe(true); // event 1: non-UTF-8 key
    expect(rows.some((r) => r.key === null)).toBe(true);
    expect(rows.some((r) => r.value === 'not json: order 3')).toBe(true);
    expect(rows.some((r) => typeof r.value === 'string' && r.value.startsWith('\\xc328'))).toBe(true); // event 5
    const raw = res.body;
    expect(raw).toContain('"trace_id":9007199254740993}');
  });

  it('BIGINT beyond 2^53 and decimals keep every digit in JSON, CSV and Arrow', async () => {
    const q =
      '/v1/topics/orders_expanded/events?order_id=eq.1000000&select=order_id,amount,trace_id,created_at&order=trace_id';
    const json = await get(q);
    expect(json.body).toContain('"trace_id":9007199254740993');
    expect(json.body).toContain('"amount":0.99');
    expect(json.body).toContain('"created_at":"2026-11-01T00:00:00.000Z"');
    const csv = await get(`${q}&format=csv`);
    expect(csv.body.split('\r\n')[1]).toBe('1000000,0.99,9007199254740993,2026-11-01T00:00:00.000Z');
    const arrow = await get(`${q}&format=arrow`);
    expect(arrow.headers['content-type']).toBe('application/vnd.apache.arrow.stream');
    const table = tableFromIPC(arrow.rawPayload);
    expect(table.getChild('trace_id')!.get(0)).toBe(9007199254740993n);
    expect(String(table.schema.fields.find((f) => f.name === 'amount')!.type)).toMatch(/Decimal/);
  });

  it('Arrow carries varbinary as exact bytes', async () => {
    const res = await get(
      '/v1/topics/orders/events?until=2026-11-01T00:40:00Z&select=key,value&format=arrow&limit=200',
    );
    const table = tableFromIPC(res.rawPayload);
    const keys = table.getChild('key')!.toArray() as (Uint8Array | null)[];
    const expected = (
      await sql(
        `SELECT key FROM orders WHERE timestamp_broker < TIMESTAMP '2026-11-01 00:40:00' ORDER BY timestamp_broker, key, value, timestamp_producer, headers LIMIT 200`,
      )
    ).map((r) => r[0]);
    expect(keys.map((k) => (k ? Buffer.from(k).toString('base64') : null))).toEqual(expected);
  });
});

describe('formats', () => {
  const q = '/v1/topics/clicks/events?until=2026-11-01T00:00:01Z&select=key,timestamp_broker';
  it.each([
    ['json', 'application/json; charset=utf-8'],
    ['ndjson', 'application/x-ndjson; charset=utf-8'],
    ['csv', 'text/csv; charset=utf-8; header=present'],
    ['arrow', 'application/vnd.apache.arrow.stream'],
    ['parquet', 'application/vnd.apache.parquet'],
  ])('format=%s', async (format, type) => {
    const res = await get(`${q}&format=${format}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe(type);
    expect(res.headers['x-trino-query-id']).toMatch(/^\d{8}_\d{6}_\d{5}_\w+$/);
  });

  it('Accept negotiates; format overrides; unknown -> 406', async () => {
    const nd = await app.inject({ url: q, headers: { accept: 'application/x-ndjson' } });
    expect(nd.headers['content-type']).toContain('application/x-ndjson');
    const over = await app.inject({ url: `${q}&format=csv`, headers: { accept: 'application/x-ndjson' } });
    expect(over.headers['content-type']).toContain('text/csv');
    for (const bad of [{ url: `${q}&format=xml` }, { url: q, headers: { accept: 'image/png' } }]) {
      const res = await app.inject(bad);
      expect(res.statusCode).toBe(406);
      expect(res.json().error.code).toBe('TG_NOT_ACCEPTABLE');
      expect(res.json().error.message).toMatch(/parquet/); // the list of formats comes from the encoder registry
    }
    const parquet = await app.inject({ url: q, headers: { accept: 'application/vnd.apache.parquet' } });
    expect(parquet.headers['content-type']).toBe('application/vnd.apache.parquet');
  });

  it('all four formats carry the same rows', async () => {
    const json = (await get(`${q}&format=json`)).json().rows as { key: string; timestamp_broker: string }[];
    const nd = (await get(`${q}&format=ndjson`)).body
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    const csv = (await get(`${q}&format=csv`)).body
      .split('\r\n')
      .filter(Boolean)
      .slice(1)
      .map((l) => l.split(','));
    const arrow = tableFromIPC((await get(`${q}&format=arrow`)).rawPayload);
    expect(json.length).toBe(15);
    expect(nd).toEqual(json);
    expect(csv).toEqual(json.map((r) => [r.key, r.timestamp_broker]));
    expect(arrow.numRows).toBe(15);
    expect(Buffer.from(arrow.getChild('key')!.get(0) as Uint8Array).toString()).toBe(json[0]!.key);
  });
});

describe('aggregation', () => {
  it('count, sum, avg, min, max, count_distinct grouped and ordered', async () => {
    const res = await post('/v1/topics/orders_expanded/query', {
      select: [
        'status',
        { fn: 'count', as: 'n' },
        { fn: 'sum', field: 'amount', as: 'total' },
        { fn: 'count_distinct', field: 'order_id', as: 'orders' },
        { fn: 'max', field: 'trace_id', as: 'maxTrace' },
      ],
      groupBy: ['status'],
      order: [{ field: 'n', dir: 'desc' }, { field: 'status' }],
    });
    expect(res.statusCode, res.body).toBe(200);
    const expected = await sql(
      `SELECT status, count(*), CAST(sum(amount) AS varchar), count(DISTINCT order_id), max(trace_id) FROM orders_expanded GROUP BY status ORDER BY 2 DESC, 1`,
    );
    const rows = res.json().rows as Record<string, unknown>[];
    expect(rows.map((r) => [r.status, r.n, r.orders])).toEqual(expected.map((r) => [r[0], r[1], r[3]]));
    // Decimal sums keep their scale (JSON.parse would drop a trailing zero): read the raw body.
    for (const r of expected) expect(res.body).toContain(`"total":${r[2]}`);
    expect(res.body).toContain(`"maxTrace":${expected[0]![4]}`);
  });

  it('time buckets, latest/earliest and approx_percentile', async () => {
    const res = await post('/v1/topics/clicks/query', {
      select: [
        { fn: 'count', as: 'n' },
        { fn: 'latest', field: 'key', as: 'last_key' },
        { fn: 'approx_percentile', field: 'timestamp_broker', p: 0.5, as: 'x' },
      ],
      groupBy: [{ bucket: '10m' }],
    });
    expect(res.statusCode).toBe(400); // percentile of a timestamp is refused, naming the field
    expect(res.json().error.message).toContain('timestamp_broker');
    const ok = await post('/v1/topics/clicks/query', {
      select: [
        { fn: 'count', as: 'n' },
        { fn: 'earliest', field: 'key', as: 'first_key' },
      ],
      groupBy: [{ bucket: '10m' }],
      order: [{ field: 'bucket' }],
      until: '2026-11-01T00:30:00Z',
    });
    const expected = await sql(
      `SELECT date_trunc('minute', timestamp_broker) - (minute(timestamp_broker) % 10) * INTERVAL '1' MINUTE AS b, count(*), from_utf8(min_by(key, timestamp_broker))
       FROM clicks WHERE timestamp_broker < TIMESTAMP '2026-11-01 00:30:00' GROUP BY 1 ORDER BY 1`,
    );
    expect(ok.json().rows).toEqual(
      expected.map(([b, n, k]) => ({ bucket: `${String(b).replace(' ', 'T')}Z`, n, first_key: k })),
    );
    expect(expected.length).toBe(2); // 10000 clicks span 11 minutes
  });

  it('dedupe keeps the latest event per key', async () => {
    const res = await post('/v1/topics/orders/query', {
      select: ['key', 'timestamp_broker'],
      where: { field: 'key', op: 'in', value: ['order-1000100', 'order-1000101'] },
      dedupe: { by: ['key'], keep: 'latest' },
      order: [{ field: 'key' }],
    });
    expect(res.statusCode, res.body).toBe(200);
    const expected = await sql(
      `SELECT from_utf8(key), max(timestamp_broker) FROM orders WHERE key IN (to_utf8('order-1000100'), to_utf8('order-1000101')) GROUP BY 1 ORDER BY 1`,
    );
    expect(
      res
        .json()
        .rows.map((r: { key: string; timestamp_broker: string }) => [
          r.key,
          r.timestamp_broker.replace('T', ' ').replace('Z', ''),
        ]),
    ).toEqual(expected);
  });
});

describe('explain', () => {
  it('returns SQL, the pushdown split and the Trino plan', async () => {
    const res = await get(
      '/v1/topics/orders/events?explain=true&since=2026-11-01T00:00:00Z&until=2026-11-02T00:00:00Z&key=eq.order-1000001&value=like.*paid*',
    );
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.sql).toContain(`"key" = X'6f726465722d31303030303031'`);
    expect(body.pushdown.pushed).toEqual([
      `"timestamp_broker" >= TIMESTAMP '2026-11-01 00:00:00.000'`,
      `"timestamp_broker" < TIMESTAMP '2026-11-02 00:00:00.000'`,
      `"key" = X'6f726465722d31303030303031'`,
    ]);
    expect(body.pushdown.residual).toEqual([`from_utf8("value") LIKE '%paid%'`]);
    expect(body.plan).toContain('Fragment 0');
  });
});
