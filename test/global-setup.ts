/**
 * Brings up the real parts the integration tests talk to: the local Trino with the demo topics.
 * Stops afterwards only what it started, so a developer's running Trino is left alone.
 */
import type { TestProject } from 'vitest/node';
import { down, up } from '../scripts/local-trino.js';
import { loadDemo } from '../scripts/load-demo.js';

declare module 'vitest' {
  export interface ProvidedContext {
    trinoUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const trino = await up();
  const { sizes, seconds } = await loadDemo(trino.url);
  process.stderr.write(`[test] Trino ${trino.url} (${trino.started ? 'started' : 'already running'}); demo ${JSON.stringify(sizes)} loaded in ${seconds.toFixed(1)}s\n`);
  project.provide('trinoUrl', trino.url);
  return async () => {
    if (trino.started) await down();
  };
}
