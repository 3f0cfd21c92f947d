/**
 * Abort signals on the queries that answer in one piece: explain, schema inference, cursor lag
 * and cursor batch summaries. A client that goes away while one runs gets it cancelled in the real Trino (read
 * back from system.runtime.queries), as a streamed read's is (cancel.test.ts). These queries are quick, so the
 * gateway reaches Trino through a proxy that stalls their result pages: each stays unfinished in Trino until it is
 * cancelled, and only a cancel can fail it with USER_CANCELED.
 */
import http from 'node:http';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { buildApp } from '../../src/server/app.js';
import { queryState, testConfig, trinoUrl } from '../helpers.js';
import { StallProxy, type Submitted } from '../stall-proxy.js';

let proxy: StallProxy;
let app: FastifyInstance;
let base: string;
const logs: string[] = [];

beforeAll(async () => {
  proxy = new StallProxy(trinoUrl());
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      logs.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  app = await buildApp(testConfig({ TOPICGATE_TRINO_URL: await proxy.start() }), { logger: { level: 'info', stream } });
  base = await app.listen({ host: '127.0.0.1', port: 0 });
  const put = await app.inject({
    method: 'PUT',
    url: '/v1/cursors/stalled',
    payload: { topic: 'orders', start: 'earliest', settle: '30s' },
  });
  expect(put.statusCode, put.body).toBe(201);
});
afterAll(async () => {
  await app?.close();
  await proxy?.stop();
});

/** The query's state and error code, as a pair. */
async function state(id: string): Promise<[string, string | null]> {
  const q = await queryState(id);
  return [q.state, q.error];
}

/** Sends the request, waits until its stalled query is in Trino, then goes away; the query's final state. */
async function goAway(method: string, path: string, stalled: (q: Submitted) => boolean) {
  const before = proxy.submitted.length;
  proxy.hold = stalled;
  const req = http.request(`${base}${path}`, { method });
  req.on('error', () => undefined); // destroyed on purpose
  req.end();
  const q = await proxy.seen((s) => proxy.submitted.indexOf(s) >= before && stalled(s));
  // Unfinished while its results are not taken: nothing but a cancel ends it.
  await new Promise((r) => setTimeout(r, 500));
  const running = await state(q.id);
  const t0 = Date.now();
  req.destroy();
  let s = await state(q.id);
  while (s[0] !== 'FAILED' && Date.now() - t0 < 10_000) {
    await new Promise((r) => setTimeout(r, 100));
    s = await state(q.id);
  }
  proxy.hold = () => false;
  return { id: q.id, running, final: s };
}

describe('a client that goes away cancels the query that answers it', () => {
  const SINCE = 'since=2026-11-01T00:00:00Z&until=2026-11-02T00:00:00Z';
  it.each([
    ['explain', 'GET', `/v1/topics/orders/events?${SINCE}&explain=true`, (q: Submitted) => q.sql.startsWith('EXPLAIN')],
    ['schema inference', 'GET', `/v1/topics/orders/schema/infer?${SINCE}`, (q: Submitted) => q.tags.includes('infer')],
    ['cursor lag', 'GET', '/v1/cursors/stalled', (q: Submitted) => q.sql.startsWith('SELECT count(*)')],
    ['cursor batch summary', 'POST', '/v1/cursors/stalled/read', (q: Submitted) => q.sql.startsWith('WITH b AS')],
  ])('%s', async (_name, method, path, stalled) => {
    const { id, running, final } = await goAway(method, path, stalled);
    expect(['QUEUED', 'PLANNING', 'STARTING', 'RUNNING', 'FINISHING']).toContain(running[0]);
    expect(final).toEqual(['FAILED', 'USER_CANCELED']);
    // Logged as what it is, not as a failed request or a time limit.
    const t0 = Date.now();
    const said = () => logs.filter((l) => l.includes(id)).map((l) => (JSON.parse(l) as { msg: string }).msg);
    while (!said().length && Date.now() - t0 < 5_000) await new Promise((r) => setTimeout(r, 100));
    expect(said()).toEqual(['the client went away: its query was cancelled']);
    expect(logs.filter((l) => l.includes('"level":50'))).toEqual([]);
  });

  it('a client that stays gets its answer through the same proxy (nothing else is stalled)', async () => {
    const r = await fetch(`${base}/v1/topics/orders/events?${SINCE}&explain=true`);
    expect(r.status).toBe(200);
    expect(((await r.json()) as { plan: string }).plan).toContain('timestamp_broker');
  });
});
