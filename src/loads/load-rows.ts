/**
 * What the two load stores share: table names, the schema's layout, the rows they read and write and their
 * mappers. Instants are ISO text in both stores (text order is time order), positions Trino timestamp text.
 */
import type { StateDialect } from '../state/dialect.js';
import { ownerOf } from './load-keys.js';
import type { LoadRecord, LoadRun, RunOutcome, TargetClaim } from './load-store.js';

export const LOADS_TABLE = 'topicgate_loads';
export const RUNS_TABLE = 'topicgate_load_runs';
/** One row per target table a load claimed: the primary key on the target makes a claim race-free. */
export const CLAIMS_TABLE = 'topicgate_load_targets';

/** Integer columns: SQLite answers numbers, PostgreSQL's bigint answers text. */
type Int = number | string;

export interface LoadRow {
  name: string;
  topic: string;
  definition: string;
  pos_ts: string | null;
  owner: string;
  created_at: string;
  updated_at: string;
}

export interface RunRow {
  name: string;
  run_id: string;
  from_ts: string | null;
  until_ts: string;
  rows: Int | null;
  query_ids: string;
  started_at: string;
  finished_at: string | null;
  outcome: string;
  error: string | null;
}

export interface ClaimRow {
  target: string;
  load_key: string | null;
  owner: string;
  created: Int;
  claimed_at: string;
}

export const CLAIM_COLUMNS = [
  'target',
  'load_key',
  'owner',
  'created',
  'claimed_at',
] as const satisfies readonly (keyof ClaimRow)[];

export const LOAD_COLUMNS = ['name', 'topic', 'definition', 'pos_ts', 'owner', 'created_at', 'updated_at'] as const;
export const RUN_COLUMNS = [
  'name',
  'run_id',
  'from_ts',
  'until_ts',
  'rows',
  'query_ids',
  'started_at',
  'finished_at',
  'outcome',
  'error',
] as const satisfies readonly (keyof RunRow)[];

/** What a run written again replaces: everything but its key. */
export const RUN_REPLACE = RUN_COLUMNS.filter((c) => c !== 'name' && c !== 'run_id')
  .map((c) => `${c} = excluded.${c}`)
  .join(', ');

/** The statements that create the schema, each idempotent; `table` spells a table name in the dialect. */
export function loadSchemaStatements(d: StateDialect): string[] {
  const L = d.table(LOADS_TABLE);
  const R = d.table(RUNS_TABLE);
  return [
    `CREATE TABLE IF NOT EXISTS ${L} (
      name        ${d.text} NOT NULL PRIMARY KEY,
      topic       ${d.text} NOT NULL,
      definition  ${d.text} NOT NULL,
      pos_ts      ${d.text} NULL,
      owner       ${d.text} NOT NULL,
      created_at  ${d.text} NOT NULL,
      updated_at  ${d.text} NOT NULL
    )`,
    `CREATE TABLE IF NOT EXISTS ${R} (
      name        ${d.text} NOT NULL,
      run_id      ${d.text} NOT NULL,
      from_ts     ${d.text} NULL,
      until_ts    ${d.text} NOT NULL,
      rows        ${d.int} NULL,
      query_ids   ${d.text} NOT NULL,
      started_at  ${d.text} NOT NULL,
      finished_at ${d.text} NULL,
      outcome     ${d.text} NOT NULL,
      error       ${d.text} NULL,
      PRIMARY KEY (name, run_id)
    )`,
    `CREATE TABLE IF NOT EXISTS ${d.table(CLAIMS_TABLE)} (
      target      ${d.text} NOT NULL PRIMARY KEY,
      load_key    ${d.text} NULL,
      owner       ${d.text} NOT NULL,
      created     ${d.int} NOT NULL,
      claimed_at  ${d.text} NOT NULL
    )`,
  ];
}

/**
 * The claims of loads stored before targets were claimed, made once when the claims table is created: each target
 * goes to the load that named it first (the one whose first run made the table), and counts as made, so those loads
 * run on. A later load of the same target holds no claim, and its runs are refused.
 */
export function legacyClaims(
  loads: readonly Pick<LoadRow, 'name' | 'owner' | 'definition' | 'created_at'>[],
): ClaimRow[] {
  const claims = new Map<string, ClaimRow>();
  for (const l of [...loads].sort((a, b) => a.created_at.localeCompare(b.created_at) || a.name.localeCompare(b.name))) {
    const { target } = JSON.parse(l.definition) as { target?: unknown };
    if (typeof target !== 'string' || claims.has(target)) continue;
    claims.set(target, { target, load_key: l.name, owner: ownerOf(l), created: 1, claimed_at: l.created_at });
  }
  return [...claims.values()];
}

export function toClaim(r: ClaimRow): TargetClaim {
  return {
    target: r.target,
    load: r.load_key,
    owner: r.owner,
    created: Number(r.created) === 1,
    claimedAt: r.claimed_at,
  };
}

export function runRow(r: LoadRun): RunRow {
  return {
    name: r.name,
    run_id: r.runId,
    from_ts: r.from,
    until_ts: r.until,
    rows: r.rows,
    query_ids: JSON.stringify(r.queryIds),
    started_at: r.startedAt,
    finished_at: r.finishedAt,
    outcome: r.outcome,
    error: r.error,
  };
}

export function toLoad(r: LoadRow): LoadRecord {
  return {
    name: r.name,
    topic: r.topic,
    definition: r.definition,
    position: r.pos_ts,
    owner: r.owner,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

export function toRun(r: RunRow): LoadRun {
  return {
    name: r.name,
    runId: r.run_id,
    from: r.from_ts,
    until: r.until_ts,
    rows: r.rows === null ? null : Number(r.rows),
    queryIds: JSON.parse(r.query_ids) as string[],
    startedAt: r.started_at,
    finishedAt: r.finished_at,
    outcome: r.outcome as RunOutcome,
    error: r.error,
  };
}
