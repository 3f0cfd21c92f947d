/**
 * The load store on SQLite (better-sqlite3), in the cursor store's file: one gateway instance. Writes run in BEGIN
 * IMMEDIATE transactions; better-sqlite3 is synchronous, so each method is atomic within the process. The run lock
 * is the process's own (one instance serves a SQLite store): a process that dies takes its locks with it.
 */
import type Database from 'better-sqlite3';
import { SQLITE_DIALECT } from '../state/dialect.js';
import { openSqlite } from '../state/sqlite.js';
import { sqliteFileOf } from '../state/state-url.js';
import type { ClaimRequest, LoadLock, LoadRecord, LoadRun, LoadStore, TargetClaim } from './load-store.js';
import * as rows from './load-rows.js';

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
      this.db.transaction(() => this.createSchema()).immediate();
      this.stmts = prepare(this.db);
    }
    return this.stmts;
  }

  /** The tables; a store made before targets were claimed gets its loads' claims (load-rows.ts legacyClaims). */
  private createSchema(): void {
    const had = this.db
      .prepare('SELECT 1 FROM sqlite_master WHERE type = ? AND name = ?')
      .get('table', rows.CLAIMS_TABLE);
    this.db.exec(rows.loadSchemaStatements(SQLITE_DIALECT).join(';\n'));
    if (had) return;
    const loads = this.db
      .prepare(`SELECT name, owner, definition, created_at FROM ${rows.LOADS_TABLE}`)
      .all() as rows.LoadRow[];
    const insert = this.db.prepare(
      `INSERT INTO ${rows.CLAIMS_TABLE} (${rows.CLAIM_COLUMNS.join(', ')})
       VALUES (${rows.CLAIM_COLUMNS.map((c) => `@${c}`).join(', ')}) ON CONFLICT (target) DO NOTHING`,
    );
    for (const claim of rows.legacyClaims(loads)) insert.run(claim);
  }

  async get(name: string): Promise<LoadRecord | null> {
    const row = this.statements().get.get(name) as rows.LoadRow | undefined;
    return row ? rows.toLoad(row) : null;
  }

  async named(name: string): Promise<LoadRecord[]> {
    return (this.statements().named.all({ name }) as rows.LoadRow[]).map(rows.toLoad);
  }

  async create(record: Omit<LoadRecord, 'createdAt' | 'updatedAt'>, claim: ClaimRequest) {
    const s = this.statements();
    const now = new Date().toISOString();
    return this.db
      .transaction((): { created: boolean; record: LoadRecord } | { taken: true } => {
        const existing = s.get.get(record.name) as rows.LoadRow | undefined;
        if (existing) return { created: false, record: rows.toLoad(existing) };
        const held = s.claimOf.get(claim.target) as rows.ClaimRow | undefined;
        if (held ? held.load_key !== null || held.owner !== record.owner : claim.tableExists) return { taken: true };
        const row = { target: claim.target, load_key: record.name, owner: record.owner, created: 0, claimed_at: now };
        if (held) s.adopt.run(row);
        else s.claim.run(row);
        s.insert.run({
          name: record.name,
          topic: record.topic,
          definition: record.definition,
          pos_ts: record.position,
          owner: record.owner,
          now,
        });
        return { created: true, record: rows.toLoad(s.get.get(record.name) as rows.LoadRow) };
      })
      .immediate();
  }

  async claimOf(target: string): Promise<TargetClaim | null> {
    const row = this.statements().claimOf.get(target) as rows.ClaimRow | undefined;
    return row ? rows.toClaim(row) : null;
  }

  async markCreated(target: string, key: string, created: boolean): Promise<boolean> {
    return this.statements().markCreated.run({ target, key, created: created ? 1 : 0 }).changes === 1;
  }

  async delete(name: string): Promise<boolean> {
    const s = this.statements();
    return this.db
      .transaction(() => {
        const gone = s.deleteLoad.run(name).changes === 1;
        s.deleteRuns.run(name);
        s.letGo.run(name);
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
  const T = rows.CLAIMS_TABLE;
  return {
    get: db.prepare(`SELECT ${rows.LOAD_COLUMNS.join(', ')} FROM ${L} WHERE name = ?`),
    named: db.prepare(
      `SELECT ${rows.LOAD_COLUMNS.join(', ')} FROM ${L}
       WHERE name = @name OR substr(name, 1, length(@name) + 1) = @name || '/' ORDER BY name`,
    ),
    claimOf: db.prepare(`SELECT ${rows.CLAIM_COLUMNS.join(', ')} FROM ${T} WHERE target = ?`),
    claim: db.prepare(
      `INSERT INTO ${T} (${rows.CLAIM_COLUMNS.join(', ')})
       VALUES (${rows.CLAIM_COLUMNS.map((c) => `@${c}`).join(', ')})`,
    ),
    // Taking back a deleted load's target keeps whether it was made: the table is the one that load's runs filled.
    adopt: db.prepare(
      `UPDATE ${T} SET load_key = @load_key WHERE target = @target AND load_key IS NULL AND owner = @owner`,
    ),
    markCreated: db.prepare(`UPDATE ${T} SET created = @created WHERE target = @target AND load_key = @key`),
    letGo: db.prepare(`UPDATE ${T} SET load_key = NULL WHERE load_key = ?`),
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
