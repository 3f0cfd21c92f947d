/**
 * Brings up the real parts the integration tests talk to: the local PostgreSQL (behind Trino's `vastpg` catalog),
 * the local Trino, with the demo topics in `vast` and their copy in `vastpg` and the bulk topics in `vast`, and the
 * local Schema Registry (Apicurio) holding the schemas of the Avro demo topic. Each is loaded once per run, and not
 * again while it is there.
 * Stops afterwards only what it started, so a developer's running servers are left alone.
 * PostgreSQL is not optional: when it cannot start, every integration file fails with that error (the pushdown tests
 * never skip).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import type { TestProject } from 'vitest/node';
import { pgDown, pgUp } from '../scripts/local-postgres.js';
import { down, layout, up } from '../scripts/local-trino.js';
import { DEFAULT_DEMO_EVENTS, loadDemo, PG_CATALOG, PG_SCHEMA } from '../scripts/load-demo.js';
import { DEMO_CATALOG, DEMO_SCHEMA, demoStatements } from '../scripts/demo-data.js';
import { quoteIdent } from '../src/query/sql/sql-text.js';
import { loadAvroDemo } from '../scripts/load-demo-avro.js';
import { registryDown, registryLayout, registryUp } from '../scripts/local-registry.js';
import { PROJECT_ROOT } from '../scripts/start-command.js';
import { HttpTrino } from '../src/trino/http-trino.js';
import { clusterDown } from '../scripts/local-trino-cluster.js';
import { runNeedsCluster, startTestCluster, testClusterLayout } from './trino-cluster-services.js';

/**
 * The bulk topics: the demo layout with 400,000 clicks (about 60 MB as NDJSON), a result larger than Trino's and
 * the sockets' buffers, so a read is still running when its client stops reading (cancel, limits, query slots,
 * timeouts, spooling). Loaded here once per run, so no two test files build the same tables at once.
 */
const BULK_SCHEMA = 'bulk|kafka_topics';
const BULK_SIZES = { orders: 1, clicks: 400_000, s3_events: 1 };
/** Rows of the bulk clicks once loaded: every 1,000th event is stored twice. */
const BULK_CLICKS_ROWS = 400_400;

declare module 'vitest' {
  export interface ProvidedContext {
    trinoUrl: string;
    /** The Confluent-compatible base URL of the local Schema Registry. */
    registryUrl: string;
    /** The file that says the services are up and loaded, or why they are not (test/services-ready.ts). */
    servicesFile: string;
    /** The file that says the two-worker Trino cluster is up and loaded, or why not (test/trino-cluster-services.ts). */
    clusterFile: string;
  }
}

/** The services of this run, shared by the projects that name this setup (each project runs its global setup). */
interface Services {
  /** Settles once the services are up and loaded: to what stops what this run started. */
  started: Promise<() => Promise<void>>;
  file: string;
  /** Settles once the cluster is up (started after the other services, so it never slows them): its stop. */
  cluster: Promise<(() => Promise<void>) | undefined>;
  clusterFile: string;
  /** Projects whose teardown has not run yet: the last one stops the services. */
  users: number;
}
const SERVICES = Symbol.for('topicgate.test-services');
const shared = globalThis as { [SERVICES]?: Services };

/**
 * Starts the services in the background and returns at once: vitest runs every project's global setup before any
 * file, so a setup that waited kept the unit files (which need no service) from running while the services start,
 * about 20 s in which the two cores were 40% idle. The integration files wait for the services themselves
 * (test/services-ready.ts); a setup that fails fails each of them with its error.
 */
export default function setup(project: TestProject): () => Promise<void> {
  const trinoLayout = layout({
    TOPICGATE_LOCAL_TRINO_JIT: 'quick',
    TOPICGATE_LOCAL_TRINO_GC: 'parallel',
    ...process.env,
  });
  let services = shared[SERVICES];
  if (!services) {
    const file = join(mkdtempSync(join(tmpdir(), 'topicgate-test-')), 'services');
    const started = startServices(trinoLayout);
    started.then(
      () => writeFileSync(file, 'ready'),
      (err: unknown) => writeFileSync(file, `failed: ${err instanceof Error ? err.message : String(err)}`),
    );
    const clusterFile = join(dirname(file), 'cluster');
    const cluster = startCluster(started, clusterFile);
    services = shared[SERVICES] = { started, file, cluster, clusterFile, users: 0 };
  }
  services.users++;
  project.provide('trinoUrl', trinoLayout.url);
  project.provide('registryUrl', registryLayout().url);
  project.provide('servicesFile', services.file);
  project.provide('clusterFile', services.clusterFile);
  const mine = services;
  return async () => {
    if (--mine.users > 0) return;
    delete shared[SERVICES];
    const stop = await mine.started.catch(() => undefined);
    const stopCluster = await mine.cluster.catch(() => undefined);
    rmSync(dirname(mine.file), { recursive: true, force: true });
    await Promise.all([stop?.(), stopCluster?.()]);
  };
}

/**
 * Once the other services are up (it needs the PostgreSQL of the lake's catalog), the two-worker Trino cluster of
 * the trino-cluster files, when the run includes them; to what stops it when this run started it.
 */
