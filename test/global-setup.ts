/**
 * Brings up the real parts the integration tests talk to: the local PostgreSQL (behind Trino's `vastpg` catalog)
 * and the local Trino, with the demo topics in `vast` and their copy in `vastpg`.
 * Stops afterwards only what it started, so a developer's running servers are left alone.
 * PostgreSQL is not optional: when it cannot start, the whole setup fails (the pushdown tests never skip).
 */
import type { TestProject } from 'vitest/node';
import { pgDown, pgUp } from '../scripts/local-postgres.js';
import { down, up } from '../scripts/local-trino.js';
import { loadDemo } from '../scripts/load-demo.js';

declare module 'vitest' {
  export interface ProvidedContext {
    trinoUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const pg = await pgUp().catch((err: unknown) => {
    throw new Error(
      `[test] PostgreSQL (for the vastpg catalog) did not start: ${err instanceof Error ? err.message : String(err)}`,
    );
  });
  let trino: Awaited<ReturnType<typeof up>> | undefined;
  const teardown = async () => {
    if (trino?.started) await down();
    if (pg.started) await pgDown();
  };
  try {
    trino = await up();
    const { sizes, seconds, pgSeconds, reused } = await loadDemo(trino.url, undefined, { pgCopy: true, reuse: true });
    process.stderr.write(
      `[test] Trino ${trino.url} (${trino.started ? 'started' : 'already running'}); ` +
        `PostgreSQL ${pg.url.replace(/:[^:@/]*@/, ':***@')} (${pg.started ? 'started' : 'already running'}); ` +
        (reused
          ? `demo ${JSON.stringify(sizes)} already loaded\n`
          : `demo ${JSON.stringify(sizes)} loaded in ${seconds.toFixed(1)}s (PostgreSQL copy ${pgSeconds?.toFixed(1)}s)\n`),
    );
  } catch (err) {
    // A failed setup returns no teardown to vitest: stop here what this run started.
    await teardown().catch(() => {});
    throw err;
  }
  project.provide('trinoUrl', trino.url);
  return teardown;
}
