/**
 * Quotas and connection limits on a listening gateway over the real Trino: a burst gets
 * 429 TG_TOO_MANY_REQUESTS with Retry-After (requests per minute, and concurrent queries per caller); a request
 * body sent one byte a second is cut off; a client that stops reading gets its Trino query cancelled.
 */
import { connect } from 'node:net';
import http from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { buildApp } from '../../src/server/app.js';
import { apiKeyHash } from '../../src/access/api-keys.js';
import { HttpTrino } from '../../src/trino/http-trino.js';
import { testConfig, trinoUrl } from '../helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'topicgate-limits-'));
const KEY = 'key-burst-00000000000000000000000';
const BULK = 'bulk|kafka_topics';
const apps: FastifyInstance[] = [];
afterAll(async () => {
  for (const a of apps) await a.close();
  rmSync(dir, { recursive: true, force: true });
});

async function gateway(yaml: object, env: Record<string, string> = {}) {
  const file = join(dir, `${apps.length}.yaml`);
  writeFileSync(file, stringify(yaml));
  const app = await buildApp(testConfig({ TOPICGATE_CONFIG: file, ...env }), { logger: false });
  apps.push(app);
  await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, base: `http://127.0.0.1:${(app.server.address() as { port: number }).port}` };
}

const AUTH = { apiKeys: [{ principal: 'burst-1', sha256: apiKeyHash(KEY), roles: ['r'] }] };

describe('429 with Retry-After under a burst', () => {
  it('requests per minute, per principal', async () => {
    const { base } = await gateway({ auth: AUTH, limits: { requestsPerMinute: 5 } });
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    const results = await Promise.all(
      Array.from({ length: 12 }, () => fetch(`${base}/v1/topics`, { headers: { 'x-api-key': KEY } })),
    );
    for (const r of results) {
      statuses.push(r.status);
      if (r.status === 429) {
        retryAfter = r.headers.get('retry-after');
        expect(((await r.json()) as { error: { code: string } }).error.code).toBe('TG_TOO_MANY_REQUESTS');
      } else await r.arrayBuffer();
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(7);
    expect(Number(retryAfter)).toBeGreaterThan(0);
  });

  it('concurrent queries per principal, with a short queue', async () => {
    const { base } = await gateway({
      auth: AUTH,
      limits: { concurrentQueries: 1, queuedQueries: 1, queueWaitMs: 200 },
    });
    const url = `${base}/v1/topics/orders/events?since=2026-11-01T00:00:00Z&until=2026-11-04T00:00:00Z&limit=5000&format=ndjson`;
    const results = await Promise.all(Array.from({ length: 6 }, () => fetch(url, { headers: { 'x-api-key': KEY } })));
    const refused = results.filter((r) => r.status === 429);
    expect(refused.length).toBeGreaterThan(0);
    expect(results.filter((r) => r.status === 200).length).toBeGreaterThan(0);
    for (const r of refused) {
      expect(r.headers.get('retry-after')).toBe('1');
      // Past the one waiting, the queue is full; the one waiting waited 200 ms for the caller's slot.
      const { error } = (await r.json()) as { error: { code: string; message: string; details: { limit: string } } };
      expect(error.code).toBe('TG_TOO_MANY_REQUESTS');
      expect(['queuedQueries', 'concurrentQueries']).toContain(error.details.limit);
      expect(error.message).toContain(`limits.${error.details.limit}`);
    }
    for (const r of results) if (r.status === 200) await r.text();
  });
});

describe('connections', () => {
  it('a request body sent one byte a second is cut off at the request timeout', async () => {
    const { base } = await gateway({}, { TOPICGATE_REQUEST_TIMEOUT: '2s' });
    const port = Number(new URL(base).port);
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.on('data', (d) => {
      answer += d.toString();
    });
    const t0 = Date.now();
    socket.write(
      'POST /v1/topics/orders/query HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 50\r\n\r\n{',
    );
    const drip = setInterval(() => socket.writable && socket.write(' '), 1000);
    await new Promise((resolve) => socket.on('close', resolve));
    clearInterval(drip);
    expect(Date.now() - t0).toBeLessThan(10_000); // cut at 2 s; a wide margin, for a busy machine
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer).toContain('"TG_REQUEST_TIMEOUT"');
  });

  it('a client that stops reading gets its Trino query cancelled (system.runtime.queries)', async () => {
    const trino = new HttpTrino({ server: trinoUrl(), user: 'test' });
    const { base } = await gateway(
      {},
      {
        TOPICGATE_WRITE_IDLE_TIMEOUT: '1s',
        TOPICGATE_PREFETCH_ROWS: '0',
        TOPICGATE_MAX_LIMIT: '1000000',
        TOPICGATE_SCHEMAS: BULK,
        // The direct protocol: Trino's buffers fill and the query waits for the stalled client. Over spooling, an
        // idle machine writes every segment of these 400k rows within the second, the query is FINISHED before
        // the cut, and only its segments are left to clean up (spooling.test.ts covers that case).
        TOPICGATE_TRINO_ENCODING: 'none',
      },
    );
    const { id, res } = await new Promise<{ id: string; res: http.IncomingMessage }>((resolve, reject) => {
      // Unsorted: the rows stream as Trino scans them, instead of after a sort of all 400k (some 10 CPU-seconds).
      const req = http.get(
        `${base}/v1/topics/clicks/events?format=ndjson&until=2026-11-02T00:00:00Z&limit=all&order=none`,
        (res) => {
          res.once('data', () => {
            res.pause(); // and never read again
            resolve({ id: res.headers['x-trino-query-id'] as string, res });
          });
        },
      );
      req.on('error', reject);
    });
    const state = async () =>
      (
        await trino.all(
          `SELECT state, error_code FROM system.runtime.queries WHERE query_id = '${id.replace(/\W/g, '')}'`,
        )
      ).rows[0] as [string, string | null];
    const t0 = Date.now();
    let s = await state();
    while (s[0] !== 'FAILED' && Date.now() - t0 < 15_000) {
      await new Promise((r) => setTimeout(r, 200));
      s = await state();
    }
    expect(s).toEqual(['FAILED', 'USER_CANCELED']);
    res.destroy();
  });
});
