/**
 * One request's view of Trino (issue 10, quotas and hardening): every query it runs counts against the caller's
 * `concurrentQueries` and the gateway's `maxConcurrentQueries`, and is cancelled when the client goes away.
 *
 * Quotas count Trino queries, not requests: a request that runs none (a commit, a seek) holds no slot; one that runs
 * its queries one after another (a page read in time slices, a cursor batch summarised then read, an explain)
 * holds one slot from its first query until it ends, so it is never refused between two of its own queries; a bulk
 * read of `parallel=N` holds N before its first slice starts (all or none, so two bulk reads cannot each hold half
 * of what both need and wait on each other).
 */
import type { QueryOptions, TrinoInfo, TrinoPort, TrinoResult, TrinoRows } from '../trino/trino-port.js';
import type { QueryLimiter, Release } from './query-limiter.js';

/** What the read path needs of a request's port: the port, and a way to hold slots for queries run at once. */
export interface RequestTrino extends TrinoPort {
  /** Holds slots for `n` queries running at once (until the request ends); rejects with the 429 or 422. */
  hold(n: number): Promise<void>;
  /**
   * The slot of the one query running, for a query the request leaves running (null: not exactly one), and the port
   * its result's later queries run on until a request adopts it.
   */
  detach(): Detached | null;
  /** Takes on the slot of a query left running by an earlier request, which this one reads on. */
  adopt(release: Release): void;
  /** Parks a detached slot under the caller's key: `evict` ends its query when another query needs the slot. */
  park(evict: () => void): () => void;
}

/** A query slot taken out of a request, and where its result's queries run meanwhile. */
export interface Detached {
  release: Release;
  /** Trino itself: under no request's slots (the detached slot covers them) or signal (the result's own cancels). */
  port: TrinoPort;
}

export class QueryLease implements RequestTrino {
  private held = 0;
  private readonly releases: Release[] = [];
  /** Holds are taken one at a time, so two callers cannot both take the difference. */
  private holding: Promise<void> = Promise.resolve();
  private ended = false;

  constructor(
    private readonly trino: TrinoPort,
    private readonly limiter: QueryLimiter,
    private readonly key: string,
    /** Aborts when the client goes away: every query of the request is cancelled in Trino then. */
    private readonly signal: AbortSignal,
  ) {}

  hold(n: number): Promise<void> {
    const next = this.holding.then(async () => {
      if (this.ended) throw this.signal.reason ?? new Error('the request has ended');
      if (n <= this.held) return;
      const release = await this.limiter.acquire(this.key, this.signal, n - this.held);
      if (this.ended) {
        release();
        throw this.signal.reason ?? new Error('the request has ended');
      }
      this.releases.push(release);
      this.held = n;
    });
    this.holding = next.catch(() => undefined);
    return next;
  }

  /**
   * The slot of the request's one running query, taken out of the lease, for a query that outlives the request
   * (held for the next page, read/read-ahead.ts); null when the request holds other than exactly one. A result held
   * may start its next slice's query before a request adopts it (its reader fetches a batch ahead): that query runs
   * on the detached slot, not through this lease, which ends with its request.
   */
  detach(): Detached | null {
    if (this.held !== 1 || this.releases.length !== 1) return null;
    this.held = 0;
    return { release: this.releases.pop()!, port: this.trino };
  }

  /** Takes on the slot of a query another request started and this one reads on (the next page). */
  adopt(release: Release): void {
    if (this.ended) {
      release();
      return;
    }
    this.releases.push(release);
    this.held++;
  }

  /** Parks a detached slot under the caller's key (quotas.ts): `evict` ends its query when a query needs it. */
  park(evict: () => void): () => void {
    return this.limiter.park(this.key, evict);
  }

  /** Gives every slot back (the request has ended); later queries are refused. */
  end(): void {
    this.ended = true;
    for (const release of this.releases.splice(0)) release();
    this.held = 0;
  }

  private options(opts: QueryOptions | undefined): QueryOptions {
    const signal = opts?.signal ? AbortSignal.any([opts.signal, this.signal]) : this.signal;
    return { ...opts, signal };
  }

  async query(sql: string, opts?: QueryOptions): Promise<TrinoResult> {
    await this.hold(1);
    return this.trino.query(sql, this.options(opts));
  }

  async all(sql: string, opts?: QueryOptions): Promise<TrinoRows> {
    await this.hold(1);
    return this.trino.all(sql, this.options(opts));
  }

  cancel(queryId: string): Promise<void> {
    return this.trino.cancel(queryId);
  }

  info(signal?: AbortSignal): Promise<TrinoInfo> {
    return this.trino.info(signal);
  }

  /** Not the request's to do: closing the gateway's port is the server's (graceful shutdown). */
  close(): Promise<void> {
    return Promise.resolve();
  }
}
