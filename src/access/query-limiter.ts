/**
 * Concurrent Trino queries (API.md "Access", `limits`): at most `concurrentQueries` per caller and
 * `maxConcurrentQueries` for the whole gateway. A query over either waits in a FIFO queue for its slot, as a
 * database pool's caller waits for a connection (at most `queuedQueries` waiting, each at most `queueWaitMs`, 30 s
 * by default); only a full queue or a wait run out is a 429 TG_TOO_MANY_REQUESTS with Retry-After, whose message
 * and `details.limit` name which, so one caller cannot occupy the whole Trino cluster and a burst does not pile up
 * unboundedly. A waiter whose request ends (its client gone: the signal) leaves the queue at once.
 *
 * The limits hold for the queries Trino runs, not only for the slots handed out: a query given up (its client gone,
 * a parked query evicted) keeps its slot until Trino has answered its cancellation, so the query a freed slot lets
 * in never runs beside the one it replaces.
 */
import { ApiError } from '../core/errors.js';
import type { Limits } from '../config/access-schema.js';
import { callerAtLimit, retryAfter, waitedOut } from './shared-slots.js';
import type { Release } from '../read/request-trino.js';

interface Waiter {
  key: string;
  n: number;
  grant: (release: Release) => void;
  fail: (err: unknown) => void;
}

/** A slot held by a query parked between two pages (held-results.ts): given up to any query that needs it. */
interface Parked {
  key: string;
  /** Ends the parked query and releases its slot at once, with the end of its query as `ended` (Release). */
  evict: () => void;
}

export class QueryLimiter {
  private running = 0;
  private readonly perKey = new Map<string, number>();
  /** Slots given back whose query has not yet ended in Trino: not free until it has. */
  private ending = 0;
  private readonly endingPerKey = new Map<string, number>();
  private readonly queue: Waiter[] = [];
  private readonly parked: Parked[] = [];

  constructor(
    private readonly limits: Pick<
      Limits,
      'concurrentQueries' | 'maxConcurrentQueries' | 'queuedQueries' | 'queueWaitMs'
    >,
  ) {}

  /** Queries running now (all, or of one caller). */
  active(key?: string): number {
    return key === undefined ? this.running : (this.perKey.get(key) ?? 0);
  }

  waiting(): number {
    return this.queue.length;
  }

  /** Queries given back and not yet ended in Trino (all, or of one caller): their slots are not free yet. */
  endingCount(key?: string): number {
    return key === undefined ? this.ending : (this.endingPerKey.get(key) ?? 0);
  }

