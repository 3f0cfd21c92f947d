/**
 * A client that goes away from `/mcp` while a tool runs gets the tool's query cancelled in the real Trino (read back
 * from system.runtime.queries), as a REST read's is (cancel-small-queries.test.ts): the gateway reaches Trino through
 * a proxy that stalls the tool's result pages, so the query stays unfinished until something cancels it, and only a
 * cancel fails it with USER_CANCELED. The gateway serves the next call.
 */
import http from 'node:http';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/server/app.js';
import { StallProxy, type Submitted } from '../stall-proxy.js';
import { queryState, testConfig, trinoUrl } from '../helpers.js';

let proxy: StallProxy;
let app: FastifyInstance;
let base: string;

beforeAll(async () => {
  proxy = new StallProxy(trinoUrl());
  app = await buildApp(testConfig({ TOPICGATE_TRINO_URL: await proxy.start() }), { logger: false });
  base = await app.listen({ host: '127.0.0.1', port: 0 });
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

const call = (id: number, name: string, args: Record<string, unknown>) =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const WINDOW = { since: '2026-11-01T00:00:00Z', until: '2026-11-02T00:00:00Z' };

describe('a client that goes away from /mcp cancels its tool’s query', () => {
  it('count: the stalled query ends USER_CANCELED, and the next call is answered', async () => {
    const stalled = (q: Submitted) => q.sql.includes('count(*)') && q.sql.includes('2026-11-01 00:00:00');
    const before = proxy.submitted.length;
    proxy.hold = stalled;
    const req = http.request(`${base}/mcp`, { method: 'POST', headers: HEADERS });
    req.on('error', () => undefined); // destroyed on purpose
    req.end(call(1, 'count', { topic: 'orders', ...WINDOW }));
    const q = await proxy.seen((s) => proxy.submitted.indexOf(s) >= before && stalled(s));
    // Unfinished while its results are not taken: nothing but a cancel ends it.
    await new Promise((r) => setTimeout(r, 500));
    const running = await state(q.id);
    req.destroy();
    const t0 = Date.now();
    let final = await state(q.id);
    while (final[0] !== 'FAILED' && Date.now() - t0 < 10_000) {
      await new Promise((r) => setTimeout(r, 100));
      final = await state(q.id);
    }
    proxy.hold = () => false;
    expect(['QUEUED', 'PLANNING', 'STARTING', 'RUNNING', 'FINISHING']).toContain(running[0]);
    expect(final).toEqual(['FAILED', 'USER_CANCELED']);
    const next = await fetch(`${base}/mcp`, { method: 'POST', headers: HEADERS, body: call(2, 'list_topics', {}) });
    expect(next.status).toBe(200);
    const answer = (await next.json()) as { result: { isError?: boolean; content: { text: string }[] } };
    expect(answer.result.isError).toBeUndefined();
    expect(answer.result.content[0]!.text).toContain('"orders"');
  });
});
