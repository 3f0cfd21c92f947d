/**
 * The cursor store on SQLite (better-sqlite3): one gateway instance, one file. WAL mode so readers never block the
 * writer; every write runs in a BEGIN IMMEDIATE transaction, so a second process on the same file waits (busy
 * timeout) for the write lock instead of failing on a stale snapshot. better-sqlite3 is synchronous: the async
 * methods run to completion before they return, which makes each of them atomic within this process too.
 *
 * Instants (created/updated/committed) are stored as normalised ISO text (`YYYY-MM-DDTHH:mm:ss.sssZ`), so text
 * order is time order. Position timestamps are opaque text, compared exactly (`IS`, which is null-safe).
 */
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import type { CursorRecord, CursorStore, HistoryEntry, Position } from './cursor-store.js';
import { checkCount, checkEntry, checkName, checkPosition, toInstant } from './store-checks.js';

export const SQLITE_CURSORS_TABLE = 'topicgate_cursors';
export const SQLITE_HISTORY_TABLE = 'topicgate_cursor_history';

export interface SqliteCursorStoreOptions {
  /** How long a write waits for another connection's write lock, in ms (default 5000). */
  busyTimeoutMs?: number;
}

/** The file of a `sqlite:<file>` URL (`sqlite::memory:` is an in-memory database). */
export function sqliteFileOf(stateUrl: string): string {
  if (!stateUrl.startsWith('sqlite:')) throw new Error(`not a sqlite: state URL: ${JSON.stringify(stateUrl)}`);
  const file = stateUrl.slice('sqlite:'.length);
  if (file === '') throw new Error('sqlite: state URL names no file (use sqlite:<file> or sqlite::memory:)');
  return file;
}

interface CursorRow {
  name: string;
  topic: string;
  definition: string;
  pos_ts: string | null;
  pos_skip: number;
  generation: number;
  pending: string | null;
  created_at: string;
  updated_at: string;
}

interface HistoryRow {
  name: string;
  batch_id: string;
  from_ts: string | null;
  from_skip: number;
  to_ts: string | null;
  to_skip: number;
  rows: number;
  committed_at: string;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS ${SQLITE_CURSORS_TABLE} (
  name        TEXT    NOT NULL PRIMARY KEY,
  topic       TEXT    NOT NULL,
  definition  TEXT    NOT NULL,
  pos_ts      TEXT    NULL,
  pos_skip    INTEGER NOT NULL,
  generation  INTEGER NOT NULL,
  pending     TEXT    NULL,
  created_at  TEXT    NOT NULL,
  updated_at  TEXT    NOT NULL
);
CREATE TABLE IF NOT EXISTS ${SQLITE_HISTORY_TABLE} (
  name         TEXT    NOT NULL,
  batch_id     TEXT    NOT NULL,
  seq          INTEGER NOT NULL,
  from_ts      TEXT    NULL,
  from_skip    INTEGER NOT NULL,
  to_ts        TEXT    NULL,
  to_skip      INTEGER NOT NULL,
  rows         INTEGER NOT NULL,
  committed_at TEXT    NOT NULL,
  PRIMARY KEY (name, batch_id)
);
CREATE INDEX IF NOT EXISTS ${SQLITE_HISTORY_TABLE}_by_seq ON ${SQLITE_HISTORY_TABLE} (name, seq);
CREATE INDEX IF NOT EXISTS ${SQLITE_HISTORY_TABLE}_by_time ON ${SQLITE_HISTORY_TABLE} (committed_at);
`;

const HISTORY_COLUMNS = 'name, batch_id, from_ts, from_skip, to_ts, to_skip, rows, committed_at';

export class SqliteCursorStore implements CursorStore {
  readonly file: string;
  private readonly db: Database.Database;
  private ready = false;
  private stmts: ReturnType<typeof prepare> | undefined;

  /** `stateUrl`: `sqlite:<file>` (relative to the working directory; parent directories are created) or `sqlite::memory:`. */
  constructor(stateUrl: string, opts: SqliteCursorStoreOptions = {}) {
    this.file = sqliteFileOf(stateUrl);
    const busyTimeoutMs = opts.busyTimeoutMs ?? 5000;
    if (this.file !== ':memory:') mkdirSync(dirname(resolve(this.file)), { recursive: true });
    this.db = new Database(this.file, { timeout: busyTimeoutMs });
    try {
      this.db.pragma(`busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
      this.db.pragma('journal_mode = WAL');
      // FULL: a committed batch survives a power loss too (else it could be delivered again).
      this.db.pragma('synchronous = FULL');
    } catch (err) {
      this.db.close();
      throw err;
    }
  }

  async init(): Promise<void> {
    this.statements();
  }

  /** Creates the schema on first use and prepares the statements. */
  private statements(): ReturnType<typeof prepare> {
    if (!this.ready) {
      const db = this.db;
      db.transaction(() => db.exec(SCHEMA)).immediate();
      this.ready = true;
    }
    return (this.stmts ??= prepare(this.db));
  }

  async get(name: string): Promise<CursorRecord | null> {
    const row = this.statements().get.get(name) as CursorRow | undefined;
    return row ? toRecord(row) : null;
  }

  async create(
    record: Omit<CursorRecord, 'createdAt' | 'updatedAt'>,
  ): Promise<{ created: boolean; record: CursorRecord }> {
    checkName(record.name);
    checkPosition(record.position);
    checkCount('generation', record.generation);
    const s = this.statements();
    const now = new Date().toISOString();
    return this.db
      .transaction(() => {
        const inserted = s.insert.run({
          name: record.name,
          topic: record.topic,
          definition: record.definition,
          pos_ts: record.position.ts,
          pos_skip: record.position.skip,
          generation: record.generation,
          pending: record.pending,
          now,
        });
        const row = s.get.get(record.name) as CursorRow;
        return { created: inserted.changes === 1, record: toRecord(row) };
      })
      .immediate();
  }

  async setPending(name: string, generation: number, pending: string | null): Promise<boolean> {
    const r = this.statements().setPending.run({ name, generation, pending, now: new Date().toISOString() });
    return r.changes === 1;
  }

  async commit(
    name: string,
    generation: number,
    expected: Position,
    next: Position,
    entry: HistoryEntry,
  ): Promise<boolean> {
    checkPosition(expected);
    checkPosition(next);
    checkEntry(name, entry);
    const s = this.statements();
    const now = new Date().toISOString();
    return this.db
      .transaction(() => {
        const moved = s.move.run({
          name,
          generation,
          exp_ts: expected.ts,
          exp_skip: expected.skip,
          ts: next.ts,
          skip: next.skip,
          now,
        });
        if (moved.changes !== 1) return false;
        s.record.run({
          name,
          batch_id: entry.batchId,
          from_ts: entry.from.ts,
          from_skip: entry.from.skip,
          to_ts: entry.to.ts,
          to_skip: entry.to.skip,
          rows: entry.rows,
          committed_at: toInstant(entry.committedAt),
        });
        return true;
      })
      .immediate();
  }

  async seek(name: string, position: Position): Promise<boolean> {
    checkPosition(position);
    const r = this.statements().seek.run({
      name,
      ts: position.ts,
      skip: position.skip,
      now: new Date().toISOString(),
    });
    return r.changes === 1;
  }

  async delete(name: string): Promise<boolean> {
    const s = this.statements();
    return this.db
      .transaction(() => {
        const gone = s.deleteCursor.run(name).changes === 1;
        s.deleteHistory.run(name);
        return gone;
      })
      .immediate();
  }

  async history(name: string, limit: number): Promise<HistoryEntry[]> {
    checkCount('limit', limit);
    const rows = this.statements().history.all(name, limit) as HistoryRow[];
    return rows.map(toEntry);
  }

  async findBatch(name: string, batchId: string): Promise<HistoryEntry | null> {
    const row = this.statements().findBatch.get(name, batchId) as HistoryRow | undefined;
    return row ? toEntry(row) : null;
  }

  async pruneHistory(before: string): Promise<number> {
    return this.statements().prune.run(toInstant(before)).changes;
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}

