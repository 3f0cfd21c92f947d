/**
 * A caller's `concurrentQueries` slots counted in PostgreSQL, across every gateway instance sharing the store
 * (access/shared-slots.ts), with PostgreSQL's session-level advisory locks: slot `s` of caller `k` is the lock on a
 * 64-bit hash of (schema, k, s), for s below the limit. A request's hold is one connection of a pool of its own,
 * kept for as long as the request holds slots, on which it takes a free slot's lock (`pg_try_advisory_lock`, which
 * never waits) per query; giving the hold back unlocks them all and returns the connection.
 *
 * Why advisory locks rather than a table of leases: PostgreSQL ends a session's locks with the session, so a slot
 * is free again the moment its holder's connection closes (the instance killed, the connection cut, the hold given
 * back), with no expiry to choose, no clock and no heartbeat. Each try is atomic in the server, so two instances
 * taking the last slot at once cannot both have it.
 */
import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { PoolClient } from 'pg';
import type { SharedHold, SharedSlots } from './shared-slots.js';
import { statePool } from '../state/postgres.js';
import { stateUnavailable } from '../state/store-failures.js';

export interface PgQuerySlotsOptions {
  /** `concurrentQueries`, and the queue wait (`queueWaitMs`). */
  limit: number;
  waitMs: number;
  /** Keeps deployments sharing a database apart (the cursor store's schema). */
  namespace: string;
  /** The pool's settings (timeouts, size: at most the instance's `maxConcurrentQueries` holds at once). */
  pool: pg.PoolConfig;
}

export class PgQuerySlots implements SharedSlots {
  readonly limit: number;
  readonly waitMs: number;
  private readonly pool: pg.Pool;

  constructor(private readonly opts: PgQuerySlotsOptions) {
    this.limit = opts.limit;
    this.waitMs = opts.waitMs;
    this.pool = statePool({ application_name: 'topicgate-slots', ...opts.pool });
  }

  open(key: string): SharedHold {
    return new PgSlotHold(this.pool, this.limit, (slot) => lockKey(this.opts.namespace, key, slot));
  }

  close(): Promise<void> {
    return this.pool.end();
  }
}

/** The advisory lock key of one slot: a signed 64-bit integer (as text) from SHA-256. */
export function lockKey(namespace: string, key: string, slot: number): string {
  const digest = createHash('sha256').update(`topicgate-slots\0${namespace}\0${key}\0${slot}`).digest();
  return digest.readBigInt64BE(0).toString();
}

class PgSlotHold implements SharedHold {
  private client: PoolClient | undefined;
  private readonly slots = new Set<number>();
  /** The connection failed while held: its locks went with its session. */
  private broken: Error | undefined;
  private released = false;
  private readonly onError = (err: Error) => {
    this.broken ??= err;
  };

  constructor(
    private readonly pool: pg.Pool,
    private readonly limit: number,
    private readonly keyOf: (slot: number) => string,
  ) {}

  async take(n: number): Promise<boolean> {
    if (n <= this.slots.size) return true;
    try {
      const client = await this.connect();
      const got: number[] = [];
      // Lowest free slot first; each try is one atomic statement that never waits.
      for (let s = 0; s < this.limit && this.slots.size + got.length < n; s++) {
        if (this.slots.has(s)) continue;
        const r = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1::bigint) AS ok', [this.keyOf(s)]);
        if (r.rows[0]?.ok) got.push(s);
      }
      if (this.slots.size + got.length < n) {
        for (const s of got) await client.query('SELECT pg_advisory_unlock($1::bigint)', [this.keyOf(s)]);
        return false;
      }
      for (const s of got) this.slots.add(s);
      return true;
    } catch (err) {
      throw stateUnavailable(err, 'the shared store of query limits');
    }
  }

  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    const client = this.client;
    if (!client) return;
    this.client = undefined;
    let broken = this.broken;
    if (!broken) {
      // Every lock of the session: the slots of this hold (and any a failed take left), nothing else is locked on it.
      await client.query('SELECT pg_advisory_unlock_all()').catch((err: unknown) => {
        broken = err instanceof Error ? err : new Error(String(err));
      });
    }
    // A connection that could not unlock is closed, which ends its session and so its locks.
    client.off('error', this.onError);
    client.release(broken ?? false);
  }

  private async connect(): Promise<PoolClient> {
    if (this.released) throw new Error('the hold was given back');
    if (this.broken) throw this.broken;
    if (this.client) return this.client;
    const client = await this.pool.connect();
    // Checked out, a client has no error listener of the pool's: an error would otherwise crash the process.
    client.on('error', this.onError);
    if (this.released) {
      client.off('error', this.onError);
      client.release();
      throw new Error('the hold was given back');
    }
    this.client = client;
    return client;
  }
}
