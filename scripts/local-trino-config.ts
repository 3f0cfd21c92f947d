/**
 * The local Trino's configuration files, as text, and the stamp that says which configuration a running Trino
 * was started with: `up` compares the stamp beside a running server with the one this script would write, and
 * restarts a server it started with another configuration (an older script's, say) instead of reusing it.
 *
 * Spooling: results of clients that ask for the spooling protocol (the gateway does by default) are written as
 * segments to a bucket on a local S3-compatible server (local-s3.ts) and fetched through the coordinator
 * (COORDINATOR_PROXY: segment URIs on Trino's own address, so a test's proxy in front of Trino sees them too).
 * The same server holds the warehouse of the `lake` catalog (local-lake.ts), the target of loads.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SPOOL_BUCKET, type LocalS3Layout } from './local-s3.js';
import { lakeProperties } from './local-lake.js';
import { DEMO_CATALOG } from './demo-data.js';

/** How a local Trino's JVM runs; the defaults are Trino's own, the other modes are the test suite's. */
export interface JvmModes {
  /**
   * `full` (the default): C1 then C2, as Trino ships, for benchmarks. `quick`: C1 alone, for the test suite, whose
   * thousands of small queries each bring new generated classes: with C2 the compiler threads took about a quarter
   * of the test Trino's CPU (`TOPICGATE_LOCAL_TRINO_JIT`).
   */
  jit: 'full' | 'quick';
  /**
   * `g1` (the default): the G1 collector, as Trino ships. `parallel`: the throughput collector, for the test suite,
   * whose Trino allocates briefly for thousands of small queries and never needs short pauses: it took a tenth less
   * of the test Trino's CPU than G1 (`TOPICGATE_LOCAL_TRINO_GC`).
   */
  gc: 'g1' | 'parallel';
}

/** Every combination of the JVM modes: a running Trino started in any of them is one this script configured. */
export const JVM_MODES: readonly JvmModes[] = (['full', 'quick'] as const).flatMap((jit) =>
  (['g1', 'parallel'] as const).map((gc) => ({ jit, gc })),
);

export interface ConfigTarget extends Partial<JvmModes> {
  port: number;
  runDir: string;
  pgPort: number;
}

/** File name (relative to etc/) -> contents. */
export type ConfigFiles = Record<string, string>;

const lines = (...l: string[]) => `${l.join('\n')}\n`;

/** The protocol's shared secret: made once per run folder, kept there (not in the project). */
function sharedSecret(runDir: string): string {
  const file = join(runDir, 'spooling-secret');
  if (!existsSync(file)) {
    mkdirSync(runDir, { recursive: true });
    writeFileSync(file, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600 });
  }
  return readFileSync(file, 'utf8').trim();
}

/** A JVM heap size (`6G`, `16g`, `6144m`) in MiB. */
export function heapMb(heap: string): number {
  const m = /^(\d+)([gGmM])$/.exec(heap.trim());
  if (!m) throw new Error(`TOPICGATE_LOCAL_TRINO_HEAP: ${JSON.stringify(heap)} is not a size such as 6G or 6144m`);
  return Number(m[1]) * (m[2]!.toLowerCase() === 'g' ? 1024 : 1);
}

/** jvm.config of a local Trino (this one and the secure ones, secure-trino.ts) with a heap of `heap`. */
export function jvmConfig(heap: string, m: Partial<JvmModes>): string {
  return lines(
    '-server',
    `-Xmx${heap}`,
    m.gc === 'parallel' ? '-XX:+UseParallelGC' : '-XX:+UseG1GC',
    ...(m.jit === 'quick' ? ['-XX:TieredStopAtLevel=1'] : []),
    '-XX:+ExitOnOutOfMemoryError',
    '-XX:-UsePerfData',
    '-Djdk.attach.allowAttachSelf=true',
    '-XX:+EnableDynamicAgentLoading',
    '-Dfile.encoding=UTF-8',
  );
}

