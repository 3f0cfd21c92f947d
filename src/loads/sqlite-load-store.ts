/**
 * The load store on SQLite (better-sqlite3), in the cursor store's file: one gateway instance. Writes run in BEGIN
 * IMMEDIATE transactions; better-sqlite3 is synchronous, so each method is atomic within the process. The run lock
 * is the process's own (one instance serves a SQLite store): a process that dies takes its locks with it.
 */
import type Database from 'better-sqlite3';
import { openSqlite, sqliteFileOf } from '../cursors/sqlite-store.js';
import type { LoadLock, LoadRecord, LoadRun, LoadStore } from './load-store.js';
import * as rows from './load-rows.js';

const DIALECT = { text: 'TEXT', int: 'INTEGER', table: (name: string) => name };

export class SqliteLoadStore implements LoadStore {
  private readonly db: Database.Database;
  private readonly running = new Set<string>();
  private stmts: ReturnType<typeof prepare> | undefined;

  constructor(stateUrl: string, busyTimeoutMs = 5000) {
    this.db = openSqlite(sqliteFileOf(stateUrl), busyTimeoutMs);
  }

  async init(): Promise<void> {
    this.statements();
  }

  private statements(): ReturnType<typeof prepare> {
    if (!this.stmts) {
      this.db.transaction(() => this.db.exec(rows.loadSchemaStatements(DIALECT).join(';\n'))).immediate();
      this.stmts = prepare(this.db);
    }
    return this.stmts;
  }

  async get(name: string): Promise<LoadRecord | null> {
    const row = this.statements().get.get(name) as rows.LoadRow | undefined;
    return row ? rows.toLoad(row) : null;
  }

  async create(record: Omit<LoadRecord, 'createdAt' | 'updatedAt'>) {
    const s = this.statements();
    const now = new Date().toISOString();
    return this.db
      .transaction(() => {
        const inserted = s.insert.run({
          name: record.name,
          topic: record.topic,
          definition: record.definition,
          pos_ts: record.position,
          owner: record.owner,
          now,
        });
        return { created: inserted.changes === 1, record: rows.toLoad(s.get.get(record.name) as rows.LoadRow) };
      })
      .immediate();
  }

  async delete(name: string): Promise<boolean> {
    const s = this.statements();
    return this.db
      .transaction(() => {
        const gone = s.deleteLoad.run(name).changes === 1;
        s.deleteRuns.run(name);
        return gone;
      })
      .immediate();
  }

  async saveRun(run: LoadRun): Promise<void> {
    this.statements().saveRun.run(rows.runRow(run));
  }

  async commit(name: string, expected: string | null, next: string, run: LoadRun): Promise<boolean> {
    const s = this.statements();
    return this.db
      .transaction(() => {
        const moved = s.move.run({ name, expected, next, now: new Date().toISOString() });
        if (moved.changes !== 1) return false;
        s.saveRun.run(rows.runRow(run));
        return true;
      })
      .immediate();
  }

  async runs(name: string, limit: number): Promise<LoadRun[]> {
    return (this.statements().runs.all(name, limit) as rows.RunRow[]).map(rows.toRun);
  }

  async lock(name: string): Promise<LoadLock | null> {
    if (this.running.has(name)) return null;
    this.running.add(name);
    let held = true;
    return {
      release: async () => {
        if (held) this.running.delete(name);
        held = false;
      },
    };
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}

function prepare(db: Database.Database) {
  const L = rows.LOADS_TABLE;
  const R = rows.RUNS_TABLE;
  return {
    get: db.prepare(`SELECT ${rows.LOAD_COLUMNS.join(', ')} FROM ${L} WHERE name = ?`),
    insert: db.prepare(
      `INSERT INTO ${L} (name, topic, definition, pos_ts, owner, created_at, updated_at)
       VALUES (@name, @topic, @definition, @pos_ts, @owner, @now, @now) ON CONFLICT (name) DO NOTHING`,
    ),
    deleteLoad: db.prepare(`DELETE FROM ${L} WHERE name = ?`),
    deleteRuns: db.prepare(`DELETE FROM ${R} WHERE name = ?`),
    saveRun: db.prepare(
      `INSERT INTO ${R} (${rows.RUN_COLUMNS.join(', ')}) VALUES (${rows.RUN_COLUMNS.map((c) => `@${c}`).join(', ')})
       ON CONFLICT (name, run_id) DO UPDATE SET ${rows.RUN_REPLACE}`,
    ),
    // `IS` is SQLite's null-safe equality: a load that has not run yet (pos_ts NULL) matches an expected null.
    move: db.prepare(`UPDATE ${L} SET pos_ts = @next, updated_at = @now WHERE name = @name AND pos_ts IS @expected`),
    runs: db.prepare(
      `SELECT ${rows.RUN_COLUMNS.join(', ')} FROM ${R} WHERE name = ? ORDER BY started_at DESC, run_id DESC LIMIT ?`,
    ),
  };
}
