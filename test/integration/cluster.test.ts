/**
 * More than one instance, for real: two gateway processes (dist/, as `npm start` runs it) on the
 * local PostgreSQL store behind HAProxy, brought up by scripts/cluster.ts. Through the balancer: both instances
 * answer (their own logs say so); a cursor is read and committed through either, exactly; page tokens followed
 * across instances give the rows one instance gives; `requestsPerMinute` and `concurrentQueries` are counted across
 * the two; one instance killed with SIGKILL, the balancer sends everything to the other, which serves it, and the
 * query slot the dead one held is free.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { clusterDown, clusterLayout, clusterUp, type Cluster, type ClusterLayout } from '../../scripts/cluster.js';
import { freePort } from '../../scripts/free-port.js';
import { pgLayout } from '../../scripts/local-postgres.js';
import { alive } from '../../scripts/pid-file.js';
import { apiKeyHash } from '../../src/access/api-keys.js';
import { holdRead } from '../held-stream.js';
import { trinoUrl } from '../helpers.js';

const BULK = 'bulk|kafka_topics';
const WINDOW = 'since=2026-11-01T00:00:00Z&until=2026-12-01T00:00:00Z';
const RPM = 30;
const run = randomBytes(4).toString('hex');
/** One principal per concern, each with its own budget; named afresh per run (the counts live in PostgreSQL). */
const KEYS = {
  reader: `key-reader-${run}-0000000000`,
  burst: `key-burst-${run}-00000000000`,
  slots: `key-slots-${run}-00000000000`,
};
const dir = mkdtempSync(join(tmpdir(), 'topicgate-cluster-'));
let layout: ClusterLayout;
let cluster: Cluster;
let base = '';

beforeAll(async () => {
  const config = join(dir, 'cluster.yaml');
  writeFileSync(
    config,
    stringify({
      auth: {
        apiKeys: Object.entries(KEYS).map(([who, key]) => ({
          principal: `${who}-${run}`,
          sha256: apiKeyHash(key),
          roles: ['r'],
        })),
      },
      access: [{ roles: ['r'], topics: ['*'], actions: ['read', 'explain', 'cursors'] }],
      limits: { requestsPerMinute: RPM, concurrentQueries: 2, queueWaitMs: 1000 },
    }),
  );
  const [port, p1, p2] = [await freePort(), await freePort(), await freePort()];
  // The run dir (pids, logs, the secret) inside the test's own directory, removed with it.
  layout = clusterLayout({ ...process.env, TOPICGATE_CACHE_DIR: dir }, { port, instancePorts: [p1, p2] });
  cluster = await clusterUp(layout, {
    trinoUrl: trinoUrl(),
    stateUrl: pgLayout().url,
    env: { TOPICGATE_CONFIG: config, TOPICGATE_SCHEMAS: BULK, TOPICGATE_PREFETCH_ROWS: '0' },
  });
  base = cluster.url;
});
afterAll(async () => {
  if (layout) await clusterDown(layout, { services: false });
  rmSync(dir, { recursive: true, force: true });
}, 120_000);

const get = (key: string, path: string, at = base) => fetch(`${at}${path}`, { headers: { 'x-api-key': key } });
const post = (key: string, path: string, body?: unknown) =>
  fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
const ndjson = (text: string) => text.split('\n').filter(Boolean);

