/**
 * The local Trino as a cluster: a coordinator that schedules no work and N workers, each a process of its own with
 * its own node id, port and data directory, on a port of its own (18280 unless TOPICGATE_LOCAL_TRINO_CLUSTER_PORT),
 * so it runs beside the single-node local Trino (local-trino.ts, 18080) and never touches it. Every node has every
 * catalog (the demo topics' memory catalog, `vastpg`, the lake, and `sink`, a second Iceberg catalog beside the lake
 * that loads write into when the lake holds the topics) and spools results to its own S3 server (workers write the
 * segments; the coordinator hands them out). Each node's configuration is the single node's (local-trino-config.ts)
 * with the node's role, port and heap. `tsx scripts/local-trino-cluster.ts up [N] | down | status`.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { alive, PID_FILE_WAIT_MS, pidWritten, stopProcess } from './pid-file.js';
import { motoAvailable, s3Down, s3Layout, s3Up, type LocalS3Layout } from './local-s3.js';
import { configFiles, configStamp, jvmConfig, readStamp, writeConfig, type ConfigFiles } from './local-trino-config.js';
import { LAKE_CATALOG, lakePgDown, lakeProperties, prepareLake, SINK_CATALOG } from './local-lake.js';
import { DEMO_CATALOG } from './demo-data.js';
import { untilScannable } from './trino-scannable.js';
import { restartStuck, untilWorkersJoined } from './cluster-join.js';
import {
  fetchTrino,
  findJdk,
  launch,
  layout,
  serverPids,
  trinoPid,
  trinoReady,
  type LocalTrinoLayout,
} from './local-trino.js';
import { HttpTrino } from '../src/trino/http-trino.js';
import { TrinoQueryError } from '../src/trino/trino-errors.js';

export interface ClusterNode extends LocalTrinoLayout {
  /** `coordinator` or `worker-<i>` (1-based). */
  name: string;
  /** Trino's node id (system.runtime.nodes.node_id, system.runtime.tasks.node_id). */
  nodeId: string;
  heap: string;
}

export interface ClusterLayout {
  url: string;
  coordinator: ClusterNode;
  workers: ClusterNode[];
  s3: LocalS3Layout;
}

/** Workers unless told: TOPICGATE_LOCAL_TRINO_WORKERS. */
export function workerCount(env: NodeJS.ProcessEnv = process.env, arg?: string): number {
  const n = Number(arg ?? env.TOPICGATE_LOCAL_TRINO_WORKERS ?? 2);
  if (!Number.isInteger(n) || n < 1 || n > 16) throw new Error(`workers: ${JSON.stringify(arg)} is not 1 to 16`);
  return n;
}

/**
 * The coordinator on the cluster's port, its S3 server on port + 9 (local-s3.ts), worker i on port + 10 + i; every
 * node's files under `<cache>/cluster-<port>/<node>`. Heaps: TOPICGATE_LOCAL_TRINO_COORDINATOR_HEAP (default 1G:
 * it plans and hands out segments, no scan) and TOPICGATE_LOCAL_TRINO_WORKER_HEAP (default 1536m).
 */
export function clusterLayout(workers: number, env: NodeJS.ProcessEnv = process.env): ClusterLayout {
  const port = Number(env.TOPICGATE_LOCAL_TRINO_CLUSTER_PORT ?? 18280);
  const base = layout({ ...env, TOPICGATE_LOCAL_TRINO_PORT: String(port) });
  const dir = join(base.cacheDir, `cluster-${port}`);
  const node = (name: string, p: number, heap: string): ClusterNode => {
    const runDir = join(dir, name);
    return {
      ...base,
      name,
      nodeId: `topicgate-${name}-${p}`,
      heap,
      port: p,
      url: `http://127.0.0.1:${p}`,
      runDir,
      pidFile: join(runDir, 'trino.pid'),
    };
  };
  const coordinator = node('coordinator', port, env.TOPICGATE_LOCAL_TRINO_COORDINATOR_HEAP ?? '1G');
  const workerHeap = env.TOPICGATE_LOCAL_TRINO_WORKER_HEAP ?? '1536m';
  return {
    url: coordinator.url,
    coordinator,
    workers: Array.from({ length: workers }, (_, i) => node(`worker-${i + 1}`, port + 10 + i + 1, workerHeap)),
    s3: s3Layout(coordinator.runDir, port, env),
  };
}

const lines = (...l: string[]) => `${l.join('\n')}\n`;

/** The single node's settings that hold on every node of a cluster: memory, spooling, task bookkeeping. */
function sharedSettings(single: ConfigFiles): string[] {
  const drop =
    /^(coordinator|node-scheduler\.include-coordinator|http-server\.http\.port|discovery\.uri|query\.max-memory)/;
  return single['config.properties']!.trimEnd()
    .split('\n')
    .filter((line) => !drop.test(line));
}

