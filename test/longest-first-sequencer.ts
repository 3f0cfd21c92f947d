/**
 * Starts the longest test files first, so that on two workers no long file is left to run alone at the end.
 * vitest's own order does this only from its results cache, which a fresh clone (and CI) does not have: there it
 * starts the larger files first, and two of the five longest (schemathesis, flat-memory) are short files that
 * then start among the last. Here the files listed below take their place from the list, the others from their
 * time in the results cache, and the rest start last, larger files first.
 */
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * About how many seconds each file takes on two quiet cores (the slowest files are printed at the end of every
 * run); only the files long enough for their place in the order to matter. The list wins over the results cache,
 * whose times come from whatever ran last: after a run on a loaded machine they put schemathesis first, beside
 * hostile, the file that sends Trino the most queries, and schemathesis fails a response slower than 10 s.
 */
const EXPECTED_SECONDS: Readonly<Record<string, number>> = {
  'integration:test/integration/trino-faults.test.ts': 150,
  'integration:test/integration/hostile.test.ts': 140,
  'integration:test/schemathesis/schemathesis.test.ts': 90,
  'integration-isolated:test/integration/compression-backpressure.test.ts': 90,
  'integration:test/integration/spooling.test.ts': 80,
  'integration:test/integration/load-faults.test.ts': 60,
  'integration:test/integration/readers.test.ts': 50,
  'integration:test/integration/slices.test.ts': 40,
  'integration:test/integration/cursor-faults.test.ts': 35,
  'integration:test/integration/postgrest-parity.test.ts': 35,
  'integration:test/integration/cluster-sessions.test.ts': 35,
  'integration-isolated:test/integration/flat-memory.test.ts': 30,
  'integration:test/integration/trino-secure.test.ts': 30,
  'integration:test/integration/parquet-pyarrow.test.ts': 30,
  'integration:test/integration/examples.test.ts': 30,
  'integration:test/integration/avro-registry.test.ts': 25,
  'integration:test/integration/startup.test.ts': 25,
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
    const expectedMs = (f: TestSpecification) =>
      (EXPECTED_SECONDS[key(f)] ?? 0) * 1000 || (this.ctx.cache.getFileTestResults(key(f))?.duration ?? 0);
    const size = (f: TestSpecification) => this.ctx.cache.getFileStats(key(f))?.size ?? 0;
    const unitFirst = (f: TestSpecification) => (f.project.name === 'unit' ? 0 : 1);
    return [...files].sort(
      (a, b) =>
        a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder ||
        unitFirst(a) - unitFirst(b) ||
        expectedMs(b) - expectedMs(a) ||
        size(b) - size(a),
    );
  }
}