/** Lines of an instance's log (pino JSON) that match. */
function logLines(i: number, match: (entry: Record<string, unknown>) => boolean): number {
  return readFileSync(cluster.instances[i]!.logFile, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter(match).length;
}
const audits = (i: number, who: string, status: number) =>
  logLines(i, (e) => {
    const a = e.audit as { principal?: string; status?: number } | undefined;
    return a?.principal === `${who}-${run}` && a.status === status;
  });

describe('two instances behind HAProxy', () => {
  it('both answer, and requestsPerMinute is counted across the two', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < RPM; i++) statuses.push((await get(KEYS.burst, '/v1/topics')).status);
    expect(statuses).toEqual(Array(RPM).fill(200));
    const over = await get(KEYS.burst, '/v1/topics');
    const body = (await over.json()) as { error: { code: string; details: { limit: string } } };
    expect([over.status, body.error.code, body.error.details.limit]).toEqual([
      429,
      'TG_TOO_MANY_REQUESTS',
      'requestsPerMinute',
    ]);
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
    // Each instance served some of them: counted in the process, neither would have refused the last one.
    const served = (i: number) => logLines(i, (e) => (e.req as { url?: string } | undefined)?.url === '/v1/topics');
    await expect.poll(() => served(0) > 0 && served(1) > 0).toBe(true);
  });

  it('a cursor is read and committed through either instance, exactly', async () => {
    const name = `cluster-${run}`;
    const select = ['timestamp_broker', 'key', 'value'];
    expect(
      (
        await fetch(`${base}/v1/cursors/${name}`, {
          method: 'PUT',
          headers: { 'x-api-key': KEYS.reader, 'content-type': 'application/json' },
          body: JSON.stringify({ topic: 'clicks', select }),
        })
      ).status,
    ).toBe(201);
    const rows: string[] = [];
    // Read and commit alternate between the instances (round robin): each commit lands where its read did not.
    for (let i = 0; i < 3; i++) {
      const batch = await post(KEYS.reader, `/v1/cursors/${name}/read?limit=200&format=ndjson`);
      expect(batch.status).toBe(200);
      rows.push(...ndjson(await batch.text()));
      const commit = await post(KEYS.reader, `/v1/cursors/${name}/commit`, {
        batch: batch.headers.get('topicgate-batch'),
      });
      expect(await commit.json()).toMatchObject({ committed: true, rows: 200 });
    }
    const expected = await get(
      KEYS.reader,
      `/v1/topics/clicks/events?select=${select.join(',')}&limit=600&format=ndjson`,
      cluster.instances[0]!.url,
    );
    expect(rows.sort()).toEqual(ndjson(await expected.text()).sort());
    const history = (await (await get(KEYS.reader, `/v1/cursors/${name}/history`)).json()) as {
      batches: { rows: number }[];
    };
    expect(history.batches.map((b) => b.rows)).toEqual([200, 200, 200]);
    await fetch(`${base}/v1/cursors/${name}`, { method: 'DELETE', headers: { 'x-api-key': KEYS.reader } });
  });

  it('page tokens followed across instances give the rows of one instance', async () => {
    const walk = async (at: string) => {
      const rows: string[] = [];
      let path: string | null = `/v1/topics/clicks/events?${WINDOW}&limit=150&format=ndjson`;
      for (let page = 0; page < 4 && path; page++) {
        const res: Response = await get(KEYS.reader, path, at);
        expect(res.status).toBe(200);
        rows.push(...ndjson(await res.text()));
        const link = res.headers.get('link');
        const next = link ? new URL(link.slice(1, link.indexOf('>')), at) : null;
        path = next ? `${next.pathname}${next.search}` : null;
      }
      return rows;
    };
    const through = await walk(base);
    expect(through).toHaveLength(600);
    expect(through).toEqual(await walk(cluster.instances[1]!.url));
  });

  it("concurrentQueries: 2 holds across the two; after a SIGKILL the other serves and the dead one's slot is free", async () => {
    // One read left running on each instance (its client stops reading): the caller's two slots.
    const stalled = await Promise.all(
      cluster.instances.map((g) =>
        holdRead(`${g.url}/v1/topics/clicks/events?${WINDOW}&limit=all&format=ndjson`, { 'x-api-key': KEYS.slots }),
      ),
    );
    const third = async () => {
      const r = await get(KEYS.slots, `/v1/topics/orders/events?${WINDOW}&limit=1`);
      return [r.status, ((await r.json()) as { error?: { details?: { limit?: string } } }).error?.details?.limit];
    };
    // Twice: once through each instance.
    expect([await third(), await third()]).toEqual([
      [429, 'concurrentQueries'],
      [429, 'concurrentQueries'],
    ]);
    await expect.poll(() => audits(0, 'slots', 429) + audits(1, 'slots', 429)).toBe(2);
    expect([audits(0, 'slots', 429), audits(1, 'slots', 429)]).toEqual([1, 1]);

    const dead = cluster.instances[0]!;
    process.kill(dead.pid, 'SIGKILL');
    await expect.poll(() => alive(dead.pid)).toBe(false);
    // Every request goes to the live instance (a refused connection is retried on the other), and the slot held by
    // the dead instance's PostgreSQL session went with it: the caller has one slot free.
    for (let i = 0; i < 4; i++)
      expect((await get(KEYS.reader, `/v1/topics/orders/events?${WINDOW}&limit=1`)).status).toBe(200);
    expect(await third()).toEqual([200, undefined]);
    for (const h of stalled) h.req.destroy();
  });
});
