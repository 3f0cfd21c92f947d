import { defineConfig } from 'vitest/config';
import LongestFirstSequencer from './test/longest-first-sequencer.js';

/**
 * The integration files that measure time or memory: each runs in a fresh module graph of its own, as
 * `integration-isolated`. The others share one module graph per worker (`isolate: false`).
 */
const ISOLATED = [
  'test/integration/hostile-size.test.ts',
  'test/integration/hostile-depth.test.ts',
  'test/integration/flat-memory.test.ts',
  'test/integration/compression-backpressure.test.ts',
];

const integration = {
  // Starts the local Trino, PostgreSQL and the registry, and loads the topics, once for the whole run and in the
  // background: the unit files run meanwhile, and each integration file waits for them (its setup file).
  globalSetup: ['test/global-setup.ts'],
  setupFiles: ['test/services-ready.ts'],
  testTimeout: 60_000,
  hookTimeout: 300_000,
};

/**
 * Three projects: `unit` needs no service and runs in seconds (`npm run test:unit`); `integration` and
 * `integration-isolated` (with the browser, pyarrow and schemathesis tests) talk to the real Trino and PostgreSQL
 * that their global setup starts (`npm run test:integration` runs both). Every run ends with its slowest files
 * (test/slowest-files-reporter.ts).
 */
export default defineConfig({
  test: {
    // Two cores share the work with Trino: keep the test workers few.
    maxWorkers: 2,
    reporters: ['default', './test/slowest-files-reporter.ts'],
    sequence: { sequencer: LongestFirstSequencer },
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          // One module graph per worker, not per file: each file imported fastify, Arrow and the app afresh, which was
          // most of the project's CPU (61 s of CPU for the run isolated, 34 s not). No unit test mocks a module or
          // leaves global state behind (config.test.ts restores the one variable it sets).
          isolate: false,
          testTimeout: 60_000,
        },
      },
      {
        test: {
          ...integration,
          name: 'integration',
          include: ['test/integration/**/*.test.ts', 'test/browser/**/*.test.ts', 'test/schemathesis/**/*.test.ts'],
          exclude: ISOLATED,
          // As in `unit`: importing the app afresh for each of 55 files cost 95-135 s of the run. Every file closes
          // the apps and servers it starts; none mocks a module.
          isolate: false,
        },
      },
      {
        test: {
          ...integration,
          name: 'integration-isolated',
          include: ISOLATED,
        },
      },
    ],
  },
});
