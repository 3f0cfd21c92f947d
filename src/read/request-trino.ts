/**
 * What the read path needs of a request's Trino port: the port, the slots its queries hold (the caller's query
 * quotas, access/query-lease.ts), and the slot a query left running is handed on with.
 */
import type { TrinoPort } from '../trino/trino-port.js';

/**
 * Gives the slot back; calling it again does nothing. `ended`: the holder's query is still on its way out of Trino
 * (its cancellation sent, not yet answered), so the slot stays taken until that settles, as a query Trino lists.
 */
export type Release = (ended?: PromiseLike<unknown>) => void;

/** What the read path needs of a request's port: the port, and a way to hold slots for queries run at once. */
export interface RequestTrino extends TrinoPort {
  /** Holds slots for `n` queries running at once (until the request ends); rejects with the 429 or 422. */
  hold(n: number): Promise<void>;
  /**
   * The slot of the one query running, for a query the request leaves running (null: not exactly one), and the port
   * its result's later queries run on until a request adopts it.
   */
  detach(): Detached | null;
  /**
   * Takes on the slot of a query left running by an earlier request, which this one reads on; `end` ends that
   * query (and resolves once Trino has it cancelled) if it still runs when this request ends. Rejects with the 429
   * when the caller's slots on other instances leave none for it (the request's end then ends it).
   */
  adopt(release: Release, end: () => Promise<unknown>): Promise<void>;
  /** Parks a detached slot under the caller's key: `evict` ends its query when another query needs the slot. */
  park(evict: () => void): () => void;
  /**
   * A port of the same caller and client whose slots are given back by its own `end` (a follower's poll: it holds
   * a slot only while it runs, not for as long as the request lasts); the request's end ends it too.
   */
  fork(): RequestTrino & { end(): void };
}

/** A query slot taken out of a request, and where its result's queries run meanwhile. */
export interface Detached {
  release: Release;
  /** Trino itself: under no request's slots (the detached slot covers them) or signal (the result's own cancels). */
  port: TrinoPort;
}
