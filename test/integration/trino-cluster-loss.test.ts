/**
 * Workers lost under the gateway: a worker of the two-worker cluster (scripts/local-trino-cluster.ts) killed with
 * SIGKILL as soon as it holds a running task of one of the reads in flight (a page, `limit=all`, a session stream). The topics are the Iceberg copy in the lake, so any worker can read any split. Every read
 * whose query ran a task on the dead worker ends visibly cut (never a short body that looks complete), its query ends
 * failed in Trino, and the next read runs on the remaining worker and is complete. With no worker left, reads answer
 * 503 TG_TRINO_UNAVAILABLE with Retry-After. The workers are started again at the end, for the next run.
 */
import http from 'node:http';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/server/load-config.js';
import { startServer } from '../../src/server.js';
import { HttpTrino } from '../../src/trino/http-trino.js';
import { queryState, untilTrue } from '../follow-client.js';
import { CLUSTER_CLICKS_ROWS, clusterReady, SHARED_SCHEMA } from '../trino-cluster-services.js';
import { nodePid, startNode, untilWorkers, type ClusterLayout } from '../../scripts/local-trino-cluster.js';

const WINDOW = 'since=2026-11-01T00:00:00Z&until=2026-11-03T00:00:00Z';
let c: ClusterLayout;
let trino: HttpTrino;
let app: FastifyInstance | undefined;
let base = '';

beforeAll(async () => {
  c = await clusterReady();
  trino = new HttpTrino({ server: c.url, user: 'cluster-loss-test' });
  const started = await startServer(
    loadConfig({
      TOPICGATE_TRINO_URL: c.url,
      TOPICGATE_CATALOG: 'lake',
      TOPICGATE_SCHEMAS: SHARED_SCHEMA,
      TOPICGATE_STATE_URL: 'sqlite::memory:',
      TOPICGATE_MAX_LIMIT: String(CLUSTER_CLICKS_ROWS),
      TOPICGATE_PORT: '0',
      TOPICGATE_LOG_LEVEL: 'silent',
      TOPICGATE_MAX_EVENT_LOOP_DELAY_MS: '0',
      // The direct protocol: a result then flows from the workers' output buffers through the coordinator as the
      // client reads, so a held read's query is still running on its workers when one dies. Spooled, the workers
      // finish writing segments to storage without waiting for the client, and a worker lost after that takes
      // nothing with it (the last test).
      TOPICGATE_TRINO_ENCODING: 'none',
    }),
  );
  app = started.app;
  base = started.url;
}, 300_000);

afterAll(async () => {
  await app?.close();
  // Both workers again for the next run (the cluster is reused while it runs).
  const dead = c.workers.filter((w) => nodePid(w) === undefined);
  for (const w of dead) await startNode(c, w);
  if (dead.length) await untilWorkers(c, (ids) => c.workers.every((w) => ids.includes(w.nodeId)));
}, 300_000);

/** The gateway's running query naming `clicks` that is not among `known`. */
async function newQuery(known: Set<string>): Promise<string> {
  let id: string | undefined;
  await untilTrue(
    async () => {
      const { rows } = await trino.all(
        "SELECT query_id FROM system.runtime.queries WHERE source = 'topicgate' AND state IN ('RUNNING', 'FINISHING') " +
          "AND query LIKE '%clicks%'",
      );
      id = rows.map((r) => String(r[0])).find((q) => !known.has(q));
      return id !== undefined;
    },
    60_000,
    'the held read has a running query',
  );
  known.add(id!);
  return id!;
}

/** The nodes holding an unfinished task of the query (running, or flushing output not yet read). */
async function liveTaskNodes(queryId: string): Promise<Set<string>> {
  const { rows } = await trino.all(
    `SELECT DISTINCT node_id FROM system.runtime.tasks WHERE query_id = '${queryId.replace(/\W/g, '')}' ` +
      "AND state NOT IN ('FINISHED', 'CANCELED', 'ABORTED', 'FAILED')",
  );
  return new Set(rows.map((r) => String(r[0])));
}

