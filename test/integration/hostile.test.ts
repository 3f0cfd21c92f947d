/**
 * A hostile corpus through every place a request puts text: topic ids, column names, values, select, order,
 * cursors, time bounds, POST bodies. Nothing may give a 5xx, reach a table outside the served schemas, or change
 * any table; every refusal is a 4xx with a stable TG_ code.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { sql, testApp } from '../helpers.js';
import { HOSTILE } from '../cases/hostile-corpus.js';

let app: FastifyInstance;
let before: unknown[][];
const counts = () =>
  sql(
    'SELECT (SELECT count(*) FROM orders), (SELECT count(*) FROM clicks), (SELECT count(*) FROM s3_events), (SELECT count(*) FROM orders_expanded)',
  );

beforeAll(async () => {
  app = await testApp();
  before = await counts();
});
afterAll(async () => {
  expect(await counts()).toEqual(before); // nothing changed any table
  await app.close();
});

function assert4xxOr200(res: { statusCode: number; body: string }, what: string) {
  expect(res.statusCode, `${what}: ${res.body}`).toBeLessThan(500);
  if (res.statusCode >= 400) expect(JSON.parse(res.body).error.code, what).toMatch(/^TG_[A-Z_]+$/);
}

/**
 * A page read in ascending broker time runs as time slices, up to three Trino queries for a page that finds nothing
 * (read/sliced-result.ts, tested in paging and slices): the corpus reads in descending order where it sets no order
 * of its own, one query a read, so each accepted text still reaches Trino, in a third of the queries.
 */
function oneQuery(url: string): string {
  return url.includes('/events?') && !url.includes('order=') ? `${url}&order=timestamp_broker.desc` : url;
}
function oneQueryBody(body: Record<string, unknown>): Record<string, unknown> {
  const aggregates = Array.isArray(body.select) && body.select.some((s) => typeof s === 'object');
  if (body.order || body.groupBy || aggregates) return body;
  return { ...body, order: [{ field: 'timestamp_broker', dir: 'desc' }] };
}

/** Runs `fn` over `items` a few at a time (the requests that reach Trino overlap); each answer is checked. */
async function some<T>(items: readonly T[], fn: (item: T) => Promise<void>, width = 6): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: width }, worker));
}

