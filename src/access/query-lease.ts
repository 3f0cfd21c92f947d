/**
 * One request's view of Trino: every query it runs counts against the caller's `concurrentQueries` and the
 * gateway's `maxConcurrentQueries`, and is cancelled when the client goes away.
 *
 * Quotas count Trino queries, not requests: a request that runs none (a commit, a seek) holds no slot; one that runs
 * its queries one after another (a page read in time slices, a cursor batch summarised then read, an explain)
 * holds one slot from its first query until it ends, so it is never refused between two of its own queries; a bulk
 * read of `parallel=N` holds N before its first slice starts (all or none, so two bulk reads cannot each hold half
 * of what both need and wait on each other). When the request ends, a query of it still running in Trino (its
 * client gone, a result left unread) is cancelled, and its slots stay taken until Trino has answered that.
 *
 * Where the caller's slots are counted across instances too (shared-slots.ts), the request's one shared hold grows
 * with the slots it holds here, and is given back when the request ends and its queries have ended. A query left
 * running for the next page (detach) is counted there no longer: it is parked, ended by any query of its caller
 * on its instance that needs the slot, and a request that reads on from it (adopt) takes a shared slot for it again.
 */
import type { QueryOptions, TrinoInfo, TrinoPort, TrinoResult, TrinoRows } from '../trino/trino-port.js';
import type { QueryLimiter } from './query-limiter.js';
import type { Detached, Release, RequestTrino } from '../read/request-trino.js';
import { takeShared, type SharedHold, type SharedSlots } from './shared-slots.js';

export class QueryLease implements RequestTrino {
  private held = 0;
  private readonly releases: Release[] = [];
  /** Holds are taken one at a time, so two callers cannot both take the difference. */
  private holding: Promise<void> = Promise.resolve();
  private ended = false;
  /** This request's queries not yet over (read to the end, failed, or cancelled), each with what cancels it. */
  private readonly live = new Set<{ cancel(): Promise<unknown> }>();
  /** Queries run to completion (`all`) not yet settled: an aborted one settles once Trino has cancelled it. */
  private readonly collecting = new Set<Promise<unknown>>();
  /** The request's slots in the store shared by the instances, when they count the caller's slots there. */
  private sharedHold: SharedHold | undefined;
  /** Forks not yet ended: ended with the request. */
  private readonly forks = new Set<QueryLease>();

  constructor(
    private readonly trino: TrinoPort,
    private readonly limiter: QueryLimiter,
    private readonly key: string,
    /** Aborts when the client goes away: every query of the request is cancelled in Trino then. */
    private readonly signal: AbortSignal,
    private readonly shared?: SharedSlots,
    /** Told when this lease ends (the request's lease forgets an ended fork). */
    private readonly onEnd?: () => void,
  ) {}

