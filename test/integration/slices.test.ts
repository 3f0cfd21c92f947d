/**
 * Pages that cost what they return: a page is read in time slices bounded on both sides, so the rows
 * Trino reads for a whole walk through a window stay close to the rows returned, where one query per page bounded
 * only by the window's end reads O(N^2 / page). Proved on the PostgreSQL-backed catalog, whose scans really take
 * the range (TRINO_NOTES.md), by summing what Trino's own statistics say each query read; and the sliced pages
 * are exactly the rows, in order, of one query over the window, on every demo topic.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { sql, testApp, trinoUrl } from '../helpers.js';
import { HttpTrino } from '../../src/trino/http-trino.js';

const USER = `slices-${randomBytes(4).toString('hex')}`;
const dir = mkdtempSync(join(tmpdir(), 'topicgate-slices-'));
// Trino's PostgreSQL connector pushes TopN (ORDER BY ... LIMIT) into PostgreSQL, which VAST does not: turned off,
// the catalog behaves like VAST's (ranges reach the scan, the sort and the limit stay in Trino).
const CONFIG = join(dir, 'topics.yaml');
writeFileSync(CONFIG, stringify({ topics: { orders: { session: { 'vastpg.topn_pushdown_enabled': 'false' } } } }));
let pg: FastifyInstance;
let mem: FastifyInstance;
/** The memory catalog without held results: every page its own query. */
let memOwn: FastifyInstance;
beforeAll(async () => {
  pg = await testApp({
    TOPICGATE_CATALOG: 'vastpg',
    TOPICGATE_SCHEMAS: 'demo_topics',
    TOPICGATE_TRINO_USER: USER,
    TOPICGATE_CONFIG: CONFIG,
  });
  mem = await testApp();
  memOwn = await testApp({ TOPICGATE_HELD_RESULTS: '0' });
});
afterAll(async () => {
  await pg.close();
  await mem.close();
  await memOwn.close();
  rmSync(dir, { recursive: true, force: true });
});

async function walk(app: FastifyInstance, first: string): Promise<{ rows: unknown[]; pages: number }> {
  const rows: unknown[] = [];
  let url: string | null = first;
  let pages = 0;
  while (url) {
    const res = await app.inject(url);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json() as { rows: unknown[]; next: string | null; complete: boolean };
    expect(body.complete).toBe(true);
    rows.push(...body.rows);
    url = body.next;
    if (++pages > 2000) throw new Error('paging did not end');
  }
  return { rows, pages };
}

/** Every page of a read, following `next` (JSON) or `Link` (other formats): the bodies without their `next`. */
async function pagesOf(app: FastifyInstance, first: string): Promise<{ bodies: string[]; queryIds: string[] }> {
  const bodies: string[] = [];
  const queryIds: string[] = [];
  let url: string | null = first;
  while (url) {
    const at: string = url;
    const res = await app.inject(at);
    expect(res.statusCode, res.body).toBe(200);
    queryIds.push(String(res.headers['x-trino-query-id']));
    if (first.includes('format=json')) {
      const body = res.json() as { rows: unknown[]; next: string | null; complete: boolean };
      expect(body.complete).toBe(true);
      bodies.push(JSON.stringify(body.rows));
      url = body.next;
    } else {
      bodies.push(res.body);
      url = /<([^>]+)>; rel="next"/.exec(String(res.headers.link ?? ''))?.[1] ?? null;
    }
    if (bodies.length > 2000) throw new Error('paging did not end');
  }
  return { bodies, queryIds };
}

/** Rows Trino's scans read for every query this test's user ran against `table` (from each query's statistics). */
async function rowsRead(table: string): Promise<{ queries: number; rows: number }> {
  const ids = (await sql(
    `SELECT query_id FROM system.runtime.queries WHERE "user" = '${USER}' AND query LIKE '%${table}%'`,
  )) as [string][];
  let rows = 0;
  for (const [id] of ids) {
    const info = (await (
      await fetch(`${trinoUrl()}/v1/query/${id}`, { headers: { 'X-Trino-User': USER } })
    ).json()) as {
      queryStats: { processedInputPositions: number };
    };
    rows += info.queryStats.processedInputPositions;
  }
  return { queries: ids.length, rows };
}

