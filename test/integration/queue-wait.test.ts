/**
 * A caller's burst waits for its query slots, as a database pool's callers wait for a connection: over the real
 * Trino, slowed by a proxy that answers each query's submission 400 ms late (a busy Trino), 30 reads at once from
 * one API key with `concurrentQueries: 4` are all answered 200 under the default queue wait (the 2 s it was ran out
 * for the last of them), each page's query left running for its next page giving its slot to a read waiting. A 429 comes only when the queue is full
 * (it names `queuedQueries`) or the wait ran out; a client that leaves while queued leaves the queue, and no slot
 * stays taken for it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { apiKeyHash } from '../../src/access/api-keys.js';
import { buildApp } from '../../src/server/app.js';
import { StallProxy } from '../stall-proxy.js';
import { testConfig, trinoUrl } from '../helpers.js';

const KEY = 'key-queue-00000000000000000000000';
const USER = `queue-wait-${process.pid}`;
const dir = mkdtempSync(join(tmpdir(), 'topicgate-queue-wait-'));
const proxy = new StallProxy(trinoUrl());
const apps: FastifyInstance[] = [];
let proxyUrl = '';

beforeAll(async () => {
  proxyUrl = await proxy.start();
});
afterAll(async () => {
  for (const a of apps) await a.close();
  await proxy.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** A listening gateway over the proxy with these `limits` (the queue wait left at its default unless given). */
async function gateway(limits: object): Promise<{ app: FastifyInstance; base: string }> {
  const file = join(dir, `${apps.length}.yaml`);
  writeFileSync(
    file,
    stringify({ auth: { apiKeys: [{ principal: 'burst', sha256: apiKeyHash(KEY), roles: ['r'] }] }, limits }),
  );
  const app = await buildApp(
    testConfig({ TOPICGATE_CONFIG: file, TOPICGATE_TRINO_URL: proxyUrl, TOPICGATE_TRINO_USER: USER }),
    { logger: false },
  );
  apps.push(app);
  return { app, base: await app.listen({ host: '127.0.0.1', port: 0 }) };
}

/** A small read; `n` makes each request's query its own (no answer is shared between two). */
const read = (base: string, n: number, signal?: AbortSignal) =>
  fetch(
    `${base}/v1/topics/orders/events?since=2026-11-01T00:00:00Z&until=2026-11-04T00:00:00Z&limit=${n + 1}&format=ndjson`,
    { headers: { 'x-api-key': KEY }, signal },
  );

async function until(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; !cond(); i++) {
    if (i > 600) throw new Error(`never: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('a burst from one caller waits for its slots', () => {
  it('30 reads at once with concurrentQueries 4, against a slowed Trino, are all answered 200', async () => {
    const { app } = await gateway({ concurrentQueries: 4 });
    const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
    proxy.delayMs = 400;
    let peak = 0;
    const sampling = setInterval(() => (peak = Math.max(peak, app.access.queries.active())), 20);
    try {
      const answers = await Promise.all(
        Array.from({ length: 30 }, (_, n) =>
          read(base, n).then(async (r) => ({ status: r.status, body: await r.text() })),
        ),
      );
      const refused = answers.filter((a) => a.status !== 200).map((a) => a.body.slice(0, 300));
      expect(refused).toEqual([]);
      expect(answers.map((a) => a.body.trim().split('\n').length)).toEqual(Array.from({ length: 30 }, (_, n) => n + 1));
      // The limit held: the burst waited for its slots rather than running beside them. What holds a slot now is a
      // query parked for a next page, given up to the next query that needs it.
      expect(peak).toBe(4);
      const q = app.access.queries;
      expect([q.active(), q.waiting()]).toEqual([q.parkedCount(), 0]);
    } finally {
      clearInterval(sampling);
      proxy.delayMs = 0;
    }
  }, 120_000);

  it('a full queue is a 429 naming queuedQueries; a client gone while queued leaves the queue, its slot free', async () => {
    const { app, base } = await gateway({ concurrentQueries: 1, queuedQueries: 2 });
    const q = app.access.queries;
    // The first read's query is held unfinished in Trino: it keeps the caller's one slot.
    proxy.hold = (s) => s.sql.includes('orders');
    const first = new AbortController();
    const running = read(base, 0, first.signal).catch(() => undefined);
    await proxy.seen((s) => proxy.hold(s));
    const queued = [new AbortController(), new AbortController()];
    const waiting = queued.map((c, i) => read(base, 1 + i, c.signal).catch((err: unknown) => err));
    await until(() => q.waiting() === 2, 'two reads queued');
    const over = await Promise.all([3, 4, 5].map((n) => read(base, n)));
    for (const r of over) {
      expect(r.status).toBe(429);
      expect(r.headers.get('retry-after')).toBe('30');
      const { error } = (await r.json()) as { error: { code: string; message: string; details: unknown } };
      expect(error.code).toBe('TG_TOO_MANY_REQUESTS');
      expect(error.details).toEqual({ limit: 'queuedQueries', max: 2 });
      expect(error.message).toContain('limits.queuedQueries');
    }
    // The queued clients go away: their places in the queue are given up, and they never take a slot.
    for (const c of queued) c.abort();
    await Promise.all(waiting);
    await until(() => q.waiting() === 0, 'the queue empty once its clients left');
    expect(q.active()).toBe(1);
    // The holder goes away too: its query is cancelled and its slot comes back (none was leaked by the queue).
    proxy.hold = () => false;
    first.abort();
    await running;
    await until(() => q.active() + q.endingCount() === 0, 'every slot free');
    const after = await read(base, 6);
    expect(after.status).toBe(200);
    expect((await after.text()).trim().split('\n')).toHaveLength(7);
  }, 120_000);
});
