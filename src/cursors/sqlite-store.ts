/**
 * The cursor store on SQLite (better-sqlite3): one gateway instance, one file. WAL mode so readers never block the
 * writer; every write runs in a BEGIN IMMEDIATE transaction, so a second process on the same file waits (busy
 * timeout) for the write lock instead of failing on a stale snapshot. better-sqlite3 is synchronous: the async
 * methods run to completion before they return, which makes each of them atomic within this process too.
 *
 * Instants (created/updated/committed) are stored as normalised ISO text (`YYYY-MM-DDTHH:mm:ss.sssZ`), so text
 * order is time order. Position timestamps are opaque text, compared exactly (`IS`, which is null-safe).
 */
import type Database from 'better-sqlite3';
import { SQLITE_DIALECT } from '../state/dialect.js';
import { openSqlite } from '../state/sqlite.js';
import { sqliteFileOf } from '../state/state-url.js';
import type { CursorRecord, CursorStore, HistoryEntry, Position } from './cursor-store.js';
import { checkCount, checkEntry, checkName, checkPosition, toInstant } from './store-checks.js';
import * as shared from './store-rows.js';

/** Instants are ISO text, so text order is time order; names are plain (every one is a fixed identifier). */
const SQLITE: shared.Dialect = {
  ...SQLITE_DIALECT,
  instant: 'TEXT',
  // Numbered by the insert (the next number within the cursor), so a re-committed batch becomes the newest.
  seq: 'INTEGER NOT NULL',
  index: (name) => name,
  readInstant: (column) => column,
};

export interface SqliteCursorStoreOptions {
  /** How long a write waits for another connection's write lock, in ms (default 5000). */
  busyTimeoutMs?: number;
}

export class SqliteCursorStore implements CursorStore {
  readonly file: string;
  private readonly db: Database.Database;
  private ready = false;
  private stmts: ReturnType<typeof prepare> | undefined;

  /** `stateUrl`: `sqlite:<file>` (relative to the working directory; parent directories are created) or `sqlite::memory:`. */
  constructor(stateUrl: string, opts: SqliteCursorStoreOptions = {}) {
    this.file = sqliteFileOf(stateUrl);
    this.db = openSqlite(this.file, opts.busyTimeoutMs ?? 5000);
  }

  async init(): Promise<void> {
    this.statements();
  }

  /** Creates the schema on first use and prepares the statements. */
  private statements(): ReturnType<typeof prepare> {
    if (!this.ready) {
      const db = this.db;
      db.transaction(() => {
        db.exec(shared.schemaStatements(SQLITE).join(';\n'));
        // A file made before a column existed gets it (SQLite has no ADD COLUMN IF NOT EXISTS).
        const has = db.prepare('SELECT 1 FROM pragma_table_info(?) WHERE name = ?');
        for (const column of shared.ADDED_CURSOR_COLUMNS) {
          if (!has.get(shared.CURSORS_TABLE, column)) db.exec(shared.addColumnStatement(SQLITE, column, false));
        }
      }).immediate();
      this.ready = true;
    }
    return (this.stmts ??= prepare(this.db));
  }

  async get(name: string): Promise<CursorRecord | null> {
    const row = this.statements().get.get(name) as shared.CursorRow | undefined;
    return row ? shared.toRecord(row) : null;
  }

  async named(name: string): Promise<CursorRecord[]> {
    const rows = this.statements().named.all({ name, prefix: `${name}/` }) as shared.CursorRow[];
    return rows.map(shared.toRecord);
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
        const inserted = s.insert.run({ ...shared.cursorRow(record), now });
        const row = s.get.get(record.name) as shared.CursorRow;
        return { created: inserted.changes === 1, record: shared.toRecord(row) };
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
    const row = shared.historyRow(entry);
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
        s.record.run(row);
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
    const rows = this.statements().history.all(name, limit) as shared.HistoryRow[];
    return rows.map(shared.toEntry);
  }

  async findBatch(name: string, batchId: string): Promise<HistoryEntry | null> {
    const row = this.statements().findBatch.get(name, batchId) as shared.HistoryRow | undefined;
    return row ? shared.toEntry(row) : null;
  }

  async pruneHistory(before: string): Promise<number> {
    return this.statements().prune.run(toInstant(before)).changes;
  }

  async ping(): Promise<void> {
    this.db.prepare('SELECT 1').get();
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}

function prepare(db: Database.Database) {
  const C = shared.CURSORS_TABLE;
  const H = shared.HISTORY_TABLE;
  const named = (columns: readonly string[]) => columns.map((c) => `@${c}`).join(', ');
  const cursor = shared.selectList(SQLITE, shared.CURSOR_COLUMNS);
  const history = shared.selectList(SQLITE, shared.HISTORY_COLUMNS);
  return {
    get: db.prepare(`SELECT ${cursor} FROM ${C} WHERE name = ?`),
    // Lengths in the same unit on both sides: SQLite's own characters.
    named: db.prepare(
      `SELECT ${cursor} FROM ${C} WHERE name = @name OR substr(name, 1, length(@prefix)) = @prefix ORDER BY name`,
    ),
    insert: db.prepare(
      `INSERT INTO ${C} (${shared.NEW_CURSOR_COLUMNS.join(', ')}, created_at, updated_at)
       VALUES (${named(shared.NEW_CURSOR_COLUMNS)}, @now, @now)
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
      `INSERT INTO ${H} (${shared.HISTORY_COLUMNS.join(', ')}, seq)
       VALUES (${named(shared.HISTORY_COLUMNS)}, (SELECT COALESCE(MAX(seq), 0) + 1 FROM ${H} WHERE name = @name))
       ON CONFLICT (name, batch_id) DO UPDATE SET seq = excluded.seq, ${shared.HISTORY_REPLACE}`,
    ),
    seek: db.prepare(
      `UPDATE ${C} SET pos_ts = @ts, pos_skip = @skip, generation = generation + 1, pending = NULL, updated_at = @now
       WHERE name = @name`,
    ),
    deleteCursor: db.prepare(`DELETE FROM ${C} WHERE name = ?`),
    deleteHistory: db.prepare(`DELETE FROM ${H} WHERE name = ?`),
    history: db.prepare(`SELECT ${history} FROM ${H} WHERE name = ? ORDER BY seq DESC LIMIT ?`),
    findBatch: db.prepare(`SELECT ${history} FROM ${H} WHERE name = ? AND batch_id = ?`),
    prune: db.prepare(`DELETE FROM ${H} WHERE committed_at < ?`),
  };
}
