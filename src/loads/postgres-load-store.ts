/**
 * The load store on PostgreSQL (`pg` Pool), in the cursor store's database and schema: several gateway instances
 * share it. A position moves by one UPDATE whose WHERE clause holds the position the run started at (under READ
 * COMMITTED a second writer re-checks it against the row the first one left), with the run written in the same
 * transaction.
 *
 * The run lock is a session-level advisory lock on a hash of (schema, load), taken with pg_try_advisory_lock (never
 * waits) on a connection the run keeps until it ends, as the query slots are (access/pg-query-slots.ts): an
 * instance that dies, or whose connection is cut, frees its loads at once, with no lease to expire.
 */
import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { PoolClient, PoolConfig } from 'pg';
import { pgTransaction } from '../state/pg-transaction.js';
import { createSchemaIfMissing, ddlTransaction, placeholders, postgresDialect, statePool } from '../state/postgres.js';
import { madeOnce } from '../state/open-state.js';
import type { ClaimRequest, LoadLock, LoadRecord, LoadRun, LoadStore, TargetClaim } from './load-store.js';
import * as rows from './load-rows.js';

/** The advisory lock key of a load's runs: a signed 64-bit integer (as text) from SHA-256. */
export function runLockKey(schema: string, name: string): string {
  return createHash('sha256').update(`topicgate-load\0${schema}\0${name}`).digest().readBigInt64BE(0).toString();
}

export class PostgresLoadStore implements LoadStore {
  private readonly pool: pg.Pool;
  private readonly L: string;
  private readonly R: string;
  private readonly T: string;
  private readonly ready = madeOnce(() => this.createSchema());
  private closed = false;
  /** The connections holding run locks, ended by close(): their sessions' locks go with them. */
  private readonly holding = new Set<() => void>();

  constructor(
    stateUrl: string,
    private readonly schema = 'public',
    pool: Omit<PoolConfig, 'connectionString'> = {},
  ) {
    this.pool = statePool({ application_name: 'topicgate-loads', ...pool, connectionString: stateUrl });
    const d = postgresDialect(schema);
    this.L = d.table(rows.LOADS_TABLE);
    this.R = d.table(rows.RUNS_TABLE);
    this.T = d.table(rows.CLAIMS_TABLE);
  }

  init(): Promise<void> {
    return this.ready();
  }

  private async createSchema(): Promise<void> {
    const have = await this.pool.query<{ ok: boolean }>(
      'SELECT to_regclass($1) IS NOT NULL AND to_regclass($2) IS NOT NULL AND to_regclass($3) IS NOT NULL AS ok',
      [this.L, this.R, this.T],
    );
    if (have.rows[0]?.ok) return;
    await ddlTransaction(this.pool, this.schema, async (client) => {
      await createSchemaIfMissing(client, this.schema);
      const had = await client.query<{ ok: boolean }>('SELECT to_regclass($1) IS NOT NULL AS ok', [this.T]);
      for (const statement of rows.loadSchemaStatements(postgresDialect(this.schema))) await client.query(statement);
      if (!had.rows[0]?.ok) await this.claimLegacyTargets(client);
    });
  }

  /** A store made before targets were claimed: its loads' claims (load-rows.ts legacyClaims). */
  private async claimLegacyTargets(client: PoolClient): Promise<void> {
    const loads = await client.query<rows.LoadRow>(`SELECT name, owner, definition, created_at FROM ${this.L}`);
    for (const claim of rows.legacyClaims(loads.rows)) {
      await client.query(
        `INSERT INTO ${this.T} (${rows.CLAIM_COLUMNS.join(', ')}) VALUES (${placeholders(rows.CLAIM_COLUMNS.length)})
         ON CONFLICT (target) DO NOTHING`,
        rows.CLAIM_COLUMNS.map((c) => claim[c]),
      );
    }
  }