/** Every node's etc/ files: the single node's, with the node's role, port, id and heap. */
export function nodeFiles(c: ClusterLayout, n: ClusterNode): ConfigFiles {
  // The single node's files of the coordinator's run folder, so every node shares its spooling secret.
  const single = configFiles(c.coordinator, c.s3);
  const isCoordinator = n === c.coordinator;
  const heapMb = Number(/^(\d+)/.exec(n.heap)![1]) * (/g$/i.test(n.heap) ? 1024 : 1);
  return {
    ...single,
    'node.properties': lines(
      'node.environment=topicgate_cluster',
      `node.id=${n.nodeId}`,
      `node.data-dir=${join(n.runDir, 'data')}`,
      'node.internal-address=127.0.0.1',
    ),
    'jvm.config': jvmConfig(n.heap, n),
    'config.properties': lines(
      `coordinator=${isCoordinator}`,
      ...(isCoordinator ? ['node-scheduler.include-coordinator=false'] : []),
      `http-server.http.port=${n.port}`,
      `discovery.uri=${c.url}`,
      `query.max-memory=${Math.floor(heapMb / 2)}MB`,
      `query.max-memory-per-node=${Math.floor(heapMb / 3)}MB`,
      // Results held for a client that stops reading stay in the workers' output buffers (Trino's default 32MB
      // each, and as much in the coordinator's exchange): small heaps want small buffers.
      'sink.max-buffer-size=4MB',
      'exchange.max-buffer-size=4MB',
      // A task or an exchange whose worker stopped answering fails its query after this long (Trino's default 1m):
      // a read that a lost worker served ends visibly sooner. On a loaded machine 15 s is still no false alarm.
      'exchange.max-error-duration=15s',
      ...(isCoordinator ? ['query.remote-task.max-error-duration=15s'] : []),
      // With no worker, a query waits this long for one (Trino's default 5m) and then fails NO_NODES_AVAILABLE,
      // which a gateway answers 503 with Retry-After: a client learns at once instead of holding a query slot.
      ...(isCoordinator ? ['query-manager.required-workers-max-wait=1s'] : []),
      ...sharedSettings(single),
    ),
    // One Iceberg catalog name for the whole cluster: the coordinator's (local-lake.ts).
    ...(c.s3 && single['catalog/lake.properties']
      ? {
          'catalog/lake.properties': lakeProperties(c.coordinator, c.s3),
          [`catalog/${SINK_CATALOG}.properties`]: lakeProperties(c.coordinator, c.s3, SINK_CATALOG),
        }
      : {}),
  };
}

function log(msg: string): void {
  process.stderr.write(`[trino-cluster] ${msg}\n`);
}

/** A node's running server pids (its pid file's and any found by its data directory). */
function nodePids(n: ClusterNode): number[] {
  const recorded = trinoPid(n);
  return [...new Set([...(recorded !== undefined && alive(recorded) ? [recorded] : []), ...serverPids(n)])];
}

/** The java process of a node (what a test kills), if it runs. */
export function nodePid(n: ClusterNode): number | undefined {
  return serverPids(n)[0];
}

/** Active workers as the coordinator sees them. */
export async function activeWorkers(c: ClusterLayout): Promise<string[]> {
  const trino = new HttpTrino({ server: c.url, user: 'topicgate-start' });
  const sql = "SELECT node_id FROM system.runtime.nodes WHERE coordinator = false AND state = 'active'";
  try {
    return (await trino.all(sql)).rows.map((row) => String(row[0]));
  } catch (err) {
    // Even a system table's scan needs a worker: none left is this answer.
    const none = ['NO_NODES_AVAILABLE', 'GENERIC_INSUFFICIENT_RESOURCES'];
    if (err instanceof TrinoQueryError && none.includes(err.info.errorName)) return [];
    throw err;
  }
}