describe('sliced pages', () => {
  it('on PostgreSQL, paging a window reads about what it returns (not the rest of the window per page)', async () => {
    // 4000 orders (one per 20 s, ties and duplicates included) in pages of 100.
    const q = 'since=2026-11-01T00:00:00Z&until=2026-11-01T22:13:20Z&select=key,timestamp_broker&limit=100';
    const paged = await walk(pg, `/v1/topics/orders/events?${q}`);
    const [[expected]] = (await sql(
      `SELECT count(*) FROM orders WHERE timestamp_broker >= TIMESTAMP '2026-11-01 00:00:00' AND timestamp_broker < TIMESTAMP '2026-11-01 22:13:20'`,
    )) as [[number]];
    expect(paged.rows.length).toBe(Number(expected));
    const read = await rowsRead('"vastpg"."demo_topics"."orders"');
    // Pages read on (held-results.ts): the first slice holds about ten pages and each slice after it twice as many,
    // and every page after the first reads on from the query left running: a few queries for 40 pages.
    expect(read.queries).toBeLessThanOrEqual(Math.ceil(paged.pages / 10));
    // Unsliced, the 40 pages would read 4000 + 3900 + ... + 100 = 82,000 rows; sliced, about the 4000 returned.
    process.stderr.write(
      `[slices] ${paged.pages} pages, ${paged.rows.length} rows, ${read.queries} queries, ${read.rows} rows read\n`,
    );
    expect(read.rows).toBeLessThanOrEqual(2.5 * paged.rows.length);
    expect(read.rows).toBeGreaterThanOrEqual(paged.rows.length);
  });

  it.each([
    ['orders', 7, '2026-11-01T06:00:00Z'],
    ['orders', 100, '2026-11-01T06:00:00Z'],
    ['clicks', 333, '2026-11-01T00:10:00Z'],
    ['s3_events', 50, '2026-11-01T06:00:00Z'],
  ])('%s in pages of %d: exactly the rows, in order, of one query over the window', async (topic, limit, until) => {
    const window = `since=2026-11-01T00:00:00Z&until=${until}`;
    const all = await walk(mem, `/v1/topics/${topic}/events?${window}&limit=10000`);
    expect(all.pages).toBe(1);
    const paged = await walk(mem, `/v1/topics/${topic}/events?${window}&limit=${limit}`);
    expect(paged.rows).toEqual(all.rows);
    expect(paged.pages).toBeGreaterThanOrEqual(Math.ceil(all.rows.length / limit));
  });

  it.each(['json', 'csv'])(
    'pages read on (%s): the same pages as one query per page, every page after the first without a query',
    async (format) => {
      // About 180 orders: some 26 pages of 7, each a query of its own for `memOwn` (a Trino query per page is the
      // reference's cost, so the window is no longer than the claim needs): the first slice holds about ten pages and
      // the next twice as many, so the walk still reads on across a slice's end and a widening.
      const window = 'since=2026-11-01T00:00:00Z&until=2026-11-01T01:00:00Z';
      const first = `/v1/topics/orders/events?${window}&limit=7&format=${format}`;
      const [ahead, own] = [await pagesOf(mem, first), await pagesOf(memOwn, first)];
      expect(ahead.bodies).toEqual(own.bodies);
      expect(ahead.bodies.length).toBeGreaterThan(20);
      // One query per page without held results; with them, a page reads on from the query of the page before it
      // (a walk starts a query again only where a slice was denser than its row budget).
      expect(new Set(own.queryIds).size).toBe(own.bodies.length);
      const walks = new Set(ahead.queryIds).size;
      process.stderr.write(`[slices] ${ahead.bodies.length} pages of 7 read on: ${walks} first queries\n`);
      expect(walks).toBeLessThanOrEqual(Math.ceil(ahead.bodies.length / 10));
      expect(mem.tg.held.size).toBe(0);
    },
  );

  it('a window where the first slice is empty still reaches the rows further on (slices widen)', async () => {
    // The window starts a week before the data: the first slices hold nothing.
    const window = 'since=2026-10-25T00:00:00Z&until=2026-11-01T01:00:00Z';
    const paged = await walk(mem, `/v1/topics/clicks/events?${window}&limit=500&select=key,timestamp_broker`);
    const trino = new HttpTrino({ server: trinoUrl(), user: 'test' });
    const { rows } = await trino.all(
      `SELECT count(*) FROM vast."demo|kafka_topics".clicks WHERE timestamp_broker < TIMESTAMP '2026-11-01 01:00:00'`,
    );
    expect(paged.rows.length).toBe(Number(rows[0]![0]));
    expect(paged.rows.length).toBeGreaterThan(0);
  });
});
