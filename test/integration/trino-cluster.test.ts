/**
 * The gateway on a Trino cluster as production runs it: a coordinator that schedules no work and two workers
 * (scripts/local-trino-cluster.ts, started once per run by the global setup). Read sessions, `parallel` slices and
 * load runs put tasks on both workers, as Trino's own system.runtime.tasks says per query; results come as segments
 * the workers spooled to S3, which the gateway reads to the same bytes as the direct protocol gives.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/server/app.js';
import { HttpTrino } from '../../src/trino/http-trino.js';
import { testConfig } from '../helpers.js';
import { createSession, readStream } from '../session-reads.js';
import { CLUSTER_CLICKS_ROWS, clusterReady, MEMORY_SCHEMA, SHARED_SCHEMA } from '../trino-cluster-services.js';
import type { ClusterLayout } from '../../scripts/local-trino-cluster.js';

const WINDOW = { since: '2026-11-01T00:00:00Z', until: '2026-11-03T00:00:00Z' };
let c: ClusterLayout;
let trino: HttpTrino;
const apps: Record<'spooled' | 'direct', FastifyInstance | undefined> = { spooled: undefined, direct: undefined };

beforeAll(async () => {
  c = await clusterReady();
  trino = new HttpTrino({ server: c.url, user: 'cluster-test' });
  const env = { TOPICGATE_TRINO_URL: c.url, TOPICGATE_SCHEMAS: MEMORY_SCHEMA };
  apps.spooled = await buildApp(testConfig(env), { logger: false });
  apps.direct = await buildApp(testConfig({ ...env, TOPICGATE_TRINO_ENCODING: 'none' }), { logger: false });
}, 300_000);

afterAll(async () => {
  await apps.spooled?.close();
  await apps.direct?.close();
});

/** The gateway's queries naming `table` since `since` (Trino's clock: its query ids start with the date). */
async function gatewayQueries(table: string, after: Set<string>): Promise<string[]> {
  const { rows } = await trino.all(
    `SELECT query_id FROM system.runtime.queries WHERE source = 'topicgate' AND query LIKE '%${table}%' ` +
      `AND query NOT LIKE '%system.runtime%'`,
  );
  return rows.map((r) => String(r[0])).filter((id) => !after.has(id));
}

/** The nodes that ran tasks of these queries (Trino keeps a task's info a minute: task.info.max-age). */
async function taskNodes(queryIds: string[]): Promise<Set<string>> {
  const list = queryIds.map((id) => `'${id.replace(/\W/g, '')}'`).join(', ');
  const { rows } = await trino.all(`SELECT DISTINCT node_id FROM system.runtime.tasks WHERE query_id IN (${list})`);
  return new Set(rows.map((r) => String(r[0])));
}

/** Runs `read` and returns the nodes that ran tasks of the gateway's queries of `table` it sent. */
async function nodesOf(table: string, read: () => Promise<void>): Promise<Set<string>> {
  const before = new Set(await gatewayQueries(table, new Set()));
  await read();
  const ids = await gatewayQueries(table, before);
  expect(ids.length).toBeGreaterThan(0);
  return taskNodes(ids);
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
        `/v1/topics/orders/events?since=${WINDOW.since}&until=${WINDOW.until}&limit=all&parallel=3&format=ndjson`,
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
    expect(await taskNodes([raw.id])).toEqual(workerIds());
    const url = `/v1/topics/clicks/events?since=${WINDOW.since}&until=${WINDOW.until}&limit=all&format=ndjson`;
    const [spooled, direct] = await Promise.all([apps.spooled!.inject(url), apps.direct!.inject(url)]);
    expect(spooled.statusCode).toBe(200);
    expect(spooled.body.endsWith('\n\n')).toBe(true);
    expect(spooled.body.split('\n').length - 2).toBe(CLUSTER_CLICKS_ROWS);
    expect(spooled.rawPayload.equals(direct.rawPayload)).toBe(true);
  });
});
