/**
 * Exact paging: following `next` over a fixed query returns every matching row exactly once, including rows that
 * tie on timestamp_broker and identical duplicates (the demo orders have both).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { sql, testApp } from '../helpers.js';

let app: FastifyInstance;
beforeAll(async () => {
  app = await testApp();
});
afterAll(() => app.close());

// The first 1000 events: ten-way ties every 100 events, and events 7 and 507 stored twice.
const WINDOW = 'since=2026-11-01T00:00:00Z&until=2026-11-01T05:33:20Z';
const SQL_WINDOW = `timestamp_broker >= TIMESTAMP '2026-11-01 00:00:00' AND timestamp_broker < TIMESTAMP '2026-11-01 05:33:20'`;

async function followJson(first: string): Promise<{ rows: Record<string, unknown>[]; pages: number }> {
  const rows: Record<string, unknown>[] = [];
  let url: string | null = first;
  let pages = 0;
  while (url) {
    const res: {
      statusCode: number;
      body: string;
      json: () => { rows: Record<string, unknown>[]; next: string | null; complete: boolean };
    } = await app.inject(url);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.complete).toBe(true);
    rows.push(...body.rows);
    url = body.next;
    if (++pages > 1000) throw new Error('paging did not end');
  }
  return { rows, pages };
}

/**
 * The window in pages of 1000 (two pages): the reference the paged reads are compared with. The same request, and
 * so the same Trino queries, in every test that compares with it: read once for the file.
 */
let whole: Promise<{ rows: Record<string, unknown>[]; pages: number }> | undefined;
const wholeWindow = () => (whole ??= followJson(`/v1/topics/orders/events?${WINDOW}&limit=1000`));

/**
 * The first 200 events, for the page sizes that are not the window's main test (pages of 7 above): each page is a
 * Trino query, and these 200 events hold what paging must get right as the 1000 do, two ten-way ties (events 0-9 with
 * event 7 stored twice: eleven rows on one millisecond, more than a page) and an identical duplicate.
 */
const HEAD = 'since=2026-11-01T00:00:00Z&until=2026-11-01T01:06:40Z';
let head: Promise<{ rows: Record<string, unknown>[]; pages: number }> | undefined;
const headWindow = () => (head ??= followJson(`/v1/topics/orders/events?${HEAD}&limit=1000`));

/** The most rows that share one broker millisecond, and how many rows are stored twice. */
function hardCases(rows: Record<string, unknown>[]): { widestTie: number; duplicated: number } {
  const perMs = counts(rows.map((r) => r.timestamp_broker));
  return {
    widestTie: Math.max(...perMs.values()),
    duplicated: [...counts(rows).values()].filter((n) => n === 2).length,
  };
}

/**
 * The counts the tests compare with, by hand-written SQL in one query (each a scalar subquery of its own): the rows
 * of the window, the hour buckets of the topic (as GROUP BY makes them) and the rows of the topic.
 */
let sqlCounts: Promise<{ window: number; hours: number; total: number }> | undefined;
const expectedCounts = () =>
  (sqlCounts ??= sql(
    `SELECT (SELECT count(*) FROM orders WHERE ${SQL_WINDOW}),
            (SELECT count(*) FROM (SELECT date_trunc('hour', timestamp_broker) FROM orders GROUP BY 1)),
            (SELECT count(*) FROM orders)`,
  ).then(([row]) => {
    const [window, hours, total] = row!.map(Number) as [number, number, number];
    return { window, hours, total };
  }));

/** A multiset of canonical row strings. */
function counts(rows: unknown[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const r of rows) m.set(JSON.stringify(r), (m.get(JSON.stringify(r)) ?? 0) + 1);
  return m;
}