function prepare(db: Database.Database) {
  const C = SQLITE_CURSORS_TABLE;
  const H = SQLITE_HISTORY_TABLE;
  return {
    get: db.prepare(`SELECT * FROM ${C} WHERE name = ?`),
    insert: db.prepare(
      `INSERT INTO ${C} (name, topic, definition, pos_ts, pos_skip, generation, pending, created_at, updated_at)
       VALUES (@name, @topic, @definition, @pos_ts, @pos_skip, @generation, @pending, @now, @now)
       ON CONFLICT (name) DO NOTHING`,
    ),
    setPending: db.prepare(
      `UPDATE ${C} SET pending = @pending, updated_at = @now WHERE name = @name AND generation = @generation`,
    ),
    // `IS` is SQLite's null-safe equality: a cursor at the beginning (pos_ts NULL) matches an expected ts null.
    move: db.prepare(
      `UPDATE ${C} SET pos_ts = @ts, pos_skip = @skip, pending = NULL, updated_at = @now
       WHERE name = @name AND generation = @generation AND pos_ts IS @exp_ts AND pos_skip = @exp_skip`,
    ),
    // A batch id committed again (possible after a seek) replaces its earlier entry and becomes the newest.
    record: db.prepare(
      `INSERT INTO ${H} (name, batch_id, seq, from_ts, from_skip, to_ts, to_skip, rows, committed_at)
       VALUES (@name, @batch_id, (SELECT COALESCE(MAX(seq), 0) + 1 FROM ${H} WHERE name = @name),
               @from_ts, @from_skip, @to_ts, @to_skip, @rows, @committed_at)
       ON CONFLICT (name, batch_id) DO UPDATE SET
         seq = excluded.seq, from_ts = excluded.from_ts, from_skip = excluded.from_skip, to_ts = excluded.to_ts,
         to_skip = excluded.to_skip, rows = excluded.rows, committed_at = excluded.committed_at`,
    ),
    seek: db.prepare(
      `UPDATE ${C} SET pos_ts = @ts, pos_skip = @skip, generation = generation + 1, pending = NULL, updated_at = @now
       WHERE name = @name`,
    ),
    deleteCursor: db.prepare(`DELETE FROM ${C} WHERE name = ?`),
    deleteHistory: db.prepare(`DELETE FROM ${H} WHERE name = ?`),
    history: db.prepare(`SELECT ${HISTORY_COLUMNS} FROM ${H} WHERE name = ? ORDER BY seq DESC LIMIT ?`),
    findBatch: db.prepare(`SELECT ${HISTORY_COLUMNS} FROM ${H} WHERE name = ? AND batch_id = ?`),
    prune: db.prepare(`DELETE FROM ${H} WHERE committed_at < ?`),
  };
}

function toRecord(r: CursorRow): CursorRecord {
  return {
    name: r.name,
    topic: r.topic,
    definition: r.definition,
    position: { ts: r.pos_ts, skip: r.pos_skip },
    generation: r.generation,
    pending: r.pending,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

function toEntry(r: HistoryRow): HistoryEntry {
  return {
    name: r.name,
    batchId: r.batch_id,
    from: { ts: r.from_ts, skip: r.from_skip },
    to: { ts: r.to_ts, skip: r.to_skip },
    rows: r.rows,
    committedAt: r.committed_at,
  };
}
