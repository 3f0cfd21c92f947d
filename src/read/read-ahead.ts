/**
 * Pages read ahead (issue 12): a page query costs a Trino query's fixed overhead (planning, scheduling, a scan's
 * start) however few rows it returns, so paging a window at 10,000 rows a page spent most of its time starting
 * queries. A sliced page read can instead ask Trino for rows past the page's end; those rows, exactly the rows the
 * next pages would read (the same total order over the same pinned window), are kept here under the next page's
 * token, and the request that presents that token is served from them without a query.
 *
 * Bounded: at most `maxRows` rows in all (the oldest entries go first), each for `ttlMs`, and an entry is taken
 * out when it is used, so one token is served once from here. Per process: a next page that reaches another
 * instance simply runs its query. Keyed by the signed token, looked up only after the request's plan has accepted
 * that token (its query hash covers the filters and the caller's row policy), so no request sees rows another
 * request's plan would not read.
 */
import type { ResultColumn, ResultStream } from '../trino/result-stream.js';

type Row = readonly unknown[];

export interface ReadAheadEntry {
  queryId: string;
  columns: readonly ResultColumn[];
  /** The rows after the page that read them, in order. */
  rows: Row[];
  /** True when the result ended within these rows: nothing follows them in the window. */
  ended: boolean;
}

interface Held extends ReadAheadEntry {
  expires: number;
}

export class ReadAheadCache {
  private readonly entries = new Map<string, Held>();
  private held = 0;

  constructor(
    readonly maxRows: number,
    private readonly ttlMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Rows a page of `limit` rows may read past its end: up to 9 pages more, half the cache at most. */
  extraRows(limit: number): number {
    return Math.max(0, Math.min(9 * limit, Math.floor(this.maxRows / 2)));
  }

  /** Rows held now (every entry). */
  get rows(): number {
    return this.held;
  }

  /** Keeps `entry` for the page whose token is `token`; too large an entry is not kept. */
  put(token: string, entry: ReadAheadEntry): void {
    this.expire();
    if (entry.rows.length > this.maxRows) return;
    this.drop(token);
    while (this.held + entry.rows.length > this.maxRows) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.drop(oldest);
    }
    this.entries.set(token, { ...entry, expires: this.now() + this.ttlMs });
    this.held += entry.rows.length;
  }

  /** The entry kept for `token`, removed from the cache; undefined when none is (or it expired). */
  take(token: string): ReadAheadEntry | undefined {
    this.expire();
    const e = this.entries.get(token);
    if (!e) return undefined;
    this.drop(token);
    return e;
  }

  private drop(token: string): void {
    const e = this.entries.get(token);
    if (!e) return;
    this.entries.delete(token);
    this.held -= e.rows.length;
  }

  private expire(): void {
    const t = this.now();
    // Insertion order is expiry order (one ttl for all).
    for (const [token, e] of this.entries) {
      if (e.expires > t) break;
      this.drop(token);
    }
  }
}

/**
 * Read-ahead for one page, when it applies (`eligible`, a finite limit, a cache): the rows it may read past its end,
 * what was kept for it if that is enough to serve it (more rows than the page, or the rest of the window), and how
 * to keep the rows after it. Keys carry the caller: under impersonation Trino's own checks are per principal.
 */
export function pageReadAhead(
  cache: ReadAheadCache,
  o: { eligible: boolean; limit: number; token: string | undefined; caller: string },
) {
  if (!o.eligible || o.limit === Infinity || cache.maxRows === 0) return null;
  const key = (token: string) => `${o.caller}\u0000${token}`;
  const found = o.token === undefined ? undefined : cache.take(key(o.token));
  return {
    extra: cache.extraRows(o.limit),
    kept: found && (found.ended || found.rows.length > o.limit) ? found : undefined,
    keep: (token: string, entry: ReadAheadEntry) => cache.put(key(token), entry),
  };
}

/** The rows of an entry as a result stream (one batch), as if its query were read again from that page on. */
export function readAheadResult(entry: ReadAheadEntry): ResultStream {
  async function* batches() {
    if (entry.rows.length) yield entry.rows;
  }
  return { queryId: entry.queryId, columns: entry.columns, batches: batches() };
}
