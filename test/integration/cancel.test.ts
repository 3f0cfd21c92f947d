/**
 * A client that disconnects mid-stream gets its Trino query cancelled (read back from system.runtime.queries),
 * and the next Trino page is fetched only when the client reads (backpressure).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import type { FastifyInstance } from 'fastify';
import { queryState, testApp } from '../helpers.js';

let app: FastifyInstance;
let base: string;
const BULK = 'bulk|kafka_topics';

beforeAll(async () => {
  // The bulk topics (test/global-setup.ts): a result larger than Trino's exchange buffers (clicks of 400k events,
  // about 60 MB as JSON pages), so the query is still running when the client stops reading. No read-ahead beyond
  // the first Trino page, over the direct protocol: Trino's buffers fill and the query waits for the client (over
  // spooling an unsorted read writes all its segments at once and is over before the client goes).
  app = await testApp({
    TOPICGATE_PREFETCH_ROWS: '0',
    TOPICGATE_MAX_LIMIT: '1000000',
    TOPICGATE_SCHEMAS: BULK,
    TOPICGATE_TRINO_ENCODING: 'none',
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const addr = app.server.address() as { port: number };
  base = `http://127.0.0.1:${addr.port}`;
});
afterAll(() => app.close());

/** Opens a streaming read, waits for the first bytes, returns the query id and the live request. */
function openStream(
  path: string,
): Promise<{ id: string; req: http.ClientRequest; res: http.IncomingMessage; first: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${base}${path}`, (res) => {
      res.setEncoding('utf8');
      res.once('data', (first: string) => {
        res.pause();
        resolve({ id: res.headers['x-trino-query-id'] as string, req, res, first });
      });
    });
    req.on('error', reject);
  });
}

describe('cancel on disconnect', () => {
  it('cancels the Trino query within a couple of seconds of the client going away', async () => {
    // Every row of the window unsorted: they stream as Trino scans them, instead of after a sort of all 400k (some
    // 10 CPU-seconds).
    const { id, req } = await openStream(
      '/v1/topics/clicks/events?format=ndjson&until=2026-11-02T00:00:00Z&limit=all&order=none',
    );
    expect(id).toBeTruthy();
    expect((await queryState(id)).state).not.toBe('FINISHED'); // still streaming: the client has not read on
    const t0 = Date.now();
    req.destroy();
    let s = await queryState(id);
    while (s.state !== 'FAILED' && Date.now() - t0 < 15_000) {
      await new Promise((r) => setTimeout(r, 100));
      s = await queryState(id);
    }
    // The cause: cancelled by the gateway (USER_CANCELED), not ended by a limit. The time is the contract (a couple of
    // seconds, the gateway's DELETE at once); the margin is wide, for a busy machine.
    expect(s).toEqual({ state: 'FAILED', error: 'USER_CANCELED' });
    expect(Date.now() - t0).toBeLessThan(10_000);
  });

  it('a client that reads to the end finishes the query normally', async () => {
    const { id, res, first } = await openStream('/v1/topics/orders/events?format=ndjson&limit=10');
    let body = first;
    res.on('data', (c: string) => (body += c));
    res.resume();
    await new Promise((r) => res.on('end', r));
    expect(body.endsWith('\n\n')).toBe(true);
    expect(body.split('\n').filter(Boolean).length).toBe(1); // the bulk schema's orders holds one event
    expect((await queryState(id)).state).toBe('FINISHED');
  });
});
