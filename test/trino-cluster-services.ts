/**
 * The two-worker Trino cluster of the trino-cluster tests (scripts/local-trino-cluster.ts, port 18280 beside the
 * single-node local Trino): started once per run by the global setup, in the background, and only when the run
 * includes those files; each of them waits for it (`clusterReady`).
 *
 * Its data: the demo topics in the cluster's memory catalog (`vast."demo|kafka_topics"`: each worker holds its share
 * of the rows, so a scan has tasks on every worker, and a dead worker's rows are gone) and an Iceberg copy of the
 * clicks and orders in the lake (`lake."shared|kafka_topics"`: files on the S3 server, which any worker reads; the
 * clicks in LAKE_CLICKS_FILES buckets of the key or more, so a scan of them has a split for every worker).
 */
import { existsSync, readFileSync } from 'node:fs';
import { inject } from 'vitest';
import { clusterLayout, clusterUp, type ClusterLayout } from '../scripts/local-trino-cluster.js';
import { demoStatements } from '../scripts/demo-data.js';
import { HttpTrino } from '../src/trino/http-trino.js';
import { TrinoQueryError } from '../src/trino/trino-errors.js';

export const CLUSTER_WORKERS = 2;
export const MEMORY_SCHEMA = 'demo|kafka_topics';
export const SHARED_SCHEMA = 'shared|kafka_topics';
/** Clicks of the cluster's topics: a read of all of them (some 15 MB as NDJSON) outlasts what buffers hold. */
export const CLUSTER_CLICKS = 100_000;
const SIZES = { orders: 2000, clicks: CLUSTER_CLICKS, s3_events: 200 };
/** Buckets of the lake's clicks: files, each a split, so that every worker scans some (one file is one split). */
const LAKE_CLICKS_FILES = 4;
/** Rows of the clicks once loaded: every 1,000th event is stored twice. */
export const CLUSTER_CLICKS_ROWS = CLUSTER_CLICKS + CLUSTER_CLICKS / 1000;

/** The test cluster's layout: C1 alone and the parallel collector, as the suite's single node. */
export function testClusterLayout(env: NodeJS.ProcessEnv = process.env): ClusterLayout {
  return clusterLayout(CLUSTER_WORKERS, {
    TOPICGATE_LOCAL_TRINO_JIT: 'quick',
    TOPICGATE_LOCAL_TRINO_GC: 'parallel',
    ...env,
  });
}

/** Whether this run's files include the cluster's (no file filter at all: the whole suite). */
export function runNeedsCluster(argv = process.argv): boolean {
  const filters: string[] = [];
  for (let i = 2; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--project' || a === '--config' || a === '-c') i++;
    else if (!a.startsWith('-') && a !== 'run') filters.push(a);
  }
  return filters.length === 0 || filters.some((f) => f.includes('trino-cluster'));
}

/** Starts the cluster (or finds it running) and loads its topics unless they are there; what stops it if started. */
export async function startTestCluster(c = testClusterLayout()): Promise<{ started: boolean; seconds: number }> {
  const t0 = Date.now();
  const { started } = await clusterUp(c);
  const trino = new HttpTrino({ server: c.url, user: 'test' });
  const count = (sql: string) =>
    trino.all(sql).then(
      (r) => Number(r.rows[0]![0]),
      () => 0,
    );
  const memory = await count(`SELECT count(*) FROM vast."${MEMORY_SCHEMA}".clicks`);
  if (memory !== CLUSTER_CLICKS_ROWS) {
    for (const s of demoStatements(SIZES, 'vast', MEMORY_SCHEMA)) await admitted(trino, s);
  }
  const lake = await count(`SELECT count(*) FROM lake."${SHARED_SCHEMA}".clicks`);
  const files = await count(`SELECT count(*) FROM lake."${SHARED_SCHEMA}"."clicks$files"`);
  if (lake !== CLUSTER_CLICKS_ROWS || files < LAKE_CLICKS_FILES) {
    await admitted(trino, `CREATE SCHEMA IF NOT EXISTS lake."${SHARED_SCHEMA}"`);
    for (const t of ['clicks', 'orders']) {
      await admitted(trino, `DROP TABLE IF EXISTS lake."${SHARED_SCHEMA}".${t}`);
      const split = t === 'clicks' ? ` WITH (partitioning = ARRAY['bucket(key, ${LAKE_CLICKS_FILES})'])` : '';
      const copy = `CREATE TABLE lake."${SHARED_SCHEMA}".${t}${split} AS SELECT * FROM vast."${MEMORY_SCHEMA}".${t}`;
      await admitted(trino, copy);
    }
  }
  return { started, seconds: (Date.now() - t0) / 1000 };
}

/**
 * Runs a loading statement, again while the coordinator counts no active worker for a moment (on two busy cores its
 * count lagged once after the start: GENERIC_INSUFFICIENT_RESOURCES, a query refused before it ran, so safe to send
 * again).
 */
async function admitted(trino: HttpTrino, sql: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      await trino.all(sql, { timeoutMs: 600_000 });
      return;
    } catch (err) {
      const refused = err instanceof TrinoQueryError && err.info.errorName === 'GENERIC_INSUFFICIENT_RESOURCES';
      if (!refused || Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

/** Waits for the cluster the global setup starts; fails with its error. */
export async function clusterReady(): Promise<ClusterLayout> {
  const file = inject('clusterFile');
  const deadline = Date.now() + 20 * 60_000;
  while (!existsSync(file)) {
    if (Date.now() > deadline) throw new Error('[test] the Trino cluster did not start in 20 minutes');
    await new Promise((r) => setTimeout(r, 100));
  }
  const state = readFileSync(file, 'utf8');
  if (state !== 'ready') throw new Error(`[test] the Trino cluster did not start: ${state.replace(/^failed: /, '')}`);
  return testClusterLayout();
}