  /**
   * Slots for `n` queries of the caller `key` run at once (a bulk read's slices), all or none: at once when both
   * limits allow, else after a short wait. Throws the 429 when the queue is full or the wait runs out, a 422 when
   * `n` is more than a limit could ever allow, and the signal's reason when it aborts while waiting.
   */
  acquire(key: string, signal?: AbortSignal, n = 1): Promise<Release> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const never = this.never(n);
    if (never) return Promise.reject(never);
    // Every waiter is one that did not fit when the slots last changed (drain runs on each release), so a query
    // that fits now takes a slot from no one ahead of it. Parked queries make room first: they wait for a next
    // page that may never come, and that page runs its own query if it does. An evicted query's slot is free once
    // Trino has cancelled it: the query waits for that, past a full queue, as the room is already being made.
    this.reclaim(key, n);
    if (this.fits(key, n)) return Promise.resolve(this.take(key, n));
    if (this.queue.length >= this.limits.queuedQueries && !this.fits(key, n, true)) {
      return Promise.reject(this.queueFull());
    }
    return new Promise<Release>((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      const waiter: Waiter = {
        key,
        n,
        grant: (release) => {
          done();
          resolve(release);
        },
        fail: (err) => {
          done();
          const at = this.queue.indexOf(waiter);
          if (at >= 0) this.queue.splice(at, 1);
          reject(err);
          // The queue's head may have been held behind this one.
          this.drain();
        },
      };
      const onAbort = () => waiter.fail(signal?.reason);
      const timer = setTimeout(() => waiter.fail(this.waitedOut(key)), this.limits.queueWaitMs);
      timer.unref?.();
      signal?.addEventListener('abort', onAbort, { once: true });
      this.queue.push(waiter);
    });
  }

  /**
   * Marks a held slot of `key` as parked: its query waits for a client's next request, and `evict` (which must
   * release the slot) ends it when another query needs the slot. Returns what unparks it (the query is read on).
   */
  park(key: string, evict: () => void): () => void {
    const p: Parked = { key, evict };
    this.parked.push(p);
    // A query already waiting needs the slot more than a next page that may never come. Evicted once the caller has
    // recorded what it parked (its `evict` finds it then), not within this call.
    if (this.queue.length > 0) queueMicrotask(() => this.reclaimForQueue());
    return () => {
      const at = this.parked.indexOf(p);
      if (at >= 0) this.parked.splice(at, 1);
    };
  }

  /** Parked queries held in all. */
  parkedCount(): number {
    return this.parked.length;
  }

  /**
   * Evicts parked queries, oldest first, until `n` slots of `key` fit once the queries ending now have ended: its
   * own when its limit is what binds.
   */
  private reclaim(key: string, n: number): void {
    while (!this.fits(key, n, true)) {
      const per = this.limits.concurrentQueries;
      const mine = per !== undefined && this.active(key) + n > per;
      const at = this.parked.findIndex((p) => !mine || p.key === key);
      if (at < 0) return;
      const [p] = this.parked.splice(at, 1);
      p!.evict();
    }
  }

  /** Makes room for the queries waiting, in order, from parked queries (reclaim). */
  private reclaimForQueue(): void {
    for (const w of [...this.queue]) this.reclaim(w.key, w.n);
  }

  /** Whether `n` more queries of `key` fit both limits; `once`: once the queries ending now have ended. */
  private fits(key: string, n: number, once = false): boolean {
    const per = this.limits.concurrentQueries;
    const [all, mine] = once ? [0, 0] : [this.ending, this.endingCount(key)];
    return (
      this.running + all + n <= this.limits.maxConcurrentQueries &&
      (per === undefined || this.active(key) + mine + n <= per)
    );
  }

  /** The refusal of a request for more slots than a limit has: waiting could never help. */
  private never(n: number): ApiError | null {
    const per = this.limits.concurrentQueries;
    const [limit, max] =
      per !== undefined && n > per
        ? (['concurrentQueries', per] as const)
        : n > this.limits.maxConcurrentQueries
          ? (['maxConcurrentQueries', this.limits.maxConcurrentQueries] as const)
          : [null, 0];
    if (limit === null) return null;
    return new ApiError(
      'TG_TOO_EXPENSIVE',
      `${n} Trino queries at once are more than limits.${limit} = ${max} allows; ask for fewer (parallel)`,
      { limit, max, found: n },
    );
  }

  private take(key: string, n: number): Release {
    this.running += n;
    count(this.perKey, key, n);
    let released = false;
    return (ended) => {
      if (released) return;
      released = true;
      this.running -= n;
      count(this.perKey, key, -n);
      if (ended) this.endLater(key, n, ended);
      this.drain();
    };
  }

  /** Keeps `n` slots of `key` taken until `ended` settles (their queries are being cancelled in Trino). */
  private endLater(key: string, n: number, ended: PromiseLike<unknown>): void {
    this.ending += n;
    count(this.endingPerKey, key, n);
    const free = () => {
      this.ending -= n;
      count(this.endingPerKey, key, -n);
      this.drain();
    };
    Promise.resolve(ended).then(free, free);
  }

  /** Grants waiting queries in order; one held back by its own caller's limit does not block others. */
  private drain(): void {
    for (let i = 0; i < this.queue.length && this.running + this.ending < this.limits.maxConcurrentQueries;) {
      const w = this.queue[i]!;
      if (!this.fits(w.key, w.n)) {
        i++;
        continue;
      }
      this.queue.splice(i, 1);
      w.grant(this.take(w.key, w.n));
    }
  }

  /** The 429 of a query that found the queue full: it never waited. */
  private queueFull(): ApiError {
    const { queuedQueries } = this.limits;
    const retryAfterS = retryAfter(this.limits.queueWaitMs);
    return new ApiError(
      'TG_TOO_MANY_REQUESTS',
      `${queuedQueries} queries already wait for a slot (limits.queuedQueries, the queue is full); retry after ${retryAfterS}s`,
      { limit: 'queuedQueries', max: queuedQueries },
      undefined,
      retryAfterS,
    );
  }

  /** The 429 of a query that waited `queueWaitMs` for a slot: it names the limit that kept it waiting. */
  private waitedOut(key: string): ApiError {
    const per = this.limits.concurrentQueries;
    const { queueWaitMs, maxConcurrentQueries } = this.limits;
    if (per !== undefined && this.active(key) + this.endingCount(key) >= per) return callerAtLimit(per, queueWaitMs);
    return waitedOut({ whose: "the gateway's", limit: 'maxConcurrentQueries', max: maxConcurrentQueries }, queueWaitMs);
  }
}

/** Adds `d` to the count of `key`, dropping it at zero. */
function count(counts: Map<string, number>, key: string, d: number): void {
  const left = (counts.get(key) ?? 0) + d;
  if (left > 0) counts.set(key, left);
  else counts.delete(key);
}
