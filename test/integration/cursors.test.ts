/** Named cursors over the demo topics: exact batches through ties and duplicates, idempotent commits, bad input. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { testApp } from '../helpers.js';

let app: FastifyInstance;
beforeAll(async () => {
  app = await testApp();
});
afterAll(() => app.close());

const put = (name: string, payload: object) => app.inject({ method: 'PUT', url: `/v1/cursors/${name}`, payload });
const read = (name: string, q = '') => app.inject({ method: 'POST', url: `/v1/cursors/${name}/read${q}` });
const commit = (name: string, batch: string) =>
  app.inject({ method: 'POST', url: `/v1/cursors/${name}/commit`, payload: { batch } });
const position = async (name: string) => (await app.inject(`/v1/cursors/${name}`)).json().position;

function counts(rows: unknown[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const r of rows) m.set(JSON.stringify(r), (m.get(JSON.stringify(r)) ?? 0) + 1);
  return m;
}

describe('cursor definitions', () => {
  it('create is idempotent; another definition is a conflict', async () => {
    const def = { topic: 'orders', start: 'earliest', settle: '30s' };
    const a = await put('c-def', def);
    expect(a.statusCode).toBe(201);
    expect(a.json().position).toEqual({ timestamp: null, skip: 0 });
    expect((await put('c-def', def)).statusCode).toBe(200);
    const c = await put('c-def', { ...def, settle: '1m' });
    expect(c.statusCode).toBe(409);
    expect(c.json().error.code).toBe('TG_CURSOR_CONFLICT');
  });

  it.each([
    ['unknown topic', 'c-bad1', { topic: 'nope' }, 404, 'TG_TOPIC_NOT_FOUND'],
    ['not a topic table', 'c-bad2', { topic: 'orders_expanded' }, 400, 'TG_BAD_REQUEST'],
    ['bad start', 'c-bad3', { topic: 'orders', start: 'yesterday' }, 400, 'TG_BAD_TIME'],
    ['bad settle', 'c-bad4', { topic: 'orders', settle: 'soon' }, 400, 'TG_BAD_VALUE'],
    [
      'unknown filter column',
      'c-bad5',
      { topic: 'orders', filter: { field: 'nope', op: 'eq', value: 1 } },
      400,
      'TG_UNKNOWN_COLUMN',
    ],
    ['unknown select column', 'c-bad6', { topic: 'orders', select: ['nope'] }, 400, 'TG_UNKNOWN_COLUMN'],
    ['bad name', 'bad%20name', { topic: 'orders' }, 400, 'TG_BAD_REQUEST'],
    ['extra field', 'c-bad7', { topic: 'orders', offset: 3 }, 400, 'TG_BAD_REQUEST'],
  ])('%s -> %i %s, and nothing is created', async (_what, name, body, status, code) => {
    const res = await put(name, body);
    expect(res.statusCode, res.body).toBe(status);
    expect(res.json().error.code).toBe(code);
    if (!name.includes('%')) expect((await app.inject(`/v1/cursors/${name}`)).statusCode).toBe(404);
  });
});

describe('reading and committing', () => {
  it('batches of 3 walk through an 11-way tie exactly', async () => {
    await put('c-tie', { topic: 'orders', start: '2026-11-01T00:00:00Z', select: ['key', 'value'] });
    // Batches carry timestamp_broker first (it is what positions are made of), then the selected columns.
    const seen: unknown[] = [];
    const positions: unknown[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await read('c-tie', '?limit=3');
      expect(res.statusCode, res.body).toBe(200);
      seen.push(...res.json().rows);
      const c = await commit('c-tie', res.headers['topicgate-batch'] as string);
      expect(c.json().committed).toBe(true);
      positions.push(c.json().position);
    }
    expect(positions).toEqual([
      { timestamp: '2026-11-01T00:00:00.000Z', skip: 3 },
      { timestamp: '2026-11-01T00:00:00.000Z', skip: 6 },
      { timestamp: '2026-11-01T00:00:00.000Z', skip: 9 },
      // events 0..9 and the copy of 7 share 00:00:00.000; events 10, 11, 12, 13 follow 20 s apart
      { timestamp: '2026-11-01T00:03:20.000Z', skip: 1 },
      { timestamp: '2026-11-01T00:04:20.000Z', skip: 1 },
    ]);
    const expected = (await app.inject('/v1/topics/orders/events?select=timestamp_broker,key,value&limit=15')).json()
      .rows;
    expect(seen).toEqual(expected);
    // The tie holds event 7 twice: both copies are delivered, once each.
    expect([...counts(seen).values()].filter((n) => n === 2).length).toBe(1);
  });

  it('reading the whole topic in batches returns every event exactly once', async () => {
    await put('c-all', { topic: 'orders', select: ['key', 'value'] });
    const rows: unknown[] = [];
    for (;;) {
      const res = await read('c-all', '?limit=1500&format=ndjson');
      expect(res.statusCode).toBe(200);
      const n = Number(res.headers['topicgate-batch-rows']);
      const lines = res.body
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l));
      expect(lines.length).toBe(n);
      rows.push(...lines);
      if (n === 0) break;
      expect((await commit('c-all', res.headers['topicgate-batch'] as string)).json().committed).toBe(true);
    }
    const all = await app.inject(
      '/v1/topics/orders/events?select=timestamp_broker,key,value&limit=10000&format=ndjson',
    );
    const link = String(all.headers.link);
    const page2 = await app.inject(link.slice(1, link.indexOf('>')));
    const expected = [...all.body.split('\n'), ...page2.body.split('\n')].filter(Boolean).map((l) => JSON.parse(l));
    expect(rows.length).toBe(10_020);
    expect(counts(rows)).toEqual(counts(expected));
    const lag = (await app.inject('/v1/cursors/c-all')).json().lag;
    expect(lag.events).toBe(0);
    const history = (await app.inject('/v1/cursors/c-all/history')).json().batches;
    expect(history.length).toBe(7);
    expect(history.reduce((s: number, b: { rows: number }) => s + b.rows, 0)).toBe(10_020);
  });

  it('re-reading without commit returns the same batch and token; committing twice is a no-op', async () => {
    await put('c-same', { topic: 'clicks', start: '2026-11-01T00:00:00Z' });
    const a = await read('c-same', '?limit=10');
    const b = await read('c-same', '?limit=10');
    expect(b.headers['topicgate-batch']).toBe(a.headers['topicgate-batch']);
    expect(b.json().rows).toEqual(a.json().rows);
    expect(a.json().batch).toBe(a.headers['topicgate-batch']);
    const token = a.headers['topicgate-batch'] as string;
    expect((await commit('c-same', token)).json()).toMatchObject({ committed: true, rows: 10 });
    expect((await commit('c-same', token)).json()).toMatchObject({ committed: false, rows: 10 });
    expect((await position('c-same')).skip).toBeGreaterThan(0);
  });

  it('stale tokens, tokens of another cursor and garbage are refused and never move the position', async () => {
    await put('c-x', { topic: 'clicks' });
    await put('c-y', { topic: 'clicks' });
    const first = (await read('c-x', '?limit=5')).headers['topicgate-batch'] as string;
    await commit('c-x', first);
    const second = (await read('c-x', '?limit=5')).headers['topicgate-batch'] as string;
    const before = await position('c-x');
    const other = await commit('c-y', second);
    expect(other.statusCode).toBe(400);
    expect(other.json().error.code).toBe('TG_BAD_BATCH');
    for (const bad of ['garbage', `${second}x`, second.replace(/^./, 'A'), '']) {
      const res = await commit('c-x', bad);
      expect(res.statusCode, bad).toBe(400);
    }
    await app.inject({ method: 'POST', url: '/v1/cursors/c-x/seek', payload: { to: 'earliest' } });
    const stale = await commit('c-x', second);
    expect(stale.statusCode).toBe(409);
    expect(stale.json().error.code).toBe('TG_STALE_BATCH');
    expect(await position('c-x')).toEqual({ timestamp: null, skip: 0 });
    expect(before).not.toEqual({ timestamp: null, skip: 0 });
    expect((await commit('c-nope', second)).statusCode).toBe(400);
    expect((await read('c-nope')).statusCode).toBe(404);
  });

  it('a filter and select apply to batches', async () => {
    await put('c-filter', { topic: 'orders', filter: { field: 'key', op: 'is', value: null }, select: ['key'] });
    const res = await read('c-filter', '?limit=10000');
    expect(res.json().rows.length).toBe(345);
    expect(res.json().columns.map((c: { name: string }) => c.name)).toEqual(['timestamp_broker', 'key']);
  });

  it('seek, delete, history of an unknown cursor', async () => {
    await put('c-del', { topic: 'clicks', start: 'latest' });
    const seek = await app.inject({
      method: 'POST',
      url: '/v1/cursors/c-del/seek',
      payload: { to: '2026-11-01T00:10:00Z' },
    });
    expect(seek.json().position).toEqual({ timestamp: '2026-11-01T00:10:00.000Z', skip: 0 });
    const badSeek = await app.inject({ method: 'POST', url: '/v1/cursors/c-del/seek', payload: { to: 'soon' } });
    expect(badSeek.statusCode).toBe(400);
    expect(await position('c-del')).toEqual({ timestamp: '2026-11-01T00:10:00.000Z', skip: 0 });
    expect((await app.inject({ method: 'DELETE', url: '/v1/cursors/c-del' })).statusCode).toBe(204);
    expect((await app.inject('/v1/cursors/c-del')).json().error.code).toBe('TG_CURSOR_NOT_FOUND');
    expect((await app.inject({ method: 'DELETE', url: '/v1/cursors/c-del' })).statusCode).toBe(404);
    expect((await app.inject('/v1/cursors/c-del/history')).statusCode).toBe(404);
  });
});
