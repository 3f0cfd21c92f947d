/**
 * The gateway on a Trino cluster as production runs it: a coordinator that schedules no work and two workers
 * (scripts/local-trino-cluster.ts, started once per run by the global setup). Read sessions and `parallel` slices put
 * tasks on both workers, as Trino's own system.runtime.tasks says per query; results come as segments the workers
 * spooled to S3, which the gateway reads to the same bytes as the direct protocol gives.
 *
 * A load run's INSERT (the lake's copy into `sink`, the cluster's second Iceberg catalog) runs tasks on both too.
 *
 * Then, last (one file, so no other test reads the cluster meanwhile), workers lost: one killed with SIGKILL while
 * every kind of work is in flight on the Iceberg copy in the lake, which any worker can read: a page, `limit=all`, a
 * session stream and a follow, each held by its client with a task on a worker, and a load run whose INSERT runs on
 * the one killed. Each is cut exactly when a query of it failed in Trino (never a short body that looks complete, a
 * follow that skips, a run marked committed with rows missing); then the reads are whole on the other worker, the
 * follow resumed from its last id gets exactly the rest, and the load run again lands every event exactly once.
 * With no worker left, reads and `/readyz` (TOPICGATE_TRINO_MIN_WORKERS=1) answer 503 TG_TRINO_UNAVAILABLE with
 * Retry-After.
 */
import { existsSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { buildApp } from '../../src/server/app.js';
import { HttpTrino } from '../../src/trino/http-trino.js';
import { testConfig } from '../helpers.js';
import { createSession, readStream } from '../session-reads.js';
import { untilTrue } from '../follow-client.js';
import { CLUSTER_CLICKS_ROWS, clusterReady, MEMORY_SCHEMA, SHARED_SCHEMA } from '../trino-cluster-services.js';
import { completeRows, gatewayQueries, readAll, taskNodes } from '../trino-cluster-reads.js';
import { ResultGate } from '../trino-cluster-gate.js';
import {
  as,
  compareTarget,
  defineLoad,
  dropLoadTarget,
  failedQueries,
  isInsert,
  KINDS,
  kindQueries,
  lastRun,
  liveByKind,
  principalOf,
  queriesSoFar,
  runLoad,
  sseBlocks,
  startLakeGateway,
  type ReadKind,
  victimOf,
  type LakeGateway,
  wholeRows,
} from '../trino-cluster-loss.js';
import { clusterDown, nodePid, startNode, untilWorkers } from '../../scripts/local-trino-cluster.js';
import type { ClusterLayout } from '../../scripts/local-trino-cluster.js';

const WINDOW = { since: '2026-11-01T00:00:00Z', until: '2026-11-03T00:00:00Z' };
const WINDOW_QUERY = `since=${WINDOW.since}&until=${WINDOW.until}`;
/** The load's first run lands the events before this; the run killed later lands the rest. */
const SPLIT = '2026-11-01T00:15:00Z';
/** The ends of the load runs tried during the loss, each until one's INSERT runs on the worker killed. */
const KILL_UNTILS = ['00:35', '00:55', '01:15', '01:35'].map((t) => `2026-11-01T${t}:00Z`);
let c: ClusterLayout;
let trino: HttpTrino;
const apps: Record<'spooled' | 'direct', FastifyInstance | undefined> = { spooled: undefined, direct: undefined };
/** A gateway over the lake's copy, one API key per kind of work (test/trino-cluster-loss.ts), through the gate. */
let lakeGateway: LakeGateway | undefined;
let gate: ResultGate | undefined;

beforeAll(async () => {
  c = await clusterReady();
  trino = new HttpTrino({ server: c.url, user: 'cluster-test' });
  const env = { TOPICGATE_TRINO_URL: c.url, TOPICGATE_SCHEMAS: MEMORY_SCHEMA };
  apps.spooled = await buildApp(testConfig(env), { logger: false });
  apps.direct = await buildApp(testConfig({ ...env, TOPICGATE_TRINO_ENCODING: 'none' }), { logger: false });
  gate = new ResultGate(c.url, new Set(READ_KINDS.map(principalOf)));
  lakeGateway = await startLakeGateway(await gate.start());
}, 300_000);

afterAll(async () => {
  await Promise.all([apps.spooled?.close(), apps.direct?.close(), lakeGateway?.app.close()]);
  await gate?.stop();
  // A cluster this run started stops as soon as its one file is done; one that was running gets its workers back.
  if (existsSync(`${inject('clusterFile')}.started`)) return void (await clusterDown(c));
  const dead = c.workers.filter((w) => nodePid(w) === undefined);
  for (const w of dead) await startNode(c, w);
  if (dead.length) await untilWorkers(c, (ids) => c.workers.every((w) => ids.includes(w.nodeId)));
  await dropLoadTarget(trino);
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

  it('a load run: its INSERT runs tasks on both workers, and lands its window exactly', async () => {
    expect(await defineLoad(lakeGateway!)).toBe(201);
    const r = await runLoad(lakeGateway!, SPLIT);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.outcome).toBe('committed');
    const ids = new Set((r.body.run as { queryIds: string[] }).queryIds);
    const insert = (await kindQueries(trino, 'load')).filter((q) => ids.has(q.id) && isInsert(q));
    expect(insert.map((q) => q.state)).toEqual(['FINISHED']);
    // The workers read and write the events; the coordinator only commits the files they wrote (its table finish).
    const nodes = [...(await taskNodes(trino, [insert[0]!.id]))];
    expect(nodes.filter((n) => workerIds().has(n))).toEqual(expect.arrayContaining([...workerIds()]));
    const landed = await compareTarget(trino, SPLIT);
    expect(landed).toMatchObject({ missing: 0, extra: 0, rows: r.body.rows });
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
  follow: `/v1/topics/clicks/events?follow=true&${WINDOW_QUERY}`,
};
const READ_KINDS = KINDS.filter((k): k is ReadKind => k !== 'load');
const headersOf = (k: ReadKind) => ({ ...as(k), ...(k === 'follow' && { accept: 'text/event-stream' }) });

async function sessionStreamUrl(): Promise<string> {
  const res = await fetch(`${lakeGateway!.url}/v1/topics/clicks/sessions`, {
    method: 'POST',
    headers: { ...as('session stream'), 'content-type': 'application/json' },
    body: JSON.stringify({ ...WINDOW, streams: 1 }),
  });
  expect(res.status).toBe(201);
  const s = (await res.json()) as { streams: { url: string }[] };
  return `${s.streams[0]!.url}&format=ndjson`;
}

describe('a worker killed while every kind of work is in flight', () => {
  it('the shared copy reads whole before any loss, and the gateway is ready', async () => {
    expect((await fetch(`${lakeGateway!.url}/readyz`)).status).toBe(200);
    const r = await readAll(`${lakeGateway!.url}${READS['limit=all']}`, as('limit=all'));
    expect(completeRows(r)).toBe(CLUSTER_CLICKS_ROWS);
  });

  it(
    'each is cut exactly when a query of it failed, never short; then reads are whole, the follow resumes exactly and the load lands once',
    { timeout: 240_000 },
    async () => {
      const base = lakeGateway!.url;
      const urls = { ...READS, 'session stream': await sessionStreamUrl() };
      const skip = await queriesSoFar(trino);
      gate!.close();
      const reads = READ_KINDS.map((k) => readAll(`${base}${urls[k]}`, headersOf(k)));
      // Every read with a task on a worker, its results waiting at the gate: in flight there.
      const live = () => liveByKind(trino, skip);
      const reading = async () => [...(await live())].every(([k, nodes]) => k === 'load' || nodes.size > 0);
      await untilTrue(reading, 60_000, 'every read has a task on a worker');
      // Then load runs, each to a later `until`, until one's INSERT runs on the follow's worker: that worker dies.
      let victim: ClusterLayout['workers'][number] | undefined;
      let run: ReturnType<typeof runLoad> | undefined;
      for (const until of KILL_UNTILS) {
        let ended = false;
        run = runLoad(lakeGateway!, until).finally(() => (ended = true));
        const found = async () => (victim = victimOf(await live(), c.workers)) !== undefined || ended;
        await untilTrue(found, 60_000, 'the load run ended');
        if (victim) break;
        // Missed: this run committed whole, as any run the loss does not reach.
        expect((await run).body).toMatchObject({ outcome: 'committed' });
      }
      expect(victim, "no load run's INSERT ran on the follow's worker").toBeDefined();
      process.kill(nodePid(victim!)!, 'SIGKILL');
      gate!.open();
      const outcomes = await Promise.all(reads);
      const cut: string[] = [];
      for (const [i, k] of READ_KINDS.entries()) {
        const rows = wholeRows(k, outcomes[i]!);
        // Never short: a body either says it is whole and holds every row, or is visibly cut.
        if (rows !== undefined) expect(rows, k).toBe(CLUSTER_CLICKS_ROWS);
        // Cut exactly when a query of it failed (a task it still needed was on the dead worker).
        const failed = await failedQueries(trino, k, skip);
        expect(
          rows === undefined,
          `${k}: ${failed.length} failed queries, body ${rows === undefined ? 'cut' : 'whole'}`,
        ).toBe(failed.length > 0);
        if (failed.length) cut.push(`${k} (${outcomes[i]!.status}, ${failed.map((q) => q.error).join(' ')})`);
      }
      // The follow names why it ends: an error event, and no whole event after it.
      const follow = sseBlocks(outcomes[READ_KINDS.indexOf('follow')]!.body.toString());
      if (cut.some((x) => x.startsWith('follow'))) expect(follow.events.at(-1)?.event).toBe('error');
      // The load run: its record says failed exactly when a statement of it failed in Trino, and then so does its
      // answer; committed, its answer is a 200 and it holds its whole window (the last comparison), even when a loss
      // after the commit failed the count of its lag (the answer then leaves the lag out).
      const loaded = await run!;
      const record = await lastRun(lakeGateway!);
      const own = (await failedQueries(trino, 'load', skip)).filter((q) => record.queryIds.includes(q.id));
      expect(record.outcome, JSON.stringify(record)).toBe(own.length > 0 ? 'failed' : 'committed');
      expect(loaded.status === 200, JSON.stringify(loaded.body)).toBe(own.length === 0);
      if (own.length) cut.push(`load (${loaded.status}, ${own.map((q) => q.error).join(' ')})`);
      // The follow held on the dead worker by the gate cannot have finished: it is cut.
      expect(cut.some((x) => x.startsWith('follow'))).toBe(true);
      process.stderr.write(`[cluster-loss] killed ${victim!.name}: cut ${cut.join(', ')}\n`);
      await untilWorkers(c, (ids) => !ids.includes(victim!.nodeId));

      // On the other worker, at once: every read whole again, the follow resumed after its last id gets exactly the
      // rest, and the load run again lands the window.
      const resumeFrom = { ...headersOf('follow'), 'last-event-id': follow.lastId! };
      const [again, resumed, rerun] = await Promise.all([
        Promise.all((['page', 'limit=all', 'session stream'] as const).map((k) => readAll(`${base}${urls[k]}`, as(k)))),
        readAll(`${base}${urls.follow}`, resumeFrom),
        runLoad(lakeGateway!, WINDOW.until),
      ]);
      for (const o of again) expect(completeRows(o)).toBe(CLUSTER_CLICKS_ROWS);
      const rest = sseBlocks(resumed.body.toString());
      expect(resumed.complete && rest.events.every((e) => e.event === undefined)).toBe(true);
      const followed = [...follow.events, ...rest.events].filter((e) => e.event === undefined).map((e) => e.data);
      expect(followed).toEqual(again[1]!.body.toString().split('\n').slice(0, -2));
      // The target holds every event before `until` exactly once.
      expect(rerun.body).toMatchObject({ outcome: 'committed' });
      expect(await compareTarget(trino, WINDOW.until)).toEqual({
        missing: 0,
        extra: 0,
        events: CLUSTER_CLICKS_ROWS,
        rows: CLUSTER_CLICKS_ROWS,
      });
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
      const res = await fetch(`${lakeGateway!.url}${READS.page}`, { headers: as('page') });
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