interface Outcome {
  status: number;
  body: Buffer;
  /** The transfer ended properly (a chunked body cut without its last chunk did not). */
  complete: boolean;
}

/** GETs `url` to its end, or to where its transfer stopped. */
function readAll(url: string): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false, headers: { 'accept-encoding': 'identity' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (b: Buffer) => chunks.push(b));
        res.on('error', () => undefined); // `aborted`: res.complete says so
        res.once('close', () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks), complete: res.complete }),
        );
      })
      .on('error', reject);
  });
}

/** Rows of a complete NDJSON body (a 200 ending with the empty line), or undefined for a cut or failed one. */
function completeRows(o: Outcome): number | undefined {
  const text = o.body.toString();
  if (o.status !== 200 || !o.complete || !text.endsWith('\n\n')) return undefined;
  return text.split('\n').length - 2;
}

const READS = {
  page: `/v1/topics/clicks/events?${WINDOW}&limit=${CLUSTER_CLICKS_ROWS}&format=ndjson`,
  'limit=all': `/v1/topics/clicks/events?${WINDOW}&limit=all&format=ndjson`,
  'session stream': '',
};

async function sessionStreamUrl(): Promise<string> {
  const res = await fetch(`${base}/v1/topics/clicks/sessions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ since: '2026-11-01T00:00:00Z', until: '2026-11-03T00:00:00Z', streams: 1 }),
  });
  expect(res.status).toBe(201);
  const s = (await res.json()) as { streams: { url: string }[] };
  return `${s.streams[0]!.url}&format=ndjson`;
}

describe('a worker killed while reads are in flight', () => {
  it('the shared copy reads whole before any loss', async () => {
    const r = await readAll(`${base}${READS['limit=all']}`);
    expect(completeRows(r)).toBe(CLUSTER_CLICKS_ROWS);
  });

  it(
    'every read with a task on the dead worker is cut visibly, its query fails, and the next read is whole',
    { timeout: 240_000 },
    async () => {
      const known = new Set<string>();
      const kinds = Object.keys(READS) as (keyof typeof READS)[];
      const urls = await Promise.all(
        kinds.map(async (k) => `${base}${k === 'session stream' ? await sessionStreamUrl() : READS[k]}`),
      );
      const reads = urls.map(readAll);
      const queries: string[] = [];
      for (const _ of kinds) queries.push(await newQuery(known));
      // As soon as a worker holds an unfinished task of a read, it dies: that read is then in flight on it.
      let nodes: Set<string>[] = [];
      await untilTrue(
        async () => {
          nodes = await Promise.all(queries.map(liveTaskNodes));
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
        if (!nodes[i]!.has(victim.nodeId)) continue;
        expect(rows, `${kind} had a task on the dead worker and must be cut`).toBeUndefined();
        cut.push(`${kind} (${outcomes[i]!.status})`);
        await untilTrue(async () => (await queryState(trino, queries[i]!)).state === 'FAILED', 120_000, kind);
      }
      expect(cut.length).toBeGreaterThan(0);
      process.stderr.write(`[cluster-loss] killed ${victim.name}: cut ${cut.join(', ')}\n`);
      await untilWorkers(c, (ids) => !ids.includes(victim.nodeId));
      for (const path of [READS.page, READS['limit=all']]) {
        expect(completeRows(await readAll(`${base}${path}`))).toBe(CLUSTER_CLICKS_ROWS);
      }
    },
  );

  it('with no worker left, reads answer 503 TG_TRINO_UNAVAILABLE with Retry-After', { timeout: 120_000 }, async () => {
    for (const w of c.workers) {
      const pid = nodePid(w);
      if (pid !== undefined) process.kill(pid, 'SIGKILL');
    }
    await untilWorkers(c, (ids) => ids.length === 0);
    const res = await fetch(`${base}${READS.page}`);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('TG_TRINO_UNAVAILABLE');
    const ready = await fetch(`${base}/readyz`);
    process.stderr.write(`[cluster-loss] /readyz with no worker: ${ready.status}\n`);
  });
});