/** Every file of etc/; `s3` (when moto can run) turns spooling on. */
export function configFiles(l: ConfigTarget, s3: LocalS3Layout | undefined): ConfigFiles {
  const heap = process.env.TOPICGATE_LOCAL_TRINO_HEAP ?? '6G';
  const files: ConfigFiles = {
    'node.properties': lines(
      'node.environment=topicgate_local',
      `node.id=topicgate-local-${l.port}`,
      `node.data-dir=${join(l.runDir, 'data')}`,
      'node.internal-address=127.0.0.1',
    ),
    'jvm.config': jvmConfig(heap, l),
    'config.properties': lines(
      'coordinator=true',
      'node-scheduler.include-coordinator=true',
      `http-server.http.port=${l.port}`,
      `discovery.uri=http://127.0.0.1:${l.port}`,
      // A third of the heap per query on the node, half of it for all of a query (2GB and 3GB of the default 6G).
      `query.max-memory=${Math.floor(heapMb(heap) / 2)}MB`,
      `query.max-memory-per-node=${Math.floor(heapMb(heap) / 3)}MB`,
      'task.concurrency=2',
      // Nothing reads the HTTP request log of a local Trino (some 25 lines a query).
      'http-server.log.enabled=false',
      // Tests read system.runtime.queries to see cancelled queries; keep them listed a minute, not longer: every read
      // of that table builds the info of every query kept (with 10 minutes of a test run's queries, some 4,600, a read
      // of it cost Trino 86 ms of CPU against 27 for SELECT 1), and the query manager walks them every second.
      'query.min-expire-age=1m',
      // A finished task's info is kept 15 minutes by default, and the task manager walks every kept task five
      // times a second (abandoned-task checks that build each one's info): after a few thousand small queries
      // that walk was an eighth of the test Trino's CPU (still 7% of it with a minute's tasks kept). The coordinator
      // has a task's final info long before ten seconds.
      'task.info.max-age=10s',
      ...(s3
        ? [
            'protocol.spooling.enabled=true',
            `protocol.spooling.shared-secret-key=${sharedSecret(l.runDir)}`,
            'protocol.spooling.retrieval-mode=COORDINATOR_PROXY',
            // Smaller than Trino's defaults (1000 rows, 128kB), so the demo topics' results come as spooled
            // segments besides inline ones (each table page of the memory connector holds about 1000 rows).
            'protocol.spooling.inlining.max-rows=256',
            'protocol.spooling.inlining.max-size=32kB',
            // Smaller segments than Trino's defaults (8MB growing to 16MB): a reader parses one segment at a time,
            // and a gateway's event loop should not stop for a 16 MB JSON parse.
            'protocol.spooling.initial-segment-size=1MB',
            'protocol.spooling.max-segment-size=4MB',
          ]
        : ['protocol.spooling.enabled=false']),
    ),
    'log.properties': lines('io.trino=WARN'),
    // `vast`: the VAST-shaped demo topics (memory connector: no pushdown at all, like a negative control).
    // Splits per node: each split's scan reserves all of its pages in Trino's memory pool at once, so a bench that
    // scans 10^7 rows from 16 queries at once asks for finer splits (TOPICGATE_LOCAL_TRINO_MEMORY_SPLITS).
    [`catalog/${DEMO_CATALOG}.properties`]: lines(
      'connector.name=memory',
      'memory.max-data-per-node=4GB',
      ...(process.env.TOPICGATE_LOCAL_TRINO_MEMORY_SPLITS
        ? [`memory.splits-per-node=${Number(process.env.TOPICGATE_LOCAL_TRINO_MEMORY_SPLITS)}`]
        : []),
    ),
    // `vastpg`: the same topics on PostgreSQL, where Trino really pushes predicates into the scan.
    'catalog/vastpg.properties': lines(
      'connector.name=postgresql',
      `connection-url=jdbc:postgresql://127.0.0.1:${l.pgPort}/topicgate`,
      'connection-user=topicgate',
      'connection-password=topicgate',
    ),
  };
  if (s3) {
    files['catalog/lake.properties'] = lakeProperties(l, s3);
    files['spooling-manager.properties'] = lines(
      'spooling-manager.name=filesystem',
      'fs.s3.enabled=true',
      `fs.location=s3://${SPOOL_BUCKET}/`,
      `s3.endpoint=${s3.url}`,
      's3.region=us-east-1',
      's3.path-style-access=true',
      // moto accepts any key; a real deployment names its own (docs/trino.md, "Spooling results through storage").
      's3.aws-access-key=topicgate',
      's3.aws-secret-key=topicgate',
    );
  }
  return files;
}

export function configStamp(files: ConfigFiles): string {
  const h = createHash('sha256');
  for (const name of Object.keys(files).sort()) h.update(`${name}\0${files[name]}\0`);
  return h.digest('hex');
}

const stampFile = (runDir: string) => join(runDir, 'config.sha256');

/** The stamp of the configuration the server in `runDir` was started with, if it was started by this script. */
export function readStamp(runDir: string): string | undefined {
  return existsSync(stampFile(runDir)) ? readFileSync(stampFile(runDir), 'utf8').trim() : undefined;
}

/** Writes etc/ afresh (no file of an older configuration left behind) and the stamp beside it. */
export function writeConfig(runDir: string, files: ConfigFiles): string {
  const etc = join(runDir, 'etc');
  rmSync(etc, { recursive: true, force: true });
  mkdirSync(join(etc, 'catalog'), { recursive: true });
  mkdirSync(join(runDir, 'data'), { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(etc, name), text);
  writeFileSync(stampFile(runDir), `${configStamp(files)}\n`);
  return etc;
}