/** Waits until the coordinator counts `want` active workers (a node killed stays listed until it is seen gone). */
export async function untilWorkers(
  c: ClusterLayout,
  want: (ids: string[]) => boolean,
  timeoutMs = 120_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ids = await activeWorkers(c).catch(() => undefined);
    if (ids && want(ids)) return;
    if (Date.now() > deadline)
      throw new Error(`the cluster's workers did not reach the wanted state: ${ids?.join(', ')}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * Waits until the coordinator admits queries: its count of workers for admission (query-manager.required-workers)
 * lags the node list a moment, and meanwhile a query fails GENERIC_INSUFFICIENT_RESOURCES.
 */
async function untilAdmitted(c: ClusterLayout, timeoutMs: number): Promise<void> {
  const trino = new HttpTrino({ server: c.url, user: 'topicgate-start' });
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await trino.all('SELECT count(*) FROM system.runtime.nodes');
      return;
    } catch (err) {
      const waiting = err instanceof TrinoQueryError && err.info.errorName === 'GENERIC_INSUFFICIENT_RESOURCES';
      if (!waiting || Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

/** Launches one node with its configuration written afresh; resolves with its pid. */
export async function startNode(c: ClusterLayout, n: ClusterNode, jdk = findJdk()): Promise<number> {
  const etc = writeConfig(n.runDir, nodeFiles(c, n));
  launch({ installDir: n.installDir, etcDir: etc, runDir: n.runDir, pidFile: n.pidFile }, jdk);
  const pid = await pidWritten(n.pidFile, PID_FILE_WAIT_MS);
  if (pid === undefined) throw new Error(`${n.name} wrote no pid file at ${n.pidFile}`);
  return pid;
}

/** Whether every node runs with this script's configuration and the coordinator counts every worker. */
async function running(c: ClusterLayout): Promise<boolean> {
  const nodes = [c.coordinator, ...c.workers];
  if (!nodes.every((n) => nodePids(n).length > 0 && readStamp(n.runDir) === configStamp(nodeFiles(c, n)))) return false;
  if (!(await trinoReady(c.url))) return false;
  const ids = await activeWorkers(c).catch((): string[] => []);
  return c.workers.every((w) => ids.includes(w.nodeId));
}

/**
 * Starts the cluster (every node at once) unless it already runs as configured; resolves with the coordinator's
 * URL once a scan runs on the workers. A cluster of another shape or configuration is stopped first.
 */
export async function clusterUp(c: ClusterLayout, timeoutMs = 300_000): Promise<{ url: string; started: boolean }> {
  if (!motoAvailable())
    throw new Error("the cluster spools to S3: install moto's server (python3 -m pip install 'moto[server]')");
  if (await running(c)) return { url: c.url, started: false };
  await clusterDown(c);
  fetchTrino(c.coordinator);
  const jdk = findJdk();
  const { started } = await s3Up(c.s3);
  await prepareLake(c.coordinator.port, started, c.coordinator.runDir, [LAKE_CATALOG, SINK_CATALOG]);
  log(
    `starting a coordinator on ${c.url} and ${c.workers.length} workers (${c.workers.map((w) => w.port).join(', ')})`,
  );
  try {
    for (const n of [c.coordinator, ...c.workers]) await startNode(c, n, jdk);
    const deadline = Date.now() + timeoutMs;
    while (!(await trinoReady(c.url))) {
      if (nodePids(c.coordinator).length === 0)
        throw new Error(`the coordinator exited; see ${c.coordinator.runDir}/server.log`);
      if (Date.now() > deadline) throw new Error(`the coordinator did not become ready in ${timeoutMs / 1000}s`);
      await new Promise((r) => setTimeout(r, 500));
    }
    await untilWorkersJoined(c.workers, timeoutMs, {
      active: () => activeWorkers(c).catch(() => undefined),
      restart: (w) => restartStuck(w, nodePids(w), jdk, () => startNode(c, w, jdk)),
    });
    await untilAdmitted(c, timeoutMs);
    await untilScannable(new HttpTrino({ server: c.url, user: 'topicgate-start' }), DEMO_CATALOG);
  } catch (err) {
    await clusterDown(c).catch(() => undefined);
    throw err;
  }
  return { url: c.url, started: true };
}

/** Stops every node of the cluster's folder (workers of an earlier, larger cluster too), its S3 server and lake PG. */
export async function clusterDown(c: ClusterLayout): Promise<boolean> {
  const extra = clusterLayout(16, { ...process.env, TOPICGATE_LOCAL_TRINO_CLUSTER_PORT: String(c.coordinator.port) });
  const nodes = [...extra.workers, c.coordinator].filter((n) => existsSync(n.runDir));
  const pids = nodes.flatMap(nodePids);
  await Promise.all(pids.map((p) => stopProcess(p, 20_000)));
  const s3 = await s3Down(c.s3);
  await lakePgDown(c.coordinator.runDir);
  return pids.length > 0 || s3;
}

/** `up [N] | down | status` of the cluster (also `trino:up -- --workers N`, `trino:down -- --workers`). */
export async function clusterCommand(cmd: string | undefined, arg: string | undefined): Promise<void> {
  const c = clusterLayout(workerCount(process.env, arg));
  switch (cmd) {
    case 'up': {
      const r = await clusterUp(c);
      log(r.started ? 'ready' : 'already running');
      process.stdout.write(`${r.url}\n`);
      return;
    }
    case 'down':
      log((await clusterDown(c)) ? 'stopped' : 'not running (nothing to stop)');
      return;
    case 'status':
      process.stdout.write((await running(c)) ? `running ${c.url}\n` : 'not running\n');
      return;
    default:
      throw new Error('usage: local-trino-cluster.ts up [workers] | down | status');
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  clusterCommand(process.argv[2], process.argv[3]).catch((err: unknown) => {
    process.stderr.write(`[trino-cluster] error: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