describe('hostile corpus', () => {
  // A URL cannot carry a lone surrogate; it still goes through the POST bodies below.
  const IN_URLS = HOSTILE.filter((s) => s.isWellFormed());

  it.each(IN_URLS)('as a topic id: %j', async (s) => {
    for (const suffix of ['', '/events', '/schema/infer']) {
      const res = await app.inject(`/v1/topics/${encodeURIComponent(s)}${suffix}`);
      // '.' and '..' are path segments: the URL normalizes to another route (400 for an empty topic id).
      expect([400, 404], `${s}${suffix}: ${res.body}`).toContain(res.statusCode);
      expect(res.json().error.code).toMatch(/^TG_(TOPIC_NOT_FOUND|NOT_FOUND|BAD_REQUEST)$/);
    }
  });

  it.each(HOSTILE)('as a column name, a value, select, order, times, cursor: %j', async (s) => {
    const e = s.isWellFormed() ? encodeURIComponent(s) : '%ED%A0%80'; // the surrogate's (invalid) UTF-8 bytes
    const urls = [
      `/v1/topics/orders/events?${e}=eq.1`,
      `/v1/topics/orders/events?key=eq.${e}`,
      `/v1/topics/orders/events?key=in.(${e},"${e}")`,
      `/v1/topics/orders/events?key=like.*${e}*`,
      `/v1/topics/orders/events?value=ilike.${e}`,
      `/v1/topics/orders/events?timestamp_broker=gt.${e}`,
      `/v1/topics/orders/events?or=(key.eq.${e},${e}.eq.1)`,
      `/v1/topics/orders/events?select=${e}`,
      `/v1/topics/orders/events?select=key,${e}`,
      `/v1/topics/orders/events?order=${e}`,
      `/v1/topics/orders/events?order=key.${e}`,
      `/v1/topics/orders/events?since=${e}`,
      `/v1/topics/orders/events?until=${e}`,
      `/v1/topics/orders/events?limit=${e}`,
      `/v1/topics/orders/events?cursor=${e}`,
      `/v1/topics/orders/events?format=${e}`,
      `/v1/topics/orders_expanded/events?amount=eq.${e}`,
      `/v1/topics/orders_expanded/events?order_id=gt.${e}`,
      `/v1/topics/orders/schema/infer?since=${e}`,
      `/v1/topics/orders/schema/infer?until=${e}`,
      // JSON arrow paths and PostgREST's operators, inside a window the guardrail accepts, so they reach Trino.
      ...[
        `value->>${e}=eq.1`,
        `value->${e}->>x=eq.${e}`,
        `value->>"${e}"=eq.${e}`,
        `value->"${e}"->0->>"${e}"=in.(${e},1)`,
        `value->>x=gt.${e}`,
        `${e}->>a=eq.1`,
        `key->>${e}=like.*${e}*`,
        `value->>x=match.${e}`,
        `value->>x=imatch(any).{${e},"${e}"}`,
        `value->x=cs.{${e}}`,
        `headers=ov.{${e},"${e}"}`,
        `key=eq(all).{${e}}`,
        `value->>x=is.${e}`,
        `value->>x=${e}.1`,
        `select=a:value->>${e}`,
        `select=value->${e},value->>"${e}"`,
        `select=${e}:value->>a`,
        `order=value->>${e}.desc`,
        `order=value->>"${e}"`,
        `or=(value->>${e}.eq.${e},value->"${e}".is.null)`,
      ].map((q) => `/v1/topics/orders/events?${q}&since=2026-11-01T00:00:00Z&until=2026-11-01T01:00:00Z`),
    ];
    await some(urls, async (url) => assert4xxOr200(await app.inject(`${oneQuery(url)}&limit=5`), url));
    const bodies = [
      { where: { field: s, op: 'eq', value: 1 } },
      { where: { field: 'key', op: 'eq', value: s } },
      { where: { field: 'key', op: s, value: 'x' } },
      { select: [s] },
      { select: [{ fn: 'count', as: s }] },
      { select: [{ fn: 'max', field: s }] },
      { groupBy: [s], select: [{ fn: 'count' }] },
      { groupBy: [{ bucket: s }], select: [{ fn: 'count' }] },
      { order: [{ field: s }] },
      { dedupe: { by: [s] } },
      { since: s },
      { cursor: s },
      ...[
        { where: { field: `value->>${s}`, op: 'eq', value: s } },
        { where: { field: `value->"${s}"->>x`, op: 'in', value: [s, 1] } },
        { where: { field: 'value->>x', op: 'match', value: s } },
        { where: { field: 'value->>x', op: 'like(any)', value: [s] } },
        { where: { field: 'value->x', op: 'ov', value: [s] } },
        { select: [`value->>${s}`, `a:value->"${s}"`] },
        { select: [`value->>${s}`, { fn: 'count' }], groupBy: [`value->>${s}`] },
        {
          select: [
            { fn: 'sum', field: `value->>${s}` },
            { fn: 'max', field: `value->"${s}"` },
          ],
        },
        { order: [{ field: `value->>${s}` }] },
      ].map((b) => ({ ...b, since: '2026-11-01T00:00:00Z', until: '2026-11-01T01:00:00Z' })),
    ];
    await some(bodies, async (payload) => {
      const res = await app.inject({
        method: 'POST',
        url: '/v1/topics/orders/query',
        payload: { ...oneQueryBody(payload), limit: 5 },
      });
      assert4xxOr200(res, JSON.stringify(payload));
    });
    const cursor = { topic: 'orders', start: s };
    assert4xxOr200(await app.inject({ method: 'PUT', url: '/v1/cursors/hostile', payload: cursor }), 'start');
    assert4xxOr200(
      await app.inject({ method: 'PUT', url: '/v1/cursors/hostile-s', payload: { topic: 'orders', settle: s } }),
      'settle',
    );
    assert4xxOr200(
      await app.inject({ method: 'PUT', url: '/v1/cursors/hostile-ok', payload: { topic: 'orders' } }),
      'create',
    );
    const seek = { method: 'POST' as const, url: '/v1/cursors/hostile-ok/seek', payload: { to: s } };
    assert4xxOr200(await app.inject(seek), 'seek');
  });

  it('malformed bodies and parameters are 4xx with a code naming the culprit', async () => {
    const cases: [object, number, string][] = [
      [
        {
          method: 'POST',
          url: '/v1/topics/orders/query',
          payload: 'not json',
          headers: { 'content-type': 'application/json' },
        },
        400,
        'TG_BAD_REQUEST',
      ],
      [
        {
          method: 'POST',
          url: '/v1/topics/orders/query',
          payload: '[]',
          headers: { 'content-type': 'application/json' },
        },
        400,
        'TG_BAD_REQUEST',
      ],
      [
        { method: 'POST', url: '/v1/topics/orders/query', payload: 'a=b', headers: { 'content-type': 'text/plain' } },
        415,
        'TG_UNSUPPORTED_MEDIA_TYPE',
      ],
      [{ method: 'POST', url: '/v1/topics/orders/query', payload: { limit: -1 } }, 400, 'TG_BAD_REQUEST'],
      [{ method: 'POST', url: '/v1/topics/orders/query', payload: { bogus: 1 } }, 400, 'TG_BAD_REQUEST'],
      [
        { method: 'POST', url: '/v1/topics/orders/query', payload: { select: [{ fn: 'median', field: 'key' }] } },
        400,
        'TG_BAD_REQUEST',
      ],
      [
        { method: 'POST', url: '/v1/topics/orders/query', payload: { where: { field: 'key', op: 'in', value: 'x' } } },
        400,
        'TG_BAD_VALUE',
      ],
      [{ url: '/v1/topics/orders/events?limit=1&limit=2' }, 400, 'TG_BAD_REQUEST'],
      [{ url: '/v1/topics/orders_expanded/events?order_id=eq.99999999999999999999' }, 400, 'TG_BAD_VALUE'],
      [{ url: '/v1/topics/orders_expanded/events?amount=eq.1.234' }, 400, 'TG_BAD_VALUE'],
      [{ url: '/v1/topics/orders/events?since=2026-02-31T00:00:00Z' }, 400, 'TG_BAD_TIME'],
      [{ url: '/v1/topics/orders/events?since=2026-11-02T00:00:00Z&until=2026-11-01T00:00:00Z' }, 400, 'TG_BAD_TIME'],
      [{ url: `/v1/topics/orders/events?or=(${'or('.repeat(20)}key.eq.1${')'.repeat(21)}` }, 400, 'TG_BAD_REQUEST'],
      [{ url: `/v1/topics/orders/events?or=(${'('.repeat(20)}key.eq.1${')'.repeat(20)})` }, 400, 'TG_UNKNOWN_COLUMN'],
    ];
    for (const [req, status, code] of cases) {
      const res = await app.inject(req as never);
      expect(res.statusCode, `${JSON.stringify(req)} -> ${res.body}`).toBe(status);
      expect(res.json().error.code).toBe(code);
    }
  });
});