  async get(name: string): Promise<LoadRecord | null> {
    await this.init();
    const r = await this.pool.query<rows.LoadRow>(
      `SELECT ${rows.LOAD_COLUMNS.join(', ')} FROM ${this.L} WHERE name = $1`,
      [name],
    );
    return r.rows[0] ? rows.toLoad(r.rows[0]) : null;
  }

  async named(name: string): Promise<LoadRecord[]> {
    await this.init();
    const r = await this.pool.query<rows.LoadRow>(
      `SELECT ${rows.LOAD_COLUMNS.join(', ')} FROM ${this.L}
       WHERE name = $1 OR substr(name, 1, length($1) + 1) = $1 || '/' ORDER BY name`,
      [name],
    );
    return r.rows.map(rows.toLoad);
  }

  async create(record: Omit<LoadRecord, 'createdAt' | 'updatedAt'>, claim: ClaimRequest) {
    await this.init();
    // Insert-or-read; another instance may delete the load between the two, then try again.
    for (let attempt = 0; attempt < 10; attempt++) {
      const made = await this.transaction((client) => this.insertClaimed(client, record, claim));
      if (made) return made;
      const existing = await this.get(record.name);
      if (existing) return { created: false, record: existing };
    }
    throw new Error(`load ${JSON.stringify(record.name)} keeps being created and deleted concurrently`);
  }

  /**
   * The load and its claim, or nothing (null: the key was taken meanwhile). The claim is one statement on the
   * target's primary key, so of two instances claiming one target at once the second finds the first's row (its
   * insert waits for the first's commit) and is refused; a refusal takes the load back out.
   */
  private async insertClaimed(
    client: PoolClient,
    record: Omit<LoadRecord, 'createdAt' | 'updatedAt'>,
    claim: ClaimRequest,
  ): Promise<{ created: boolean; record: LoadRecord } | { taken: true } | null> {
    const now = new Date().toISOString();
    const ins = await client.query<rows.LoadRow>(
      `INSERT INTO ${this.L} (${rows.LOAD_COLUMNS.join(', ')}) VALUES ($1, $2, $3, $4, $5, $6, $6)
       ON CONFLICT (name) DO NOTHING RETURNING ${rows.LOAD_COLUMNS.join(', ')}`,
      [record.name, record.topic, record.definition, record.position, record.owner, now],
    );
    if (!ins.rows[0]) return null;
    // A deleted load's target is taken back, as it was (made or not), only by its owner; an existing table no load
    // claimed is never taken.
    const adopt = `UPDATE ${this.T} SET load_key = $2
       WHERE target = $1 AND load_key IS NULL AND owner = $3 RETURNING target`;
    const claimOrAdopt = `INSERT INTO ${this.T} (${rows.CLAIM_COLUMNS.join(', ')}) VALUES ($1, $2, $3, 0, $4)
       ON CONFLICT (target) DO UPDATE SET load_key = excluded.load_key
       WHERE ${this.T}.load_key IS NULL AND ${this.T}.owner = excluded.owner RETURNING target`;
    const got = claim.tableExists
      ? await client.query(adopt, [claim.target, record.name, record.owner])
      : await client.query(claimOrAdopt, [claim.target, record.name, record.owner, now]);
    if (got.rowCount !== 1) {
      // Refused: the load inserted above goes too, in this same transaction.
      await client.query(`DELETE FROM ${this.L} WHERE name = $1`, [record.name]);
      return { taken: true };
    }
    return { created: true, record: rows.toLoad(ins.rows[0]) };
  }

  async claimOf(target: string): Promise<TargetClaim | null> {
    await this.init();
    const r = await this.pool.query<rows.ClaimRow>(
      `SELECT ${rows.CLAIM_COLUMNS.join(', ')} FROM ${this.T} WHERE target = $1`,
      [target],
    );
    return r.rows[0] ? rows.toClaim(r.rows[0]) : null;
  }

