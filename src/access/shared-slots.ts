/**
 * A caller's query slots counted across gateway instances (docs/deployment.md, "Several instances"): where the
 * instances share a store that can count them (PostgreSQL: access/pg-query-slots.ts), a query takes one of the caller's
 * `concurrentQueries` slots there as well as in its own process (query-limiter.ts), so the limit holds for the caller's
 * queries on every instance together. The gateway-wide `maxConcurrentQueries` stays per instance.
 *
 * One hold per request (query-lease.ts): it grows to the slots the request holds and gives them all back when the
 * request's queries have ended. A slot held elsewhere frees when its query ends or its instance dies, which no event
 * here reports: a query that finds none free tries again until the queue wait (`queueWaitMs`) runs out, as it would
 * have waited in the process's own queue, then gets the 429 its own limit gives.
 */
import { ApiError } from '../core/errors.js';

export interface SharedSlots {
  /** The caller's limit (`concurrentQueries`) and how long a query may wait for a slot (`queueWaitMs`). */
  readonly limit: number;
  readonly waitMs: number;
  /** A hold of no slots yet, for the caller `key`. */
  open(key: string): SharedHold;
}

export interface SharedHold {
  /**
   * Grows the hold to `n` slots, all or none: false when the caller's other queries (on any instance) leave fewer
   * free. Rejects with 503 TG_STATE_UNAVAILABLE when the store cannot be reached.
   */
  take(n: number): Promise<boolean>;
  /** Gives every slot back (idempotent). */
  release(): Promise<void>;
}

/** First retry after this long, doubled up to RETRY_MAX_MS, each with jitter (instances polling do not align). */
const RETRY_FIRST_MS = 25;
const RETRY_MAX_MS = 250;

/**
 * Grows `hold` to `n` slots, trying again until `slots.waitMs` has passed; then the 429 of the caller's limit.
 * Rejects with the signal's reason when it aborts while waiting.
 */
export async function takeShared(slots: SharedSlots, hold: SharedHold, n: number, signal?: AbortSignal): Promise<void> {
  const deadline = Date.now() + slots.waitMs;
  for (let pause = RETRY_FIRST_MS; ; pause = Math.min(pause * 2, RETRY_MAX_MS)) {
    if (signal?.aborted) throw signal.reason;
    if (await hold.take(n)) return;
    const left = deadline - Date.now();
    if (left <= 0) throw callerAtLimit(slots.limit, slots.waitMs);
    await sleep(Math.min(left, pause / 2 + Math.random() * pause), signal);
  }
}

/** The 429 of a query that waited `waitMs` for one of its caller's `concurrentQueries` slots, all taken. */
export function callerAtLimit(limit: number, waitMs: number): ApiError {
  return waitedOut({ whose: "this caller's", limit: 'concurrentQueries', max: limit }, waitMs);
}

/** The 429 of a query that waited `waitMs` (limits.queueWaitMs) for one of `max` slots of `limit`, all taken. */
export function waitedOut(
  slots: { whose: string; limit: 'concurrentQueries' | 'maxConcurrentQueries'; max: number },
  waitMs: number,
): ApiError {
  const retryAfterS = retryAfter(waitMs);
  return new ApiError(
    'TG_TOO_MANY_REQUESTS',
    `waited ${waitMs} ms (limits.queueWaitMs) for one of ${slots.whose} ${slots.max} query slots ` +
      `(limits.${slots.limit}, all taken); retry after ${retryAfterS}s`,
    { limit: slots.limit, max: slots.max, waitedMs: waitMs },
    undefined,
    retryAfterS,
  );
}

/** Seconds a refused caller is told to wait: the queue's wait, at least one. */
export function retryAfter(waitMs: number): number {
  return Math.max(1, Math.ceil(waitMs / 1000));
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
