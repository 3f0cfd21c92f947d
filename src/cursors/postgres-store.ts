/**
 * The cursor store on PostgreSQL (`pg` Pool): several gateway instances behind a load balancer share it.
 * Every statement is here with the locking argument that makes it safe, next to the one it races with.
 *
 * Every position change is one UPDATE whose WHERE clause holds the expected generation and position; under READ
 * COMMITTED a second writer of the same row waits for the first one's transaction and then re-checks the WHERE
 * clause against the row it left, so of any number of concurrent commits from one position exactly one changes a
 * row. The history entry is written in the same transaction, only when the UPDATE changed the row.
 *
 * The tables live in a schema of their own choosing (default `public`), created on first use; concurrent first
 * uses by several instances are serialised by a transaction-scoped advisory lock around the DDL. Instants are
 * `timestamptz` and come back as ISO text with milliseconds (`YYYY-MM-DDTHH:mm:ss.sssZ`); position timestamps
 * are opaque text, compared exactly (`IS NOT DISTINCT FROM`, null-safe).
 */
import type pg from 'pg';
import type { PoolClient, PoolConfig } from 'pg';
import { pgTransaction } from '../state/pg-transaction.js';
import {
  checkSchemaName,
  createSchemaIfMissing,
  ddlTransaction,
  placeholders,
  postgresDialect,
  quotePgIdent,
  statePool,
} from '../state/postgres.js';
import { madeOnce } from '../state/open-state.js';
import { isPostgresUrl } from '../state/state-url.js';
import type { CursorRecord, CursorStore, HistoryEntry, Position } from './cursor-store.js';
import { checkCount, checkEntry, checkName, checkPosition, toInstant } from './store-checks.js';
import * as shared from './store-rows.js';

/** The PostgreSQL dialect for the cursor tables in `schema`. */
function dialect(schema: string): shared.Dialect {
  return {
    ...postgresDialect(schema),
    instant: 'timestamptz',
    seq: 'bigint GENERATED ALWAYS AS IDENTITY',
    // An index is created in its table's schema.
    index: quotePgIdent,
    // ISO text in UTC with milliseconds, independent of the session's time zone and `pg` type parsers.
    readInstant: (col) => `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS ${col}`,
  };
}

export interface PostgresCursorStoreOptions {
  /** The schema holding the tables, created if missing (default `public`). Any name: it is quoted. */
  schema?: string;
  /** Extra pool settings (max connections, timeouts); the connection string comes from the state URL. */
  pool?: Omit<PoolConfig, 'connectionString'>;
}

export class PostgresCursorStore implements CursorStore {
  readonly schema: string;
  private readonly pool: pg.Pool;
  private readonly dialect: shared.Dialect;
  private readonly C: string;
  private readonly H: string;
  private readonly cursorColumns: string;
  private readonly historyColumns: string;
  private readonly ready = madeOnce(() => this.createSchema());
  private closed = false;

  /** `stateUrl`: `postgres://user:password@host:port/database` (or `postgresql://`). */
  constructor(stateUrl: string, opts: PostgresCursorStoreOptions = {}) {
    if (!isPostgresUrl(stateUrl)) throw new Error('not a postgres:// state URL');
    this.schema = opts.schema ?? 'public';
    checkSchemaName(this.schema);
    this.dialect = dialect(this.schema);
    this.C = this.dialect.table(shared.CURSORS_TABLE);
    this.H = this.dialect.table(shared.HISTORY_TABLE);
    this.cursorColumns = shared.selectList(this.dialect, shared.CURSOR_COLUMNS);
    this.historyColumns = shared.selectList(this.dialect, shared.HISTORY_COLUMNS);
    this.pool = statePool({ application_name: 'topicgate', ...opts.pool, connectionString: stateUrl });
  }

  /** Creates the schema and tables on first use (idempotent; concurrent calls share one attempt). */
  init(): Promise<void> {
    return this.ready();
  }

  private async createSchema(): Promise<void> {
    // Fast path: nothing to create, no lock, no privilege needed beyond using the tables.
    // The tables, and the columns added since the first layout (a schema made before them gets them below).
    const have = await this.pool.query<{ ok: boolean }>(
      `SELECT to_regclass($1) IS NOT NULL AND to_regclass($2) IS NOT NULL
         AND (SELECT count(*) FROM pg_attribute
              WHERE attrelid = to_regclass($1) AND attname = ANY($3) AND NOT attisdropped) = cardinality($3) AS ok`,
      [this.C, this.H, [...shared.ADDED_CURSOR_COLUMNS]],
    );
    if (have.rows[0]?.ok) return;
    await ddlTransaction(this.pool, this.schema, async (client) => {
      await createSchemaIfMissing(client, this.schema);
      for (const statement of shared.schemaStatements(this.dialect)) await client.query(statement);
      for (const column of shared.ADDED_CURSOR_COLUMNS)
        await client.query(shared.addColumnStatement(this.dialect, column, true));
    });
  }

  async get(name: string): Promise<CursorRecord | null> {
    await this.init();
    const sql = `SELECT ${this.cursorColumns} FROM ${this.C} WHERE name = $1`;
    const r = await this.pool.query<shared.CursorRow>(sql, [name]);
    return r.rows[0] ? shared.toRecord(r.rows[0]) : null;
  }

