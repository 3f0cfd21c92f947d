/**
 * Quotas count Trino queries, not requests, on a listening gateway over the real Trino: a
 * `parallel=N` read holds N of the caller's `concurrentQueries` and of the gateway's `maxConcurrentQueries` while
 * it streams, so the caller's next query (an explain) waits briefly and gets a 429 with Retry-After; a request
 * that runs no Trino query (cursor history) is not held back; a `parallel` no limit could ever grant is a 422
 * naming the limit. Streams are held open by clients that stop reading after the first bytes.
 */
import http from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { buildApp } from '../../src/server/app.js';
import { apiKeyHash } from '../../src/access/api-keys.js';
import { HttpTrino } from '../../src/trino/http-trino.js';
import { testConfig, trinoUrl } from '../helpers.js';

const BULK = 'bulk|kafka_topics';
const A = 'key-slots-a-000000000000000000000';
const B = 'key-slots-b-000000000000000000000';
const dir = mkdtempSync(join(tmpdir(), 'topicgate-slots-'));
let app: FastifyInstance;
let base: string;

beforeAll(async () => {
  // The bulk topics (test/global-setup.ts): a result larger than Trino's buffers, so a read stays open while its
  // client pauses.
  const file = join(dir, 'slots.yaml');
  writeFileSync(
    file,
    stringify({
      auth: {
        apiKeys: [
          { principal: 'a', sha256: apiKeyHash(A), roles: ['r'] },
          { principal: 'b', sha256: apiKeyHash(B), roles: ['r'] },
        ],
      },
      limits: { concurrentQueries: 2, maxConcurrentQueries: 3, queuedQueries: 4, queueWaitMs: 300 },
    }),
  );
  app = await buildApp(testConfig({ TOPICGATE_CONFIG: file, TOPICGATE_SCHEMAS: BULK, TOPICGATE_PREFETCH_ROWS: '0' }), {
    logger: false,
  });
  base = await app.listen({ host: '127.0.0.1', port: 0 });
  const put = await fetch(`${base}/v1/cursors/slots-a`, {
    method: 'PUT',
    headers: { 'x-api-key': A, 'content-type': 'application/json' },
    body: JSON.stringify({ topic: 'orders' }),
  });
  expect(put.status).toBe(201);
});
afterAll(async () => {
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

const WINDOW = 'since=2026-11-01T00:00:00Z&until=2026-12-01T00:00:00Z';

/** A bulk read of `parallel` slices whose client stops reading after the first bytes. */
function stalledRead(key: string, parallel: number): Promise<http.ClientRequest> {
  return new Promise((resolve, reject) => {
    const req = http.get(
      `${base}/v1/topics/clicks/events?${WINDOW}&limit=all&parallel=${parallel}&format=ndjson`,
      { headers: { 'x-api-key': key } },
      (res) => {
        if (res.statusCode !== 200) reject(new Error(`status ${res.statusCode}`));
        res.once('data', () => {
          res.pause();
          resolve(req);
        });
      },
    );
    req.on('error', () => undefined); // destroyed on purpose
  });
}

async function call(key: string, path: string) {
  const r = await fetch(`${base}${path}`, { headers: { 'x-api-key': key } });
  const body = (await r.json()) as { error?: { code: string; details?: { limit?: string } } };
  return {
    status: r.status,
    retryAfter: r.headers.get('retry-after'),
    code: body.error?.code,
    limit: body.error?.details?.limit,
  };
}
const explain = (key: string) => call(key, `/v1/topics/orders/events?${WINDOW}&explain=true`);

/** Slots come back when the closed stream's request ends: wait for the explain to pass again. */
async function eventually(key: string) {
  const t0 = Date.now();
  let r = await explain(key);
  while (r.status !== 200 && Date.now() - t0 < 10_000) {
    await new Promise((res) => setTimeout(res, 200));
    r = await explain(key);
  }
  return r.status;
}

describe('query slots', () => {
  it('a parallel no limit could grant is a 422 naming limits.concurrentQueries', async () => {
    const r = await call(A, `/v1/topics/clicks/events?${WINDOW}&limit=all&parallel=3&format=ndjson`);
    expect(r).toMatchObject({ status: 422, code: 'TG_TOO_EXPENSIVE', limit: 'limits.concurrentQueries' });
  });

  it('parallel=1 holds one slot: the same caller still runs an explain', async () => {
    const read = await stalledRead(A, 1);
    expect((await explain(A)).status).toBe(200);
    read.destroy();
    expect(await eventually(A)).toBe(200);
  });

  it('parallel=2 holds two: the caller is at its limit (429), others and query-less requests are not', async () => {
    const read = await stalledRead(A, 2);
    expect(await explain(A)).toMatchObject({
      status: 429,
      retryAfter: '1',
      code: 'TG_TOO_MANY_REQUESTS',
      limit: 'concurrentQueries',
    });
    expect((await call(A, '/v1/cursors/slots-a/history')).status).toBe(200);
    // The gateway's third slot: b's stalled read takes it, then b's explain finds the gateway full.
    const other = await stalledRead(B, 1);
    expect(await explain(B)).toMatchObject({
      status: 429,
      code: 'TG_TOO_MANY_REQUESTS',
      limit: 'maxConcurrentQueries',
    });
    read.destroy();
    other.destroy();
    expect(await eventually(A)).toBe(200);
    expect((await explain(B)).status).toBe(200);
  });

  it("a page's query held for the next page keeps its caller's slot, parked: any query of the caller ends it", async () => {
    const trino = new HttpTrino({ server: trinoUrl(), user: 'test' });
    const stateOf = async (id: string) =>
      (await trino.all(`SELECT state FROM system.runtime.queries WHERE query_id = '${id.replace(/[^a-z0-9_]/g, '')}'`))
        .rows[0]?.[0];
    // Two pages held (a's limit; two walks, so two next tokens): each keeps a slot, and the page after the first
    // reads on from its query.
    const pages = await Promise.all(
      [1000, 1001].map((n) =>
        fetch(`${base}/v1/topics/clicks/events?${WINDOW}&limit=${n}`, { headers: { 'x-api-key': A } }),
      ),
    );
    const bodies = (await Promise.all(pages.map((r) => r.json()))) as { next: string }[];
    const ids = pages.map((r) => r.headers.get('x-trino-query-id')!);
    expect(app.tg.held.size).toBe(2);
    expect(await Promise.all(ids.map(stateOf))).not.toContain('FAILED');
    const second = await fetch(
      `${base}${new URL(bodies[0]!.next, base).pathname}${new URL(bodies[0]!.next, base).search}`,
      {
        headers: { 'x-api-key': A },
      },
    );
    expect(second.status).toBe(200);
    await second.json();
    expect(second.headers.get('x-trino-query-id')).toBe(ids[0]);
    // Still two held, a's limit: an explain of a's (a query) ends the oldest one and runs at once.
    expect(app.tg.held.size).toBe(2);
    expect((await explain(A)).status).toBe(200);
    expect(app.tg.held.size).toBe(1);
    // b is not held back by a's held queries.
    expect((await explain(B)).status).toBe(200);
    // Ended in Trino: cancelled, or finished already (a result that fit Trino's buffers); never left running.
    const ended = async (id: string) => {
      for (let i = 0; i < 50 && !['FAILED', 'FINISHED'].includes(String(await stateOf(id))); i++)
        await new Promise((r) => setTimeout(r, 100));
      return stateOf(id);
    };
    expect(['FAILED', 'FINISHED']).toContain(await ended(ids[1]!));
    await app.tg.held.close();
    expect(app.tg.held.size).toBe(0);
    expect(['FAILED', 'FINISHED']).toContain(await ended(ids[0]!));
  });
});