describe('exact paging', () => {
  it('pages of 7 over ties and duplicates return every row exactly once (anchored on broker time)', async () => {
    const expected = (await expectedCounts()).window;
    const all = await wholeWindow();
    expect(all.rows.length).toBe(expected);
    const paged = await followJson(`/v1/topics/orders/events?${WINDOW}&limit=7`);
    expect(paged.pages).toBe(Math.ceil(expected / 7));
    expect(counts(paged.rows)).toEqual(counts(all.rows));
    // The window really holds ties and identical duplicates.
    expect([...counts(all.rows).values()].filter((n) => n === 2).length).toBe(2);
  });

  it('page size 1 through a ten-way tie', async () => {
    const q = `/v1/topics/orders/events?since=2026-11-01T00:00:00Z&until=2026-11-01T00:00:00.001Z&limit=1&select=key,value,timestamp_broker`;
    const paged = await followJson(q);
    expect(paged.rows.length).toBe(11);
    expect(counts(paged.rows)).toEqual(counts((await followJson(q.replace('limit=1', 'limit=100'))).rows));
  });

  it('descending order pages exactly', async () => {
    const asc = await headWindow();
    expect(hardCases(asc.rows)).toEqual({ widestTie: 11, duplicated: 1 });
    const desc = await followJson(`/v1/topics/orders/events?${HEAD}&limit=9&order=timestamp_broker.desc`);
    expect(desc.pages).toBe(Math.ceil(asc.rows.length / 9));
    expect(counts(desc.rows)).toEqual(counts(asc.rows));
    const times = desc.rows.map((r) => r.timestamp_broker as string);
    expect([...times].sort().reverse()).toEqual(times);
  });

  it('offset mode (broker time not selected) pages exactly too', async () => {
    const q = `/v1/topics/orders/events?${HEAD}&select=key,value`;
    const paged = await followJson(`${q}&limit=13`);
    const all = (await followJson(`${q}&limit=1000`)).rows;
    expect(all.length).toBe((await headWindow()).rows.length);
    expect(counts(paged.rows)).toEqual(counts(all));
  });

  it('NDJSON follows Link headers to the same rows', async () => {
    const rows: unknown[] = [];
    let url: string | null = `/v1/topics/orders/events?${WINDOW}&limit=50&format=ndjson`;
    while (url) {
      const res = await app.inject(url);
      expect(res.statusCode).toBe(200);
      expect(res.body.endsWith('\n\n')).toBe(true); // complete
      for (const line of res.body.split('\n').filter(Boolean)) rows.push(JSON.parse(line));
      const link = res.headers.link as string | undefined;
      url = link ? /^<([^>]+)>; rel="next"$/.exec(link)![1]! : null;
    }
    expect(counts(rows)).toEqual(counts((await wholeWindow()).rows));
  });

  it('the last page has next null and no Link header', async () => {
    const res = await app.inject(`/v1/topics/orders/events?${WINDOW}&limit=10000&format=csv`);
    expect(res.headers.link).toBeUndefined();
    const json = await app.inject(`/v1/topics/orders/events?${WINDOW}&limit=10000`);
    expect(json.json().next).toBeNull();
  });

  it('aggregation pages by group', async () => {
    const body = {
      select: [{ fn: 'count', as: 'n' }],
      groupBy: [{ bucket: '1h' }],
      order: [{ field: 'bucket' }],
      limit: 5,
    };
    const rows: unknown[] = [];
    let cursor: string | undefined;
    do {
      const res = await app.inject({ method: 'POST', url: '/v1/topics/orders/query', payload: { ...body, cursor } });
      expect(res.statusCode, res.body).toBe(200);
      rows.push(...res.json().rows);
      cursor = res.json().next ?? undefined;
    } while (cursor);
    const { hours, total } = await expectedCounts();
    expect(rows.length).toBe(hours);
    expect(rows.reduce((s: number, r) => s + (r as { n: number }).n, 0)).toBe(total);
  });

  it('rejects a cursor from another query, a tampered one and garbage', async () => {
    const first = (await app.inject(`/v1/topics/orders/events?${WINDOW}&limit=5`)).json();
    const token = new URL(first.next, 'http://x').searchParams.get('cursor')!;
    const other = await app.inject(
      `/v1/topics/orders/events?${WINDOW}&limit=5&key=eq.x&cursor=${encodeURIComponent(token)}`,
    );
    expect(other.statusCode).toBe(400);
    expect(other.json().error.code).toBe('TG_BAD_CURSOR');
    expect(other.json().error.message).toContain('another query');
    const [kind, kid, body, sig] = token.split('.');
    // The body is sealed (not readable): a forger can only write a body of its own in its place.
    const forged = Buffer.from(JSON.stringify({ m: 'offset', s: 0 })).toString('base64url');
    for (const bad of [`${kind}.${kid}.${forged}.${sig}`, 'garbage', `${token}x`, '..', `${kind}.${kid}.${body}.`]) {
      const res = await app.inject(`/v1/topics/orders/events?${WINDOW}&limit=5&cursor=${encodeURIComponent(bad)}`);
      expect(res.statusCode, bad).toBe(400);
      expect(res.json().error.code).toBe('TG_BAD_CURSOR');
    }
  });
});