  async named(name: string): Promise<CursorRecord[]> {
    await this.init();
    // Lengths in the same unit on both sides (characters); not LIKE, which would read `_` and `%` in the name.
    const sql = `SELECT ${this.cursorColumns} FROM ${this.C}
      WHERE name = $1 OR substr(name, 1, char_length($2)) = $2 ORDER BY name COLLATE "C"`;
    const r = await this.pool.query<shared.CursorRow>(sql, [name, `${name}/`]);
    return r.rows.map(shared.toRecord);
  }

  async create(
    record: Omit<CursorRecord, 'createdAt' | 'updatedAt'>,
  ): Promise<{ created: boolean; record: CursorRecord }> {
    checkName(record.name);
    checkPosition(record.position);
    checkCount('generation', record.generation);
    const row = shared.cursorRow(record);
    await this.init();
    // Insert-or-read; another instance may delete the cursor between the two, then try again.
    for (let attempt = 0; attempt < 10; attempt++) {
      const ins = await this.pool.query<shared.CursorRow>(
        `INSERT INTO ${this.C} (${shared.NEW_CURSOR_COLUMNS.join(', ')}, created_at, updated_at)
         VALUES (${placeholders(shared.NEW_CURSOR_COLUMNS.length)}, now(), now())
         ON CONFLICT (name) DO NOTHING
         RETURNING ${this.cursorColumns}`,
        shared.NEW_CURSOR_COLUMNS.map((c) => row[c]),
      );
      if (ins.rows[0]) return { created: true, record: shared.toRecord(ins.rows[0]) };
      const existing = await this.get(record.name);
      if (existing) return { created: false, record: existing };
    }
    throw new Error(`cursor ${JSON.stringify(record.name)} keeps being created and deleted concurrently`);
  }

  async setPending(name: string, generation: number, pending: string | null): Promise<boolean> {
    await this.init();
    const r = await this.pool.query(
      `UPDATE ${this.C} SET pending = $3, updated_at = now() WHERE name = $1 AND generation = $2`,
      [name, generation, pending],
    );
    return r.rowCount === 1;
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
    await this.init();
    return this.transaction(async (client) => {
      const moved = await client.query(
        `UPDATE ${this.C} SET pos_ts = $5, pos_skip = $6, pending = NULL, updated_at = now()
         WHERE name = $1 AND generation = $2 AND pos_ts IS NOT DISTINCT FROM $3::text AND pos_skip = $4`,
        [name, generation, expected.ts, expected.skip, next.ts, next.skip],
      );
      if (moved.rowCount !== 1) return false;
      // A batch id committed again (possible after a seek) replaces its earlier entry and becomes the newest.
      await client.query(
        `INSERT INTO ${this.H} (${shared.HISTORY_COLUMNS.join(', ')}) VALUES (${placeholders(shared.HISTORY_COLUMNS.length)})
         ON CONFLICT (name, batch_id) DO UPDATE SET seq = DEFAULT, ${shared.HISTORY_REPLACE}`,
        shared.HISTORY_COLUMNS.map((c) => row[c]),
      );
      return true;
    });
  }

  async seek(name: string, position: Position): Promise<boolean> {
    checkPosition(position);
    await this.init();
    const r = await this.pool.query(
      `UPDATE ${this.C}
       SET pos_ts = $2, pos_skip = $3, generation = generation + 1, pending = NULL, updated_at = now()
       WHERE name = $1`,
      [name, position.ts, position.skip],
    );
    return r.rowCount === 1;
  }

  async delete(name: string): Promise<boolean> {
    await this.init();
    return this.transaction(async (client) => {
      // The cursor row first: its lock waits out a commit in flight, whose history entry is then deleted too.
      const gone = await client.query(`DELETE FROM ${this.C} WHERE name = $1`, [name]);
      await client.query(`DELETE FROM ${this.H} WHERE name = $1`, [name]);
      return gone.rowCount === 1;
    });
  }

  async history(name: string, limit: number): Promise<HistoryEntry[]> {
    checkCount('limit', limit);
    await this.init();
    const r = await this.pool.query<shared.HistoryRow>(
      `SELECT ${this.historyColumns} FROM ${this.H} WHERE name = $1 ORDER BY seq DESC LIMIT $2`,
      [name, limit],
    );
    return r.rows.map(shared.toEntry);
  }

  async findBatch(name: string, batchId: string): Promise<HistoryEntry | null> {
    await this.init();
    const r = await this.pool.query<shared.HistoryRow>(
      `SELECT ${this.historyColumns} FROM ${this.H} WHERE name = $1 AND batch_id = $2`,
      [name, batchId],
    );
    return r.rows[0] ? shared.toEntry(r.rows[0]) : null;
  }

  async pruneHistory(before: string): Promise<number> {
    const instant = toInstant(before);
    await this.init();
    const r = await this.pool.query(`DELETE FROM ${this.H} WHERE committed_at < $1::timestamptz`, [instant]);
    return r.rowCount ?? 0;
  }

  async ping(): Promise<void> {
    await this.pool.query('SELECT 1');
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }

  private transaction<T>(fn: (client: PoolClient) => Promise<T>): Promise<T> {
    return pgTransaction(this.pool, fn);
  }
}