  hold(n: number): Promise<void> {
    const next = this.holding.then(async () => {
      if (this.ended) throw this.signal.reason ?? new Error('the request has ended');
      if (n <= this.held) return;
      const release = await this.limiter.acquire(this.key, this.signal, n - this.held);
      try {
        await this.share(n);
      } catch (err) {
        release();
        throw err;
      }
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
   * (held for the next page, held-results.ts); null when the request holds other than exactly one. A result held
   * may start its next slice's query before a request adopts it (its reader fetches a batch ahead): that query runs
   * on the detached slot, not through this lease, which ends with its request.
   */
  detach(): Detached | null {
    if (this.held !== 1 || this.releases.length !== 1) return null;
    this.held = 0;
    // The query left running is the held result's now, which ends it before giving its slot back (held-results.ts).
    this.live.clear();
    return { release: this.releases.pop()!, port: this.trino };
  }

  /** Takes on the slot of a query another request started and this one reads on (the next page). */
  adopt(release: Release, end: () => Promise<unknown>): Promise<void> {
    if (this.ended) {
      release(end());
      return Promise.resolve();
    }
    this.releases.push(release);
    this.held++;
    this.live.add({ cancel: end });
    if (!this.shared) return Promise.resolve();
    const next = this.holding.then(() => this.share(this.held));
    this.holding = next.catch(() => undefined);
    return next;
  }

  /** Grows the shared hold to `n` slots (waiting as the limiter's queue would); nothing without shared slots. */
  private async share(n: number): Promise<void> {
    if (!this.shared) return;
    if (this.ended) throw this.signal.reason ?? new Error('the request has ended');
    this.sharedHold ??= this.shared.open(this.key);
    await takeShared(this.shared, this.sharedHold, n, this.signal);
  }

  /** Parks a detached slot under the caller's key (QueryLimiter): `evict` ends its query when a query needs it. */
  park(evict: () => void): () => void {
    return this.limiter.park(this.key, evict);
  }

  fork(): QueryLease {
    const fork: QueryLease = new QueryLease(this.trino, this.limiter, this.key, this.signal, this.shared, () =>
      this.forks.delete(fork),
    );
    this.forks.add(fork);
    if (this.ended) fork.end();
    return fork;
  }

  /**
   * Gives every slot back (the request has ended); later queries are refused. A query still running is cancelled,
   * and its slots count as taken until Trino has answered (QueryLimiter).
   */
  end(): void {
    this.ended = true;
    this.onEnd?.();
    for (const fork of [...this.forks]) fork.end();
    const cancels = [...this.live].map((r) => r.cancel());
    for (const rows of this.collecting) cancels.push(rows);
    this.live.clear();
    const ended = cancels.length > 0 ? Promise.allSettled(cancels) : undefined;
    for (const release of this.releases.splice(0)) release(ended);
    this.held = 0;
    // Once no hold is being taken (none starts after the end) and the queries have ended in Trino.
    if (this.shared) void Promise.all([this.holding, ended]).finally(() => this.sharedHold?.release());
  }

  private options(opts: QueryOptions | undefined): QueryOptions {
    const signal = opts?.signal ? AbortSignal.any([opts.signal, this.signal]) : this.signal;
    return { ...opts, signal };
  }

  async query(sql: string, opts?: QueryOptions): Promise<TrinoResult> {
    await this.hold(1);
    // Until its first page, the query is ended by cancelling what query() gives, or (an abort while the POST was in
    // flight, query() rejected at once) by the cancellation the port sends once Trino has answered the POST.
    let late: Promise<void> | undefined;
    const started = this.trino.query(sql, { ...this.options(opts), cancelling: (p) => void (late = p) });
    const starting = {
      cancel: () =>
        started.then(
          (r) => r.cancel(),
          () => late,
        ),
    };
    this.live.add(starting);
    try {
      const result = await started;
      this.live.delete(starting);
      return this.track(result);
    } catch (err) {
      const over = () => void this.live.delete(starting);
      if (late) void late.then(over);
      else over();
      throw err;
    }
  }

  async all(sql: string, opts?: QueryOptions): Promise<TrinoRows> {
    await this.hold(1);
    const rows = this.trino.all(sql, this.options(opts));
    this.collecting.add(rows);
    try {
      return await rows;
    } finally {
      this.collecting.delete(rows);
    }
  }

  cancel(queryId: string): Promise<void> {
    return this.trino.cancel(queryId);
  }

  info(signal?: AbortSignal): Promise<TrinoInfo> {
    return this.trino.info(signal);
  }

  /** The result, followed until it is over: read to its end, failed, or cancelled (by the port's own `cancel`). */
  private track(result: TrinoResult): TrinoResult {
    if (this.ended) return result;
    const live = this.live;
    live.add(result);
    const over = () => void live.delete(result);
    const batches = result.batches;
    return {
      ...result,
      batches: (async function* () {
        try {
          yield* batches;
        } finally {
          over();
        }
      })(),
      cancel: () => result.cancel().finally(over),
    };
  }

  /** Not the request's to do: closing the gateway's port is the server's (graceful shutdown). */
  close(): Promise<void> {
    return Promise.resolve();
  }
}
