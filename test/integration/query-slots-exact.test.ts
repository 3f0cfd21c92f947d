/**
 * `maxConcurrentQueries` holds in Trino's own view (system.runtime.queries, what the load test samples), over the
 * real Trino: with a limit of one, a client that goes away frees the slot for a waiting read only once Trino has
 * answered the cancellation of its query. A proxy in front of Trino holds every cancellation (DELETE) back for a
 * while, as a busy Trino answers it late, so a slot handed on before the answer would show two queries running.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { buildApp } from '../../src/server/app.js';
import { HttpTrino } from '../../src/trino/http-trino.js';
import { demoStatements } from '../../scripts/demo-data.js';
import { testConfig, trinoUrl } from '../helpers.js';

const BULK = 'bulk|kafka_topics';
/** The gateway's Trino user, this file's own: only its queries are counted. */
const USER = `slots-exact-${process.pid}`;
const DELETE_DELAY_MS = 1_500;
const WINDOW = 'since=2026-11-01T00:00:00Z&until=2026-12-01T00:00:00Z';
const dir = mkdtempSync(join(tmpdir(), 'topicgate-slots-exact-'));
const checker = new HttpTrino({ server: trinoUrl(), user: 'slots-exact-check' });
let app: FastifyInstance;
let base: string;

/** What the proxy could not forward: a lost DELETE would free a slot early for a reason outside the gateway. */
const proxyErrors: string[] = [];
/** A new connection to Trino per request: none is reused after Trino has closed it (a DELETE lost on the way). */
const upstream = new http.Agent({ keepAlive: false });

/** Forwards to Trino, keeping Host (Trino writes it into nextUri); a DELETE is forwarded only after a delay. */
const proxy = http.createServer((req, res) => {
  const forward = () => {
    const url = new URL(req.url ?? '/', trinoUrl());
    const up = http.request(url, { method: req.method, headers: req.headers, agent: upstream }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    up.on('error', (err) => {
      proxyErrors.push(`${req.method} ${url.pathname}: ${err.message}`);
      res.destroy();
    });
    req.pipe(up);
  };
  if (req.method === 'DELETE') setTimeout(forward, DELETE_DELAY_MS);
  else forward();
});

beforeAll(async () => {
  // A result larger than Trino's buffers (as in query-slots.test.ts), so a read stays open while its client pauses.
  const have = await checker.all(`SELECT count(*) FROM vast."${BULK}".clicks`).then(
    (r) => Number(r.rows[0]![0]),
    () => 0,
  );
  if (have !== 400_400) {
    for (const stmt of demoStatements({ orders: 1, clicks: 400_000, s3_events: 1 }, 'vast', BULK))
      await checker.all(stmt, { timeoutMs: 600_000 });
  }
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  const file = join(dir, 'slots.yaml');
  writeFileSync(file, stringify({ limits: { maxConcurrentQueries: 1, queuedQueries: 4, queueWaitMs: 30_000 } }));
  app = await buildApp(
    testConfig({
      TOPICGATE_CONFIG: file,
      TOPICGATE_SCHEMAS: BULK,
      TOPICGATE_TRINO_URL: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
      TOPICGATE_TRINO_USER: USER,
      // Direct pages: a paused client keeps its query running in Trino (spooled, Trino would finish it).
      TOPICGATE_TRINO_ENCODING: 'none',
      TOPICGATE_PREFETCH_ROWS: '0',
    }),
    { logger: false },
  );
  base = await app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(async () => {
  await app?.close();
  proxy.closeAllConnections();
  await new Promise((r) => proxy.close(r));
  upstream.destroy();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * Queries of the gateway's user Trino lists as not over, but for its catalog lookups (read/topic-catalog.ts): those
 * take no query slot (a listing past its time reloads in the background, and a CI run once saw one beside a read).
 */
async function runningQueries(): Promise<string[]> {
  const { rows } = await checker.all(
    `SELECT query_id, state, created FROM system.runtime.queries WHERE "user" = '${USER}' ` +
      `AND state NOT IN ('FINISHED', 'FAILED') AND query NOT LIKE '%.information_schema.%'`,
  );
  return rows.map((r) => r.join(' '));
}

async function running(): Promise<number> {
  return (await runningQueries()).length;
}

/** Samples the running queries until stopped; the largest set seen (its ids, states and creation times). */
function sampler() {
  let on = true;
  let most: string[] = [];
  const loop = (async () => {
    while (on) {
      const now = await runningQueries();
      if (now.length > most.length) most = now;
    }
  })();
  return {
    stop: async () => {
      on = false;
      await loop;
      return most;
    },
  };
}

/** A bulk read whose client stops reading after the first bytes; resolves once they came. */
function stalledRead(): Promise<http.ClientRequest> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${base}/v1/topics/clicks/events?${WINDOW}&limit=all&format=ndjson`, (res) => {
      if (res.statusCode !== 200) reject(new Error(`status ${res.statusCode}`));
      res.once('data', () => {
        res.pause();
        resolve(req);
      });
    });
    req.on('error', () => undefined); // destroyed on purpose
  });
}

describe('query slots in Trino', () => {
  it("a client gone: the waiting read's query starts once Trino has cancelled the gone one's", async () => {
    const first = await stalledRead();
    expect(await running()).toBe(1);
    // The next read waits for the gateway's one slot.
    const next = stalledRead();
    await new Promise((r) => setTimeout(r, 300));
    expect(app.access.queries.waiting()).toBe(1);
    const seen = sampler();
    first.destroy();
    const second = await next;
    // The second read's query runs now; Trino listed at most one query of the gateway throughout.
    await new Promise((r) => setTimeout(r, 500));
    second.destroy();
    const most = await seen.stop();
    expect(most, `most queries seen at once: ${most.join('; ')}`).toHaveLength(1);
    expect(proxyErrors).toEqual([]);
    for (let i = 0; i < 50 && (await running()) > 0; i++) await new Promise((r) => setTimeout(r, 200));
    expect(await running()).toBe(0);
  });
});
