/**
 * Selective reads answer in one query: a key equality, which the storage evaluates, reads the rest of the window
 * in one Trino query, first events or latest, instead of a series of widening time slices (passes/page-slicing.ts).
 * Counted in Trino's own query list for this test's user, on the memory catalog and on PostgreSQL (`vastpg`), with
 * the rows checked against direct SQL.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { sql, testApp } from '../helpers.js';

const USER = `selective-${randomBytes(4).toString('hex')}`;
const SINCE = '2026-11-01T00:00:00Z';
const apps: Record<string, FastifyInstance> = {};
beforeAll(async () => {
  apps.vast = await testApp({ TOPICGATE_TRINO_USER: `${USER}-mem` });
  apps.vastpg = await testApp({
    TOPICGATE_CATALOG: 'vastpg',
    TOPICGATE_SCHEMAS: 'demo_topics',
    TOPICGATE_TRINO_USER: `${USER}-pg`,
  });
});
afterAll(async () => {
  for (const app of Object.values(apps)) await app.close();
});

/** Queries this test's gateway on `catalog` ran against `orders` (catalog lookups left out). */
async function ordersQueries(catalog: string): Promise<number> {
  const user = `${USER}-${catalog === 'vast' ? 'mem' : 'pg'}`;
  const [[n]] = (await sql(
    `SELECT count(*) FROM system.runtime.queries WHERE "user" = '${user}' AND query LIKE '%orders%' ` +
      "AND query NOT LIKE '%information_schema%'",
  )) as [[number]];
  return Number(n);
}

/** Every page of a read: the broker times of its rows, pages and the queries they ran. */
async function walk(catalog: string, first: string) {
  const before = await ordersQueries(catalog);
  const times: string[] = [];
  let url: string | null = first;
  let pages = 0;
  while (url) {
    const res = await apps[catalog]!.inject(url);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json() as { rows: { timestamp_broker: string }[]; next: string | null };
    times.push(...body.rows.map((r) => r.timestamp_broker));
    url = body.next;
    if (++pages > 20) throw new Error('paging did not end');
  }
  return { times, pages, queries: (await ordersQueries(catalog)) - before };
}

/** The broker times of one key's orders, by direct SQL, in `dir` order. */
async function expected(key: string, dir: 'ASC' | 'DESC'): Promise<string[]> {
  const rows = (await sql(
    `SELECT CAST(timestamp_broker AS varchar) FROM orders WHERE key = to_utf8('${key}') ` +
      `AND timestamp_broker >= TIMESTAMP '2026-11-01 00:00:00' ORDER BY timestamp_broker ${dir}`,
  )) as [string][];
  return rows.map(([t]) => t);
}

describe.each(['vast', 'vastpg'])('a key-filtered read on %s', (catalog) => {
  it('the first events of one key since the month began: one query', async () => {
    const r = await walk(catalog, `/v1/topics/orders/events?key=eq.order-1000001&since=${SINCE}&limit=20`);
    expect(r.times.length).toBe((await expected('order-1000001', 'ASC')).length);
    expect(r.times.length).toBeGreaterThan(0);
    // A widening series of slices ran 3 queries here: a first slice, then on to the window's end.
    expect(r.queries).toBe(1);
  });

  it('the latest events of one key, in pages: exactly its events, one query a page', async () => {
    const first = `/v1/topics/orders/events?key=eq.order-1001503&since=${SINCE}&order=timestamp_broker.desc&limit=2`;
    const r = await walk(catalog, first);
    const want = await expected('order-1001503', 'DESC');
    expect(want.length).toBe(3);
    expect(r.times.map((t) => t.replace('T', ' ').replace('Z', ''))).toEqual(want);
    expect(r.queries).toBeLessThanOrEqual(r.pages);
  });
});
