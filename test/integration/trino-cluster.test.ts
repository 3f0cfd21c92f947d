/**
 * The gateway on a Trino cluster as production runs it: a coordinator that schedules no work and two workers
 * (scripts/local-trino-cluster.ts, started once per run by the global setup). Read sessions and `parallel` slices put
 * tasks on both workers, as Trino's own system.runtime.tasks says per query; results come as segments the workers
 * spooled to S3, which the gateway reads to the same bytes as the direct protocol gives.
 *
 * Then, last (one file, so no other test reads the cluster meanwhile), workers lost: one killed with SIGKILL as soon
 * as it holds a running task of reads in flight (a page, `limit=all`, a session stream) of the Iceberg copy in the
 * lake, which any worker can read. Every read with a task on the dead worker ends visibly cut (never a short body
 * that looks complete), its query ends failed in Trino, and the next reads are whole on the other worker. With no
 * worker left, reads and `/readyz` (TOPICGATE_TRINO_MIN_WORKERS=1) answer 503 TG_TRINO_UNAVAILABLE with Retry-After.
 */
import { existsSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { buildApp } from '../../src/server/app.js';
import { loadConfig } from '../../src/server/load-config.js';
import { startServer } from '../../src/server.js';
import { HttpTrino } from '../../src/trino/http-trino.js';
import { testConfig } from '../helpers.js';
import { createSession, readStream } from '../session-reads.js';
import { queryState, untilTrue } from '../follow-client.js';
import { CLUSTER_CLICKS_ROWS, clusterReady, MEMORY_SCHEMA, SHARED_SCHEMA } from '../trino-cluster-services.js';
import { completeRows, gatewayQueries, newQuery, readAll, taskNodes } from '../trino-cluster-reads.js';
import { nodePid, startNode, untilWorkers, type ClusterLayout } from '../../scripts/local-trino-cluster.js';

const WINDOW = { since: '2026-11-01T00:00:00Z', until: '2026-11-03T00:00:00Z' };
const WINDOW_QUERY = `since=${WINDOW.since}&until=${WINDOW.until}`;
let c: ClusterLayout;
let trino: HttpTrino;
const apps: Record<'spooled' | 'direct', FastifyInstance | undefined> = { spooled: undefined, direct: undefined };
/** A gateway over the lake's copy, listening (the loss tests' reads are real HTTP responses). */
let lakeGateway: { app: FastifyInstance; url: string } | undefined;

beforeAll(async () => {
  c = await clusterReady();
  trino = new HttpTrino({ server: c.url, user: 'cluster-test' });
  const env = { TOPICGATE_TRINO_URL: c.url, TOPICGATE_SCHEMAS: MEMORY_SCHEMA };
  apps.spooled = await buildApp(testConfig(env), { logger: false });
  apps.direct = await buildApp(testConfig({ ...env, TOPICGATE_TRINO_ENCODING: 'none' }), { logger: false });
  lakeGateway = await startServer(
    loadConfig({
      TOPICGATE_TRINO_URL: c.url,
      TOPICGATE_CATALOG: 'lake',
      TOPICGATE_SCHEMAS: SHARED_SCHEMA,
      TOPICGATE_STATE_URL: 'sqlite::memory:',
      TOPICGATE_MAX_LIMIT: String(CLUSTER_CLICKS_ROWS),
      TOPICGATE_PORT: '0',
      TOPICGATE_LOG_LEVEL: 'silent',
      TOPICGATE_MAX_EVENT_LOOP_DELAY_MS: '0',
      // The direct protocol: a result flows from the workers' output buffers as the client reads. Spooled, the
      // workers finish writing segments to storage without waiting for the client, and a worker lost after that
      // takes nothing with it (docs/trino.md, "Trino as a cluster").
      TOPICGATE_TRINO_ENCODING: 'none',
      TOPICGATE_TRINO_MIN_WORKERS: '1',
    }),
  );
}, 300_000);

afterAll(async () => {
  await Promise.all([apps.spooled?.close(), apps.direct?.close(), lakeGateway?.app.close()]);
  // A cluster this run started is stopped by its teardown; one that was running before gets its workers back.
  if (existsSync(`${inject('clusterFile')}.started`)) return;
  const dead = c.workers.filter((w) => nodePid(w) === undefined);
  for (const w of dead) await startNode(c, w);
  if (dead.length) await untilWorkers(c, (ids) => c.workers.every((w) => ids.includes(w.nodeId)));
}, 300_000);

/** Runs `read` and returns the nodes that ran tasks of the gateway's queries of `table` it sent. */
async function nodesOf(table: string, read: () => Promise<void>): Promise<Set<string>> {
  const before = new Set(await gatewayQueries(trino, table));
  await read();
  const ids = (await gatewayQueries(trino, table)).filter((id) => !before.has(id));
  expect(ids.length).toBeGreaterThan(0);
  return taskNodes(trino, ids);
}

const workerIds = () => new Set(c.workers.map((w) => w.nodeId));

describe('work spread over the workers, none on the coordinator', () => {
  it('a read session: its streams run tasks on both workers', async () => {
    const app = apps.spooled!;
    const nodes = await nodesOf('clicks', async () => {
      const s = await createSession(app, 'clicks', { ...WINDOW, streams: 4 });
      await Promise.all(s.streams.map((x) => readStream(app, x.url, 'ndjson')));
    });
    expect(nodes).toEqual(workerIds());
  });

  it('parallel slices of a limit=all read: tasks on both workers', async () => {
    const nodes = await nodesOf('orders', async () => {
      const res = await apps.spooled!.inject(
        `/v1/topics/orders/events?${WINDOW_QUERY}&limit=all&parallel=3&format=ndjson`,
      );
      expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
      expect(res.body.endsWith('\n\n')).toBe(true);
    });
    expect(nodes).toEqual(workerIds());
  });

  it('the Iceberg copy in the lake counts as the memory topic', async () => {
    const [[lake]] = (await trino.all(`SELECT count(*) FROM lake."${SHARED_SCHEMA}".clicks`)).rows as [[number]];
    expect(Number(lake)).toBe(CLUSTER_CLICKS_ROWS);
  });
});

/** The raw protocol: the segment kinds of every page of `sql` asked for in json+zstd, and its query id. */
async function rawSegments(sql: string): Promise<{ id: string; kinds: string[] }> {
  const headers = { 'X-Trino-User': 'cluster-test', 'X-Trino-Query-Data-Encoding': 'json+zstd' };
  type Page = { id: string; nextUri?: string; data?: { segments: { type: string }[] } };
  let page = (await (await fetch(`${c.url}/v1/statement`, { method: 'POST', headers, body: sql })).json()) as Page;
  const kinds: string[] = [];
  for (;;) {
    for (const s of page.data?.segments ?? []) kinds.push(s.type);
    if (!page.nextUri) return { id: page.id, kinds };
    page = (await (await fetch(page.nextUri, { headers })).json()) as Page;
  }
}

describe('segments spooled by the workers', () => {
  it('a large result is spooled by worker tasks alone, and the gateway reads it to the direct bytes', async () => {
    const raw = await rawSegments(`SELECT * FROM vast."${MEMORY_SCHEMA}".clicks`);
    expect(raw.kinds).toContain('spooled');
    // The coordinator runs no task (node-scheduler.include-coordinator=false): the segments are the workers'.
    expect(await taskNodes(trino, [raw.id])).toEqual(workerIds());
    const url = `/v1/topics/clicks/events?${WINDOW_QUERY}&limit=all&format=ndjson`;
    const [spooled, direct] = await Promise.all([apps.spooled!.inject(url), apps.direct!.inject(url)]);
    expect(spooled.statusCode).toBe(200);
    expect(spooled.body.endsWith('\n\n')).toBe(true);
    expect(spooled.body.split('\n').length - 2).toBe(CLUSTER_CLICKS_ROWS);
    expect(spooled.rawPayload.equals(direct.rawPayload)).toBe(true);
  });
});

const READS = {
  page: `/v1/topics/clicks/events?${WINDOW_QUERY}&limit=${CLUSTER_CLICKS_ROWS}&format=ndjson`,
  'limit=all': `/v1/topics/clicks/events?${WINDOW_QUERY}&limit=all&format=ndjson`,
  'session stream': '',
};

async function sessionStreamUrl(): Promise<string> {
  const res = await fetch(`${lakeGateway!.url}/v1/topics/clicks/sessions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...WINDOW, streams: 1 }),
  });
  expect(res.status).toBe(201);
  const s = (await res.json()) as { streams: { url: string }[] };
  return `${s.streams[0]!.url}&format=ndjson`;
}

describe('a worker killed while reads are in flight', () => {
  it('the shared copy reads whole before any loss, and the gateway is ready', async () => {
    expect((await fetch(`${lakeGateway!.url}/readyz`)).status).toBe(200);
    const r = await readAll(`${lakeGateway!.url}${READS['limit=all']}`);
    expect(completeRows(r)).toBe(CLUSTER_CLICKS_ROWS);
  });

  it(
    'a read whose query the dead worker fails is cut visibly, never short, and the next read is whole',
    { timeout: 240_000 },
    async () => {
      const known = new Set<string>();
      const kinds = Object.keys(READS) as (keyof typeof READS)[];
      const urls = await Promise.all(
        kinds.map(async (k) => `${lakeGateway!.url}${k === 'session stream' ? await sessionStreamUrl() : READS[k]}`),
      );
      const reads = urls.map(readAll);
      const queries: string[] = [];
      for (const _ of kinds) queries.push(await newQuery(trino, 'clicks', known));
      // As soon as a worker holds an unfinished task of a read, it dies: that read is then in flight on it.
      let nodes: Set<string>[] = [];
      await untilTrue(
        async () => {
          nodes = await Promise.all(queries.map((q) => taskNodes(trino, [q], true)));
          return nodes.some((n) => c.workers.some((w) => n.has(w.nodeId)));
        },
        60_000,
        'a read has a task on a worker',
      );
      const victim = c.workers
        .map((w) => ({ w, n: nodes.filter((s) => s.has(w.nodeId)).length }))
        .sort((a, b) => b.n - a.n)[0]!.w;
      process.kill(nodePid(victim)!, 'SIGKILL');
      const outcomes = await Promise.all(reads);
      const cut: string[] = [];
      for (const [i, kind] of kinds.entries()) {
        const rows = completeRows(outcomes[i]!);
        // Never short: a body either says it is complete and holds every row, or is visibly cut.
        if (rows !== undefined) expect(rows, kind).toBe(CLUSTER_CLICKS_ROWS);
        // A read is cut exactly when its query failed (a task it still needed was on the dead worker).
        let state = '';
        await untilTrue(
          async () => ['FINISHED', 'FAILED'].includes((state = (await queryState(trino, queries[i]!)).state)),
          120_000,
          `${kind} ended in Trino`,
        );
        expect(rows === undefined, `${kind}: query ${state}, body ${rows === undefined ? 'cut' : 'whole'}`).toBe(
          state === 'FAILED',
        );
        if (state === 'FAILED') cut.push(`${kind} (${outcomes[i]!.status})`);
      }
      expect(cut.length).toBeGreaterThan(0);
      process.stderr.write(`[cluster-loss] killed ${victim.name}: cut ${cut.join(', ')}\n`);
      await untilWorkers(c, (ids) => !ids.includes(victim.nodeId));
      for (const path of [READS.page, READS['limit=all']]) {
        expect(completeRows(await readAll(`${lakeGateway!.url}${path}`))).toBe(CLUSTER_CLICKS_ROWS);
      }
    },
  );

  it(
    'with no worker left, reads and /readyz answer 503 TG_TRINO_UNAVAILABLE with Retry-After',
    { timeout: 120_000 },
    async () => {
      for (const w of c.workers) {
        const pid = nodePid(w);
        if (pid !== undefined) process.kill(pid, 'SIGKILL');
      }
      await untilWorkers(c, (ids) => ids.length === 0);
      const res = await fetch(`${lakeGateway!.url}${READS.page}`);
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('TG_TRINO_UNAVAILABLE');
      const ready = await fetch(`${lakeGateway!.url}/readyz`);
      expect(ready.status).toBe(503);
      expect(ready.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(await ready.json()).toMatchObject({
        error: { code: 'TG_TRINO_UNAVAILABLE', details: { trino: 'without workers' } },
      });
    },
  );
});
