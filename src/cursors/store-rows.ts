/**
 * What the two cursor stores (SQLite and PostgreSQL) share: table and column names, the schema's layout, the rows
 * they read and write, and the mappers between rows and records. Only the dialect differs, in each store's file:
 * column types, placeholders, how instants are read back, locking and transactions.
 */
import type { StateDialect } from '../state/dialect.js';
import type { CursorRecord, HistoryEntry } from './cursor-store.js';
import { toInstant } from './store-checks.js';

export const CURSORS_TABLE = 'topicgate_cursors';
export const HISTORY_TABLE = 'topicgate_cursor_history';

/** Integer columns: SQLite answers numbers, PostgreSQL's bigint answers text. */
type Int = number | string;

export interface CursorRow {
  name: string;
  topic: string;
  definition: string;
  pos_ts: string | null;
  pos_skip: Int;
  generation: Int;
  pending: string | null;
  owner: string;
  incarnation: string;
  created_at: string;
  updated_at: string;
}

export interface HistoryRow {
  name: string;
  batch_id: string;
  from_ts: string | null;
  from_skip: Int;
  to_ts: string | null;
  to_skip: Int;
  rows: Int;
  committed_at: string;
}

/** The columns a new cursor row is given (its instants are set by the store, from its own clock). */
export const NEW_CURSOR_COLUMNS = [
  'name',
  'topic',
  'definition',
  'pos_ts',
  'pos_skip',
  'generation',
  'pending',
  'owner',
  'incarnation',
] as const satisfies readonly (keyof CursorRow)[];
export type NewCursorRow = Pick<CursorRow, (typeof NEW_CURSOR_COLUMNS)[number]>;

/** The columns a history entry is written and read with (`seq`, its order, is the store's own). */
export const HISTORY_COLUMNS = [
  'name',
  'batch_id',
  'from_ts',
  'from_skip',
  'to_ts',
  'to_skip',
  'rows',
  'committed_at',
] as const satisfies readonly (keyof HistoryRow)[];

export const CURSOR_COLUMNS = [
  ...NEW_CURSOR_COLUMNS,
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof CursorRow)[];
const INSTANTS: ReadonlySet<string> = new Set(['created_at', 'updated_at', 'committed_at']);

/** What a history entry committed again (possible after a seek) replaces: everything but its key and order. */
export const HISTORY_REPLACE = HISTORY_COLUMNS.filter((c) => c !== 'name' && c !== 'batch_id')
  .map((c) => `${c} = excluded.${c}`)
  .join(', ');

/** How one SQL dialect spells the cursor tables: the state's types and names, and what only they need. */
export interface Dialect extends StateDialect {
  /** An instant column's type (ISO text in SQLite, timestamptz in PostgreSQL). */
  instant: string;
  /** The whole definition of the history's `seq` column: how the dialect numbers entries. */
  seq: string;
  /** An index name as written in CREATE INDEX. */
  index(name: string): string;
  /** An instant column read back as ISO text with milliseconds, named as the column. */
  readInstant(column: string): string;
}

/** The statements that create the schema, each idempotent. */
export function schemaStatements(d: Dialect): string[] {
  const C = d.table(CURSORS_TABLE);
  const H = d.table(HISTORY_TABLE);
  return [
    `CREATE TABLE IF NOT EXISTS ${C} (
      name        ${d.text} NOT NULL PRIMARY KEY,
      topic       ${d.text} NOT NULL,
      definition  ${d.text} NOT NULL,
      pos_ts      ${d.text} NULL,
      pos_skip    ${d.int} NOT NULL,
      generation  ${d.int} NOT NULL,
      pending     ${d.text} NULL,
      owner       ${d.text} NOT NULL DEFAULT 'anonymous',
      incarnation ${d.text} NOT NULL DEFAULT '',
      created_at  ${d.instant} NOT NULL,
      updated_at  ${d.instant} NOT NULL
    )`,
    `CREATE TABLE IF NOT EXISTS ${H} (
      name         ${d.text} NOT NULL,
      batch_id     ${d.text} NOT NULL,
      seq          ${d.seq},
      from_ts      ${d.text} NULL,
      from_skip    ${d.int} NOT NULL,
      to_ts        ${d.text} NULL,
      to_skip      ${d.int} NOT NULL,
      rows         ${d.int} NOT NULL,
      committed_at ${d.instant} NOT NULL,
      PRIMARY KEY (name, batch_id)
    )`,
    `CREATE INDEX IF NOT EXISTS ${d.index(`${HISTORY_TABLE}_by_seq`)} ON ${H} (name, seq)`,
    `CREATE INDEX IF NOT EXISTS ${d.index(`${HISTORY_TABLE}_by_time`)} ON ${H} (committed_at)`,
  ];
}

/**
 * Columns added after the first layout (cursor ownership), with what a cursor made before them gets: it
 * was made when every caller was anonymous, and its batch tokens are bound to no incarnation.
 */
export const ADDED_CURSOR_COLUMNS = ['owner', 'incarnation'] as const satisfies readonly (keyof CursorRow)[];

/** The statement adding one of them to a table made before it (`IF NOT EXISTS` where the dialect has it). */
export function addColumnStatement(
  d: Dialect,
  column: (typeof ADDED_CURSOR_COLUMNS)[number],
  ifNotExists: boolean,
): string {
  const fallback = column === 'owner' ? "'anonymous'" : "''";
  return `ALTER TABLE ${d.table(CURSORS_TABLE)} ADD COLUMN ${ifNotExists ? 'IF NOT EXISTS ' : ''}${column} ${d.text} NOT NULL DEFAULT ${fallback}`;
}

/** A select list of the columns, instants read back as ISO text. */
export function selectList(d: Dialect, columns: readonly string[]): string {
  return columns.map((c) => (INSTANTS.has(c) ? d.readInstant(c) : c)).join(', ');
}

export function cursorRow(r: Omit<CursorRecord, 'createdAt' | 'updatedAt'>): NewCursorRow {
  return {
    name: r.name,
    topic: r.topic,
    definition: r.definition,
    pos_ts: r.position.ts,
    pos_skip: r.position.skip,
    generation: r.generation,
    pending: r.pending,
    owner: r.owner,
    incarnation: r.incarnation,
  };
}

/** The row of a history entry, its instant normalised (a TypeError if it is not an ISO instant with a zone). */
export function historyRow(e: HistoryEntry): HistoryRow {
  return {
    name: e.name,
    batch_id: e.batchId,
    from_ts: e.from.ts,
    from_skip: e.from.skip,
    to_ts: e.to.ts,
    to_skip: e.to.skip,
    rows: e.rows,
    committed_at: toInstant(e.committedAt),
  };
}

export function toRecord(r: CursorRow): CursorRecord {
  return {
    name: r.name,
    topic: r.topic,
    definition: r.definition,
    position: { ts: r.pos_ts, skip: Number(r.pos_skip) },
    generation: Number(r.generation),
    pending: r.pending,
    owner: r.owner,
    incarnation: r.incarnation,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

export function toEntry(r: HistoryRow): HistoryEntry {
  return {
    name: r.name,
    batchId: r.batch_id,
    from: { ts: r.from_ts, skip: Number(r.from_skip) },
    to: { ts: r.to_ts, skip: Number(r.to_skip) },
    rows: Number(r.rows),
    committedAt: r.committed_at,
  };
}
