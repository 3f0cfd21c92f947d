import { defineConfig } from 'vitest/config';
import LongestFirstSequencer from './test/longest-first-sequencer.js';

/**
 * Two projects: `unit` needs no service and runs in seconds (`npm run test:unit`); `integration` (with the
 * browser, pyarrow and schemathesis tests) talks to the real Trino and PostgreSQL that its global setup starts.
 * Every run ends with its slowest files (test/slowest-files-reporter.ts).
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
          name: 'integration',
          include: ['test/integration/**/*.test.ts', 'test/browser/**/*.test.ts', 'test/schemathesis/**/*.test.ts'],
          // Starts the local Trino (and PostgreSQL) and loads the demo topics once for the whole run.
          globalSetup: ['test/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 300_000,
        },
      },
    ],
  },
});
