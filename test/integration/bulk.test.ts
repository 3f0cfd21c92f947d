/**
 * Bulk reads (API.md "Bulk reads"): `limit=all` on a closed window streams every row of it in one
 * response, in order, and with `parallel=N` the window's slices run at once and are still written in order:
 * exactly the rows paging returns, ties and identical duplicates included. `order=none` may interleave slices:
 * the same rows as a multiset.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { tableFromIPC } from 'apache-arrow';
import { sql, testApp } from '../helpers.js';

let app: FastifyInstance;
beforeAll(async () => {
  app = await testApp({ TOPICGATE_MAX_LIMIT: '1000' });
});
afterAll(() => app.close());

// About 8,000 orders with ten-way ties and identical duplicates; more than the 1,000-row maximum of a page.
const WINDOW = 'since=2026-11-01T00:00:00Z&until=2026-11-02T20:00:00Z';

async function page(url: string): Promise<{ rows: unknown[]; next: string | null }> {
  const res = await app.inject(url);
  expect(res.statusCode, res.body).toBe(200);
  const body = res.json() as { rows: unknown[]; next: string | null; complete: boolean };
  expect(body.complete).toBe(true);
  return body;
}

async function paged(query: string): Promise<unknown[]> {
  const rows: unknown[] = [];
  let url: string | null = `/v1/topics/orders/events?${query}&limit=1000`;
  while (url) {
    const p = await page(url);
    rows.push(...p.rows);
    url = p.next;
  }
  return rows;
}

const canon = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).sort();

describe('limit=all', () => {
  let expected: unknown[];
  beforeAll(async () => {
    expected = await paged(WINDOW);
    const [[n]] = (await sql(
      `SELECT count(*) FROM orders WHERE timestamp_broker >= TIMESTAMP '2026-11-01 00:00:00' AND timestamp_broker < TIMESTAMP '2026-11-02 20:00:00'`,
    )) as [[number]];
    expect(expected.length).toBe(Number(n));
    expect(expected.length).toBeGreaterThan(5000);
  });

  it.each(['', '&parallel=1', '&parallel=2', '&parallel=4'])(
    'in one response%s: exactly the paged rows, in order',
    async (parallel) => {
      const body = await page(`/v1/topics/orders/events?${WINDOW}&limit=all${parallel}`);
      expect(body.next).toBeNull();
      expect(body.rows).toEqual(expected);
    },
  );

  it('order=none with parallel=3: the same rows, as a multiset', async () => {
    const body = await page(`/v1/topics/orders/events?${WINDOW}&limit=all&parallel=3&order=none`);
    expect(canon(body.rows)).toEqual(canon(expected));
  });

  it('NDJSON and Arrow carry the same rows; no next link', async () => {
    const nd = await app.inject(`/v1/topics/orders/events?${WINDOW}&limit=all&parallel=2&format=ndjson`);
    expect(nd.headers.link).toBeUndefined();
    const lines = nd.body.split('\n');
    expect(lines.at(-1)).toBe('');
    expect(
      lines
        .slice(0, -1)
        .filter(Boolean)
        .map((l) => JSON.parse(l)),
    ).toEqual(expected);
    const arrow = await app.inject(`/v1/topics/orders/events?${WINDOW}&limit=all&parallel=2&format=arrow`);
    expect(tableFromIPC(arrow.rawPayload).numRows).toBe(expected.length);
  });

  it('the POST form takes "limit": "all" and "parallel"', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/v1/topics/orders/query',
      payload: { since: '2026-11-01T00:00:00Z', until: '2026-11-02T20:00:00Z', limit: 'all', parallel: 2 },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().rows).toEqual(expected);
  });

  it.each([
    [`limit=all`, 400, 'TG_BAD_REQUEST', 'until'],
    [`${WINDOW}&parallel=2`, 400, 'TG_BAD_REQUEST', 'parallel'],
    [`${WINDOW}&order=none`, 400, 'TG_BAD_REQUEST', 'order'],
    [`${WINDOW}&limit=all&parallel=9`, 422, 'TG_TOO_EXPENSIVE', 'parallel'],
    [`${WINDOW}&limit=all&parallel=0`, 400, 'TG_BAD_VALUE', 'parallel'],
    [`${WINDOW}&limit=all&parallel=x`, 400, 'TG_BAD_REQUEST', undefined],
    [`${WINDOW}&limit=all&parallel=2&order=key.asc`, 400, 'TG_BAD_REQUEST', 'parallel'],
    [`until=2026-11-02T00:00:00Z&limit=all&parallel=2`, 400, 'TG_BAD_REQUEST', 'parallel'],
    [`${WINDOW}&limit=alll`, 400, 'TG_BAD_REQUEST', undefined],
  ])('%s -> %d %s', async (query, status, code, parameter) => {
    const res = await app.inject(`/v1/topics/orders/events?${query}`);
    expect([res.statusCode, res.json().error.code]).toEqual([status, code]);
    if (parameter) expect(res.json().error.details.parameter).toBe(parameter);
  });

  it('a page cursor does not go with limit=all', async () => {
    const first = await page(`/v1/topics/orders/events?${WINDOW}&limit=10`);
    const token = new URL(first.next!, 'http://x').searchParams.get('cursor')!;
    const res = await app.inject(`/v1/topics/orders/events?${WINDOW}&limit=all&cursor=${encodeURIComponent(token)}`);
    expect([res.statusCode, res.json().error.details.parameter]).toEqual([400, 'cursor']);
  });
});

describe('cursor reads with limit=all', () => {
  it('one batch holds every settled event after the position', async () => {
    const put = await app.inject({ method: 'PUT', url: '/v1/cursors/bulk-all', payload: { topic: 's3_events' } });
    expect(put.statusCode).toBe(201);
    const res = await app.inject({ method: 'POST', url: '/v1/cursors/bulk-all/read?limit=all&format=ndjson' });
    expect(res.statusCode, res.body).toBe(200);
    const [[n]] = (await sql('SELECT count(*) FROM s3_events')) as [[number]];
    expect(Number(res.headers['topicgate-batch-rows'])).toBe(Number(n));
    expect(res.body.split('\n').filter(Boolean)).toHaveLength(Number(n));
    const again = await app.inject({ method: 'POST', url: '/v1/cursors/bulk-all/read?limit=all&format=ndjson' });
    expect(again.headers['topicgate-batch']).toBe(res.headers['topicgate-batch']);
  });
});
