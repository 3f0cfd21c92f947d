/**
 * Starts the longest test files first, so that on two workers no long file is left to run alone at the end.
 * vitest's own order does this only from its results cache, which a fresh clone (and CI) does not have: there it
 * starts the larger files first, and two of the five longest (schemathesis, flat-memory) are short files that
 * then start among the last. Here the files in FIRST start first, in its order; then the files listed in
 * EXPECTED_SECONDS by their time there, the others by their time in the results cache, and the rest last, larger
 * files first.
 */
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that start first, in this order. Two long files mostly wait: compression-backpressure on its slow
 * clients, schemathesis on its one request at a time. Side by side (as by their times alone), the two cores were
 * 60-85% busy for the minute they overlapped. Here compression-backpressure starts first, beside hostile (the file
 * that sends Trino the most queries); schemathesis comes after it, beside trino-faults, spooling and compression.
 * schemathesis must not run beside hostile: it fails a response slower than 10 s. Idle CPU-seconds of the two cores
 * over a run: 91 and 100 with the two side by side, 74 in this order, 53 once compression-backpressure paused its
 * four reads together.
 */
const FIRST = [
  'integration-isolated:test/integration/compression-backpressure.test.ts',
  // The demo's own Trino, PostgreSQL and registry start and stop (60-130 s, most of it waiting for them): beside
  // compression-backpressure's slow clients, before the files that keep the suite's Trino busy.
  'integration:test/integration/demo-stop.test.ts',
  'integration:test/integration/hostile.test.ts',
  'integration:test/integration/trino-faults.test.ts',
  // The cluster's file as soon as the cluster may be up (the global setup starts it once the other services are),
  // which it stops when done: early, the run carries its three JVMs for two minutes instead of the whole run.
  'integration:test/integration/trino-cluster.test.ts',
  'integration:test/schemathesis/schemathesis.test.ts',
  'integration:test/integration/spooling.test.ts',
  'integration:test/integration/compression.test.ts',
  'integration:test/integration/load-faults.test.ts',
  'integration:test/integration/cursor-faults.test.ts',
  'integration:test/integration/cluster-sessions.test.ts',
];

/**
 * About how many seconds each other file of 5 s or more takes on two quiet cores (the slowest files are printed at
 * the end of every run). The list wins over the results cache, whose times come from whatever ran last, and which
 * a fresh clone (and CI) does not have.
 */
const EXPECTED_SECONDS: Readonly<Record<string, number>> = {
  'integration:test/integration/readers.test.ts': 25,
  'integration:test/integration/read-sessions.test.ts': 22,
  'integration-isolated:test/integration/flat-memory.test.ts': 21,
  'integration:test/integration/trino-secure.test.ts': 21,
  'integration:test/integration/postgrest-parity.test.ts': 19,
  'integration:test/integration/examples.test.ts': 18,
  'integration:test/integration/parquet-pyarrow.test.ts': 17,
  'integration:test/integration/paging.test.ts': 16,
  'integration:test/integration/heap-attack.test.ts': 16,
  'integration:test/integration/startup.test.ts': 13,
  'integration:test/integration/follow.test.ts': 13,
  'integration:test/integration/limits.test.ts': 13,
  'integration:test/integration/slices.test.ts': 13,
  'integration:test/browser/explore.test.ts': 12,
  'integration:test/integration/json-paths.test.ts': 12,
  'integration:test/integration/shutdown.test.ts': 12,
  'integration:test/integration/loads.test.ts': 11,
  'integration:test/integration/read-policy.test.ts': 11,
  'integration:test/integration/cluster.test.ts': 10,
  'integration:test/integration/queue-wait.test.ts': 10,
  'integration:test/browser/swagger-ui.test.ts': 9,
  'integration:test/integration/query-slots-exact.test.ts': 8,
  'integration:test/integration/cursors.test.ts': 8,
  'integration:test/integration/read-sessions-avro.test.ts': 7,
  'integration:test/integration/cancel.test.ts': 7,
  'integration:test/integration/row-policies.test.ts': 7,
  'integration:test/integration/example-loader.test.ts': 7,
  'integration:test/integration/read-cache.test.ts': 6,
  'integration:test/integration/bulk.test.ts': 6,
  'integration:test/browser/explore-follow.test.ts': 6,
  'integration:test/integration/timeout.test.ts': 6,
  'integration:test/integration/query-slots.test.ts': 6,
  'integration:test/integration/sql-text-real.test.ts': 5,
  'integration:test/browser/explore-access.test.ts': 5,
};

/**
 * The unit files first, while the global setup starts the services in the background (test/global-setup.ts); then
 * the integration files, longest expected first across the projects of a group: the two integration projects share
 * the two workers. vitest keeps a worker of a project that shares its workers (`isolate: false`) only while the next
 * file in the queue is of the same project: interleaved by size, unit and integration files made it start a fresh
 * worker, and import the app again, for most files (37-39 worker processes in a run; 12 with the unit files apart).
 */
export default class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const key = (f: TestSpecification) => `${f.project.name}:${relative(root, f.moduleId)}`;
    const first = (f: TestSpecification) => {
      const i = FIRST.indexOf(key(f));
      return i < 0 ? FIRST.length : i;
    };
    const expectedMs = (f: TestSpecification) =>
      (EXPECTED_SECONDS[key(f)] ?? 0) * 1000 || (this.ctx.cache.getFileTestResults(key(f))?.duration ?? 0);
    const size = (f: TestSpecification) => this.ctx.cache.getFileStats(key(f))?.size ?? 0;
    const unitFirst = (f: TestSpecification) => (f.project.name === 'unit' ? 0 : 1);
    return [...files].sort(
      (a, b) =>
        a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder ||
        unitFirst(a) - unitFirst(b) ||
        first(a) - first(b) ||
        expectedMs(b) - expectedMs(a) ||
        size(b) - size(a),
    );
  }
}
