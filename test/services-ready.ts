/**
 * Each integration file first waits for the services the global setup starts in the background
 * (test/global-setup.ts), and fails with the setup's own error when they did not start. Once they are up this is
 * one file read.
 */
import { existsSync, readFileSync } from 'node:fs';
import { inject } from 'vitest';

/** Longer than a first run's downloads of Trino, the registry and PostgreSQL's packages take. */
const WAIT_MS = 20 * 60_000;

async function servicesReady(file: string): Promise<void> {
  const deadline = Date.now() + WAIT_MS;
  while (!existsSync(file)) {
    if (Date.now() > deadline) throw new Error(`[test] the services did not start in ${WAIT_MS / 1000} s`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const state = readFileSync(file, 'utf8');
  if (state !== 'ready') throw new Error(`[test] the services did not start: ${state.replace(/^failed: /, '')}`);
}

await servicesReady(inject('servicesFile'));
