/**
 * Held results (docs/reading.md, "Pages read on"): a page query costs a Trino query's fixed overhead (planning,
 * scheduling, a scan's start, the sort of its slice) however few rows it returns, so paging a window at 10,000 rows a
 * page spent most of its time starting queries. Instead, the query of a sliced page is not cancelled when the page is
 * full: it is held, still running in Trino (paused by its buffers, as for a slow client), under the next page's token,
 * and the request that presents that token continues it. The rows it reads are exactly the rows a query from that
 * position would read (the same total order over the same pinned window, continued from where the page ended), so a
 * walk of many pages runs a query per slice, and the slices double in width.
 *
 * Bounded: at most `max` results held in this process, each for `ttlMs` (then cancelled), and never longer than
 * `maxAgeMs` after its query started (its deadline must not cut a page short). A held query keeps its caller's
 * query slot, parked (query-limiter.ts): any query that needs the slot ends it. An entry is taken out when used,
 * so a held result is continued once; a next page that finds nothing held (another instance, expired, evicted) runs its
 * own query, which holds the same rows. Keyed by the caller and the signed token, looked up only after the
 * request's plan has accepted that token (its query hash covers the filters and the caller's row policy), so no
 * request reads rows another request's plan would not read; under impersonation Trino's checks are per principal.
 */
import type { Release, RequestTrino } from './request-trino.js';
import type { ResultColumn, ResultStream } from '../core/result-stream.js';
import { prefetchBatches } from './batch-prefetch.js';
import type { PortRef, Reach, HoldingResult } from './sliced-result.js';
import { rowValues, type Row, type RowBatch } from '../core/text-rows.js';

/** A page's result, held past the page. */
export interface HeldResult {
  queryId: string;
  columns: readonly ResultColumn[];
  /** Rows already read after the page (the rest of the batch that ended it), in order. */
  rows: Row[];
  /** The rest of the result; its later slices' queries run through `port`. */
  rest: AsyncIterator<RowBatch>;
  /** Where those queries run: the request continuing it sets its own port, options and stats. */
  port: PortRef;
  /** The signal of its queries: aborted by the request continuing it when its client goes away. */
  relay: AbortController;
  /** When its first query started (epoch ms). */
  startedMs: number;
  /** How far it may be read (sliced-result.ts), and the rows the pages before took from it. */
  reach: Reach;
  consumed: number;
}

/** What keeps a held result's query slot: the slot, and what parks it under its caller (null: no quotas). */
export interface HeldSlot {
  release: Release | null;
  park: (evict: () => void) => () => void;
}

interface Held {
  result: HeldResult;
  release: Release | null;
  unpark: () => void;
  timer: NodeJS.Timeout;
}

export class HeldResults {
  private readonly entries = new Map<string, Held>();

  constructor(
    readonly max: number,
    private readonly maxAgeMs: number,
    private readonly ttlMs = 15_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Results held now. */
  get size(): number {
    return this.entries.size;
  }

  /** Holds `result` for the request presenting `key`; the oldest entry goes when the cache is full. */
  hold(key: string, result: HeldResult, slot: HeldSlot): void {
    if (this.max === 0) return void end(result, slot.release);
    void this.drop(key);
    while (this.entries.size >= this.max) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      void this.drop(oldest);
    }
    const timer = setTimeout(() => void this.drop(key), this.ttlMs);
    timer.unref();
    const unpark = slot.release ? slot.park(() => void this.drop(key)) : () => {};
    this.entries.set(key, { result, release: slot.release, unpark, timer });
  }

  /**
   * The result held for `key`, removed from the cache with its slot (the caller adopts it); undefined when none is,
   * or it cannot be continued (then it is ended): too old, or its end is not sure within the `need` rows the reader
   * must see (a page's rows and one more, to know whether a next page exists).
   */
  take(key: string, need = 0): { result: HeldResult; release: Release | null } | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    this.entries.delete(key);
    clearTimeout(e.timer);
    e.unpark();
    const { startedMs, reach, consumed } = e.result;
    if (this.now() - startedMs > this.maxAgeMs || reach.sure - consumed < need) {
      void end(e.result, e.release);
      return undefined;
    }
    return { result: e.result, release: e.release };
  }

  /** Ends every held result (shutdown), once each query's cancellation has been sent. */
  async close(): Promise<void> {
    await Promise.all([...this.entries.keys()].map((key) => this.drop(key)));
  }

  /** Ends the result held for `key`, if any. */
  drop(key: string): Promise<void> {
    const e = this.entries.get(key);
    if (!e) return Promise.resolve();
    this.entries.delete(key);
    clearTimeout(e.timer);
    e.unpark();
    return end(e.result, e.release);
  }
}

/** Cancels a held result's query (the port cancels it in Trino); its slot is free once Trino has answered. */
function end(result: HeldResult, release: Release | null): Promise<void> {
  const ended = Promise.resolve(result.rest.return?.())
    .catch(() => undefined)
    .then(() => undefined);
  release?.(ended);
  return ended;
}