async function startCluster(services: Promise<unknown>, file: string): Promise<(() => Promise<void>) | undefined> {
  if (!runNeedsCluster()) {
    writeFileSync(file, 'failed: this run does not include the trino-cluster files');
    return undefined;
  }
  try {
    await services;
    const c = testClusterLayout();
    const { started, seconds } = await startTestCluster(c);
    process.stderr.write(
      `[test] Trino cluster ${c.url} (${started ? 'started' : 'already running'}) ready in ${seconds.toFixed(1)}s\n`,
    );
    // Read by the cluster's tests: a cluster this run stops needs no workers restarted after the loss tests.
    if (started) writeFileSync(`${file}.started`, '');
    writeFileSync(file, 'ready');
    return started ? async () => void (await clusterDown(c)) : undefined;
  } catch (err) {
    writeFileSync(file, `failed: ${err instanceof Error ? err.message : String(err)}`);
    return undefined;
  }
}

/** Starts PostgreSQL, Trino and the registry, and loads the topics; to what stops what it started. */
async function startServices(trinoLayout: ReturnType<typeof layout>): Promise<() => Promise<void>> {
  const pg = await pgUp().catch((err: unknown) => {
    throw new Error(
      `[test] PostgreSQL (for the vastpg catalog) did not start: ${err instanceof Error ? err.message : String(err)}`,
    );
  });
  // C1 alone and the parallel collector (scripts/local-trino-config.ts, `JvmModes`) when this run starts the Trino;
  // a running one is reused as is.
  let trino: Awaited<ReturnType<typeof up>> | undefined;
  let registry: Awaited<ReturnType<typeof registryUp>> | undefined;
  // All three stop at once (each waits for its process to exit), and each is stopped even when another fails.
  const teardown = async () => {
    const stops = await Promise.allSettled([
      registry?.started && registryDown(),
      trino?.started && down(trinoLayout),
      pg.started && pgDown(),
    ]);
    const failed = stops.find((s) => s.status === 'rejected');
    if (failed) throw failed.reason;
  };
  try {
    // Both start at once; whichever started is stopped by the teardown if the other fails. Meanwhile dist/ is
    // built when stale: the tests that start the server as a process run it as `npm start` does.
    const [t, r, b] = await Promise.allSettled([up(trinoLayout, undefined, { anyJvm: true }), registryUp(), build()]);
    if (t.status === 'fulfilled') trino = t.value;
    if (r.status === 'fulfilled') registry = r.value;
    if (t.status === 'rejected') throw t.reason;
    if (r.status === 'rejected') throw r.reason;
    if (b.status === 'rejected') throw b.reason;
    if (!trino || !registry) throw new Error('unreachable');
    // The three loads at once: each waits on Trino's round trips as much as on its CPU. The schemas they share are
    // made first, so no two of them create one at the same time.
    const loader = new HttpTrino({ server: trino.url, user: 'test' });
    for (const schema of [
      [DEMO_CATALOG, DEMO_SCHEMA],
      [DEMO_CATALOG, 'topicgate_meta'],
      [PG_CATALOG, PG_SCHEMA],
    ]) {
      await loader.all(`CREATE SCHEMA IF NOT EXISTS ${schema.map(quoteIdent).join('.')}`);
    }
    const [demo, avro, bulkSeconds] = await Promise.all([
      loadDemo(trino.url, undefined, { pgCopy: true, reuse: true }),
      loadAvroDemo(trino.url, registry.url, DEFAULT_DEMO_EVENTS, { pgCopy: true, reuse: true }),
      loadBulk(trino.url),
    ]);
    const { sizes, seconds, pgSeconds, reused } = demo;
    process.stderr.write(
      `[test] Trino ${trino.url} (${trino.started ? 'started' : 'already running'}); ` +
        `PostgreSQL ${pg.url.replace(/:[^:@/]*@/, ':***@')} (${pg.started ? 'started' : 'already running'}); ` +
        (reused
          ? `demo ${JSON.stringify(sizes)} already loaded\n`
          : `demo ${JSON.stringify(sizes)} loaded in ${seconds.toFixed(1)}s (PostgreSQL copy ${pgSeconds?.toFixed(1)}s)\n`),
    );
    process.stderr.write(
      `[test] Schema Registry ${registry.url} (${registry.started ? 'started' : 'already running'}); ` +
        `payments_avro ${avro.reused ? 'already loaded' : `loaded in ${avro.seconds.toFixed(1)}s`}\n`,
    );
    process.stderr.write(
      `[test] ${BULK_SCHEMA} ${bulkSeconds === undefined ? 'already loaded' : `loaded in ${bulkSeconds.toFixed(1)}s`}\n`,
    );
  } catch (err) {
    // A failed start leaves nothing behind: stop here what it started.
    await teardown().catch(() => {});
    throw err;
  }
  return teardown;
}

/** Loads the bulk topics unless their clicks are already all there; the seconds it took, or undefined. */
async function loadBulk(url: string): Promise<number | undefined> {
  const trino = new HttpTrino({ server: url, user: 'test' });
  const have = await trino.all(`SELECT count(*) FROM vast."${BULK_SCHEMA}".clicks`).then(
    (r) => Number(r.rows[0]![0]),
    () => 0,
  );
  if (have === BULK_CLICKS_ROWS) return undefined;
  const t0 = Date.now();
  for (const stmt of demoStatements(BULK_SIZES, 'vast', BULK_SCHEMA)) await trino.all(stmt, { timeoutMs: 600_000 });
  return (Date.now() - t0) / 1000;
}

/** `node scripts/build.mjs --if-stale` in the project's root. */
async function build(): Promise<void> {
  await promisify(execFile)(process.execPath, ['scripts/build.mjs', '--if-stale'], {
    cwd: PROJECT_ROOT,
  });
}
