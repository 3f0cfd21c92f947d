/**
 * The last step of starting a local Trino (local-trino.ts, secure-trino.ts): waiting until it schedules a scan.
 *
 * A Trino just started says it is ready (`/v1/info`) and runs DDL and INSERTs, but for a few seconds more it fails
 * every scan of a catalog's table with NO_NODES_AVAILABLE: its scheduler does not yet count itself among the
 * catalog's nodes. Measured here on the secure Trino: scans failed from 1.5 to 2.4 s after readiness and ran from
 * 3.1 s on. A gateway's read in that window is rightly a 503 with Retry-After; a started Trino handed to the tests or
 * the demo must already serve reads.
 */
import { randomBytes } from 'node:crypto';
import { quoteIdent } from '../src/query/sql/sql-text.js';
import { TrinoQueryError } from '../src/trino/trino-errors.js';
import type { TrinoPort } from '../src/trino/trino-port.js';

/** Far above the 3 s seen: a loaded machine stretches it. */
const SCANNABLE_WITHIN_MS = 60_000;
const RETRY_MS = 250;

/**
 * Resolves once a scan of a table in `catalog` (a memory catalog) runs: a probe table is made in a schema of its
 * own (named afresh each time, so two starts waiting on one Trino do not meet), scanned until the scan is
 * scheduled, and dropped with its schema. Any other failure rejects at once.
 */
export async function untilScannable(
  trino: TrinoPort,
  catalog: string,
  timeoutMs = SCANNABLE_WITHIN_MS,
): Promise<void> {
  const schema = `${quoteIdent(catalog)}.${quoteIdent(`topicgate_start_${randomBytes(4).toString('hex')}`)}`;
  const probe = `${schema}.${quoteIdent('probe')}`;
  await trino.all(`CREATE SCHEMA ${schema}`);
  await trino.all(`CREATE TABLE ${probe} AS SELECT 1 AS x`);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await trino.all(`SELECT count(*) FROM ${probe}`);
      break;
    } catch (err) {
      const unscheduled = err instanceof TrinoQueryError && err.info.errorName === 'NO_NODES_AVAILABLE';
      if (!unscheduled || Date.now() > deadline) throw err;
      await new Promise((res) => setTimeout(res, RETRY_MS));
    }
  }
  await trino.all(`DROP TABLE ${probe}`);
  await trino.all(`DROP SCHEMA ${schema}`);
}