  async markCreated(target: string, key: string, created: boolean): Promise<boolean> {
    await this.init();
    const r = await this.pool.query(`UPDATE ${this.T} SET created = $3 WHERE target = $1 AND load_key = $2`, [
      target,
      key,
      created ? 1 : 0,
    ]);
    return r.rowCount === 1;
  }

  async delete(name: string): Promise<boolean> {
    await this.init();
    return this.transaction(async (client) => {
      // The load's row first: its lock waits out a commit in flight, whose run is then deleted too.
      const gone = await client.query(`DELETE FROM ${this.L} WHERE name = $1`, [name]);
      await client.query(`DELETE FROM ${this.R} WHERE name = $1`, [name]);
      await client.query(`UPDATE ${this.T} SET load_key = NULL WHERE load_key = $1`, [name]);
      return gone.rowCount === 1;
    });
  }

  async saveRun(run: LoadRun): Promise<void> {
    await this.init();
    await this.writeRun(this.pool, run);
  }

  private async writeRun(client: pg.Pool | PoolClient, run: LoadRun): Promise<void> {
    const row = rows.runRow(run);
    await client.query(
      `INSERT INTO ${this.R} (${rows.RUN_COLUMNS.join(', ')}) VALUES (${placeholders(rows.RUN_COLUMNS.length)})
       ON CONFLICT (name, run_id) DO UPDATE SET ${rows.RUN_REPLACE}`,
      rows.RUN_COLUMNS.map((c) => row[c]),
    );
  }

  async commit(name: string, expected: string | null, next: string, run: LoadRun): Promise<boolean> {
    await this.init();
    return this.transaction(async (client) => {
      const moved = await client.query(
        `UPDATE ${this.L} SET pos_ts = $3, updated_at = $4 WHERE name = $1 AND pos_ts IS NOT DISTINCT FROM $2::text`,
        [name, expected, next, new Date().toISOString()],
      );
      if (moved.rowCount !== 1) return false;
      await this.writeRun(client, run);
      return true;
    });
  }

  async runs(name: string, limit: number): Promise<LoadRun[]> {
    await this.init();
    const r = await this.pool.query<rows.RunRow>(
      `SELECT ${rows.RUN_COLUMNS.join(', ')} FROM ${this.R} WHERE name = $1
       ORDER BY started_at DESC, run_id DESC LIMIT $2`,
      [name, limit],
    );
    return r.rows.map(rows.toRun);
  }

  async lock(name: string): Promise<LoadLock | null> {
    const key = runLockKey(this.schema, name);
    const client = await this.pool.connect();
    let broken: Error | undefined;
    // Checked out, a client has no error listener of the pool's: an error would otherwise crash the process.
    const onError = (err: Error) => {
      broken ??= err;
    };
    client.on('error', onError);
    const giveBack = (err?: Error) => {
      client.off('error', onError);
      client.release(err ?? broken ?? false);
    };
    try {
      const r = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1::bigint) AS ok', [key]);
      if (!r.rows[0]?.ok) {
        giveBack();
        return null;
      }
    } catch (err) {
      giveBack(err instanceof Error ? err : new Error(String(err)));
      throw err;
    }
    let held = true;
    const end = () => {
      held = false;
      this.holding.delete(end);
      giveBack(new Error('the load store is closing'));
    };
    this.holding.add(end);
    return {
      release: async () => {
        if (!held) return;
        held = false;
        this.holding.delete(end);
        // A connection that cannot unlock is closed, which ends its session and so its lock.
        const failed = await client.query('SELECT pg_advisory_unlock($1::bigint)', [key]).then(
          () => undefined,
          (err: unknown) => (err instanceof Error ? err : new Error(String(err))),
        );
        giveBack(failed);
      },
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const end of [...this.holding]) end();
    await this.pool.end();
  }

  private transaction<T>(fn: (client: PoolClient) => Promise<T>): Promise<T> {
    return pgTransaction(this.pool, fn);
  }
}