/**
 * A held result bound to the request that continues it (its slot adopted, its later queries on this request's
 * port), with its next batch already read unless the rows kept fill the page. Undefined when that read fails (the
 * query was cut in Trino, or the client of the page that left it running went away before its response was
 * whole): the page then runs its own query, on the slot adopted, and holds the same rows.
 */
async function resume(
  found: { result: HeldResult; release: Release | null },
  trino: RequestTrino,
  port: PortRef,
  o: { limit: number; signal: AbortSignal },
): Promise<{ result: HeldResult; release: Release | null } | undefined> {
  const h = found.result;
  Object.assign(h.port, { trino: port.trino, opts: { ...port.opts, signal: h.relay.signal }, stats: port.stats });
  if (found.release) await trino.adopt(found.release, () => end(h, null));
  const abort = () => h.relay.abort(o.signal.reason);
  if (o.signal.aborted) abort();
  else o.signal.addEventListener('abort', abort, { once: true });
  try {
    if (h.rows.length <= o.limit) {
      const next = await h.rest.next();
      if (!next.done) h.rows = h.rows.concat(rowValues(next.value));
    }
    return found;
  } catch (err) {
    if (o.signal.aborted) throw err;
    void end(h, null);
    return undefined;
  } finally {
    o.signal.removeEventListener('abort', abort);
  }
}

/** What a page reads: its result, and how the result is handed on for the next page. */
export interface PageRead {
  /** The page's result (for its query id and columns). */
  result: ResultStream;
  /** What the cutter reads: the result fetched a batch ahead (batch-prefetch.ts), once per query. */
  source: ResultStream;
  /** Rows before the source's own (a held result's, read after the previous page). */
  first: Row[];
  /** The result goes on past the page (the cutter hands it over). */
  holding: boolean;
  /** True when the page continues an earlier page's held query (it ran none of its own to start). */
  continued: boolean;
  /** Holds the rest of the result for the page whose token is `token`, or ends it when it cannot be held. */
  holdRest(token: string | null, rest: { rows: Row[]; source: AsyncIterator<RowBatch>; consumed: number }): void;
}

/**
 * The result of a page: the query an earlier page left running for this page's token (its later
 * slices then run as this request's queries, on its slot), continued, or a new one (`open`), held past the page when
 * `eligible`.
 */
export async function pageRead(
  held: HeldResults,
  trino: RequestTrino,
  port: PortRef,
  o: { eligible: boolean; limit: number; token: string | undefined; caller: string; signal: AbortSignal },
  open: (holding: boolean) => Promise<ResultStream>,
): Promise<PageRead> {
  const holding = o.eligible && o.limit !== Infinity && held.max > 0;
  const key = (token: string) => `${o.caller}\u0000${token}`;
  // Continued only as far as its end is surely the window's: this page must see its rows and one more before.
  const taken = holding && o.token !== undefined ? held.take(key(o.token), o.limit + 1) : undefined;
  const found = taken && (await resume(taken, trino, port, o));
  // The queries of a held result outlive this request: their signal is a relay that this request's client
  // going away aborts, until the result is handed on (then the next page's request binds it).
  const relay = found?.result.relay ?? new AbortController();
  const abort = () => relay.abort(o.signal.reason);
  if (holding) {
    if (o.signal.aborted) abort();
    else o.signal.addEventListener('abort', abort, { once: true });
  }
  const h = found?.result;
  const startedMs = h?.startedMs ?? Date.now();
  if (!h && holding) port.opts = { ...port.opts, signal: relay.signal };
  const result: ResultStream = h
    ? { queryId: h.queryId, columns: h.columns, batches: { [Symbol.asyncIterator]: () => h.rest } }
    : await open(holding);
  const source = h ? result : prefetchBatches(result);
  const ref = h?.port ?? port;
  const reach: Reach = h?.reach ?? (holding ? (result as HoldingResult).reach : { yielded: 0, sure: 0 });
  const consumed = h?.consumed ?? 0;
  return {
    result,
    source,
    first: found?.result.rows ?? [],
    holding,
    continued: Boolean(found),
    holdRest(token, rest) {
      o.signal.removeEventListener('abort', abort);
      // Held only with the query's own slot, which the request gives up (a query slot parked under its caller).
      const detached = token && !relay.signal.aborted ? trino.detach() : null;
      // Until the next page adopts it, a slice query it starts runs on that slot (this request is ending).
      if (detached) ref.trino = detached.port;
      const { queryId, columns } = result;
      const next: HeldResult = {
        queryId,
        columns,
        rows: rest.rows,
        rest: rest.source,
        port: ref,
        relay,
        startedMs,
        reach,
        consumed: consumed + rest.consumed,
      };
      if (!token || !detached) return void end(next, null);
      held.hold(key(token), next, { release: detached.release, park: (evict) => trino.park(evict) });
    },
  };
}
