/**
 * One run of a load (API.md "Loads run by Trino"): the window [position, until) of whole broker milliseconds is
 * deleted from the target, inserted from the topic, counted in the target, and only then is the position moved to
 * `until`, by a compare-and-set. Each statement is one Trino query that commits or does not, so a run that fails or
 * is killed anywhere leaves the position where it was, and the next run deletes and inserts the same window again:
 * the target ends with every event of every committed window exactly once. The caller holds the load's lock.
 */
import { randomUUID } from 'node:crypto';
import { ApiError } from '../core/errors.js';
import type { PlannedRead } from '../query/planner.js';
import type { LoadStatements } from '../query/sql/compile-load.js';
import type { TargetNode } from '../query/tree/nodes.js';
import { trinoTimestampText } from '../core/trino-timestamp.js';
import { toApiError, TrinoQueryError } from '../trino/trino-errors.js';
import { collectRows, type QueryOptions, type TrinoPort } from '../trino/trino-port.js';
import type { LoadRecord, LoadRun, LoadStore } from './load-store.js';
import { checkClaim, targetState, targetTaken } from './load-claims.js';
import type { RunStep } from './load-parts.js';
import { targetText } from './load-target.js';

export interface RunContext {
  store: LoadStore;
  load: LoadRecord;
  target: TargetNode;
  /** The plan of the window, already bounded by the planner (its position.hi is the window's end). */
  plan: PlannedRead;
  marker: string;
  trino: TrinoPort;
  timeoutMs: number;
  observe?: (step: RunStep, run: LoadRun) => Promise<void>;
}

/** Runs the window of `c.plan` into the target and commits the position; the committed run. */
export async function runWindow(c: RunContext): Promise<LoadRun> {
  const run: LoadRun = {
    name: c.load.name,
    runId: randomUUID(),
    from: c.load.position,
    until: trinoTimestampText(c.plan.position.hi!),
    rows: null,
    queryIds: [],
    startedAt: new Date().toISOString(),
    finishedAt: null,
    outcome: 'running',
    error: null,
  };
  await c.store.saveRun(run);
  const opts: QueryOptions = { ...c.plan.run, timeoutMs: c.timeoutMs };
  const exec = async (sql: string): Promise<unknown[][]> => {
    const result = await c.trino.query(sql, opts);
    run.queryIds.push(result.queryId);
    await c.store.saveRun(run);
    return (await collectRows(result)).rows;
  };
  const step = async (s: RunStep) => c.observe?.(s, run);
  try {
    const sql = c.plan.loadSql(c.target, c.marker);
    await ensureTarget(c, sql, exec, opts);
    await exec(sql.delete);
    await step('deleted');
    run.rows = Number((await exec(sql.insert))[0]?.[0] ?? 0);
    await step('inserted');
    const held = Number((await exec(sql.count))[0]?.[0] ?? 0);
    if (held !== run.rows) {
      throw new ApiError(
        'TG_LOAD_RUNNING',
        `the target holds ${held} events of the window after this run inserted ${run.rows}: another writer changed it meanwhile; run again`,
      );
    }
    await step('counted');
    const done: LoadRun = { ...run, outcome: 'committed', finishedAt: new Date().toISOString() };
    if (!(await c.store.commit(run.name, c.load.position, run.until, done))) {
      throw new ApiError('TG_LOAD_NOT_FOUND', `load ${JSON.stringify(run.name)} was deleted or moved during the run`);
    }
    return done;
  } catch (err) {
    const api = toApiError(err);
    if (api.queryId && !run.queryIds.includes(api.queryId)) run.queryIds.push(api.queryId);
    const failed: LoadRun = {
      ...run,
      outcome: 'failed',
      error: `${api.code}: ${api.message}`,
      finishedAt: new Date().toISOString(),
    };
    await c.store.saveRun(failed).catch(() => {});
    throw err;
  }
}

/**
 * The target as the load's claim allows (load-claims.ts), made with its schema when missing: its columns and types
 * are the plan's select. The claim is marked made before the CREATE, so a run killed after it finds its own table;
 * the CREATE has no IF NOT EXISTS, so a table someone made meanwhile fails it, and the mark is taken back.
 */
async function ensureTarget(
  c: RunContext,
  sql: LoadStatements,
  exec: (sql: string) => Promise<unknown[][]>,
  opts: QueryOptions,
): Promise<void> {
  const state = await targetState(c.trino, c.target, opts);
  await checkClaim(c.store, c.load, c.target, state.table);
  if (state.table) return;
  const target = targetText(c.target);
  if (!(await c.store.markCreated(target, c.load.name, true))) throw targetTaken(target);
  if (!state.schema) await exec(sql.createSchema);
  try {
    await exec(sql.create);
  } catch (err) {
    // Trino's answer says the table was not made; any other failure leaves it unknown, and the mark stays.
    if (!(err instanceof TrinoQueryError)) throw err;
    await c.store.markCreated(target, c.load.name, false);
    throw err.info.errorName === 'TABLE_ALREADY_EXISTS' ? targetTaken(target) : err;
  }
}
