import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Starts the local Trino (and PostgreSQL) and loads the demo topics once for the whole run.
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 300_000,
    // Two cores share the work with Trino: keep the test workers few.
    maxWorkers: 2,
  },
});
