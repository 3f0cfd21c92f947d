/**
 * `requestsPerMinute` counted in PostgreSQL, across every gateway instance sharing the store: a store for
 * @fastify/rate-limit (its `store` option, the interface its own in-process and Redis stores implement), so the
 * plugin keeps deciding, answering and setting its headers, and only the count moves.
 *
 * One statement per request: an upsert of the caller's row that adds one to its count, or starts a new window when
 * the row's has ended, and returns the count and what is left of the window. The row is locked by the upsert, so
 * concurrent requests through any instances are counted one after another, none lost. Times are the server's clock
 * when the row is written (clock_timestamp(): a request that waited for the row's lock sees the window as it is
 * then, not as it was when its statement began). The same fixed window as the plugin's in-process store. The table
 * is UNLOGGED (a crash of PostgreSQL empties it: counts restart, nothing else is lost), and rows of windows long
 * over are deleted at most once a minute.
 */
import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { Pool } from 'pg';
import { madeOnce } from '../state/open-state.js';
import { ddlTransaction, postgresDialect } from '../state/postgres.js';
import { stateUnavailable } from '../state/store-failures.js';

export const RATE_TABLE = 'topicgate_request_counts';
const PRUNE_EVERY_MS = 60_000;

type Callback = (error: Error | null, result?: { current: number; ttl: number }) => void;

export class PgRateCounts {
  private readonly table: string;
  private readonly ready = madeOnce(() => this.create());
  private prunedAt = 0;

  constructor(
    private readonly pool: Pool,
    private readonly schema: string,
  ) {
    this.table = postgresDialect(schema).table(RATE_TABLE);
  }

  /** Adds one request of `key`: its count in the current window, and the window's milliseconds left. */
  async increment(key: string, windowMs: number): Promise<{ current: number; ttl: number }> {
    await this.init();
    const r = await this.pool.query<{ hits: string; ttl: string }>(
      `INSERT INTO ${this.table} AS r (key, hits, window_end)
       VALUES ($1, 1, clock_timestamp() + $2 * interval '1 millisecond')
       ON CONFLICT (key) DO UPDATE SET
         hits = CASE WHEN r.window_end <= clock_timestamp() THEN 1 ELSE r.hits + 1 END,
         window_end = CASE WHEN r.window_end <= clock_timestamp() THEN EXCLUDED.window_end ELSE r.window_end END
       RETURNING hits, ceil(extract(epoch FROM window_end - clock_timestamp()) * 1000) AS ttl`,
      [key, windowMs],
    );
    this.prune();
    const row = r.rows[0]!;
    return { current: Number(row.hits), ttl: Math.min(windowMs, Math.max(0, Number(row.ttl))) };
  }

  /** `increment`, a store that cannot answer being the 503 TG_STATE_UNAVAILABLE (never "unlimited"). */
  count(key: string, windowMs: number): Promise<{ current: number; ttl: number }> {
    return this.increment(key, windowMs).catch((err: unknown) => {
      throw stateUnavailable(err, 'the shared store of request counts');
    });
  }

  /** The store class @fastify/rate-limit instantiates (it takes a constructor), counting here. */
  storeClass(): FastifyRateLimitStoreCtor {
    const counts = this;
    return class PgRateStore implements FastifyRateLimitStore {
      incr(key: string, cb: Callback, timeWindow: number): void {
        counts.count(key, timeWindow).then(
          (res) => cb(null, res),
          (err: unknown) => cb(toError(err)),
        );
      }
      child(): FastifyRateLimitStore {
        return this;
      }
    };
  }

  private init(): Promise<void> {
    return this.ready();
  }

  private async create(): Promise<void> {
    const have = await this.pool.query<{ ok: boolean }>('SELECT to_regclass($1) IS NOT NULL AS ok', [this.table]);
    if (have.rows[0]?.ok) return;
    // Under the state's DDL lock: instances starting at once create the table once.
    await ddlTransaction(this.pool, this.schema, async (client) => {
      await client.query(
        `CREATE UNLOGGED TABLE IF NOT EXISTS ${this.table}
         (key text PRIMARY KEY, hits bigint NOT NULL, window_end timestamptz NOT NULL)`,
      );
    });
  }

  /** Deletes the rows of windows over (at most once a minute, not awaited: a failure only postpones it). */
  private prune(): void {
    const now = Date.now();
    if (now - this.prunedAt < PRUNE_EVERY_MS) return;
    this.prunedAt = now;
    this.pool.query(`DELETE FROM ${this.table} WHERE window_end < now()`).catch(() => undefined);
  }
}

function toError(err: unknown): Error {
  return err instanceof Error ? err : new Error(String(err));
}
