import { QueryCancelledError } from './trino-errors.js';

/**
 * One query's cancellation: the caller's signal or the gateway's deadline, whichever fires first, and which one
 * it was (a deadline is a timeout for the client, an abort is a client gone away).
 */
export class QueryControl {
  private readonly controller = new AbortController();
  private reason: 'aborted' | 'deadline' = 'aborted';
  private readonly timer: NodeJS.Timeout;
  private readonly onCallerAbort = () => this.controller.abort();
  /** Resolves (to undefined) when the query is aborted, for racing a request that is not itself aborted. */
  readonly whenAborted: Promise<undefined>;

  private disposed = false;

  /**
   * `active`: the port's set of running queries; the control is in it until disposed. `onDispose` runs once, when
   * the query is over (its tracing span ends there).
   */
  constructor(
    private readonly caller: AbortSignal | undefined,
    deadlineMs: number,
    private readonly active?: Set<QueryControl>,
    private readonly onDispose?: () => void,
  ) {
    active?.add(this);
    this.timer = setTimeout(() => {
      this.reason = 'deadline';
      this.controller.abort();
    }, deadlineMs);
    this.timer.unref();
    caller?.addEventListener('abort', this.onCallerAbort, { once: true });
    this.whenAborted = new Promise((resolve) =>
      this.signal.addEventListener('abort', () => resolve(undefined), { once: true }),
    );
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The error for a query that this control cancelled. */
  cancelled(queryId: string | undefined): QueryCancelledError {
    return new QueryCancelledError(this.reason, queryId);
  }

  /** Cancels the query as if its caller had aborted (the port is closing). */
  abort(): void {
    this.controller.abort();
  }

  /** Stops the deadline and lets go of the caller's signal (the query finished, failed or was cancelled). */
  dispose(): void {
    if (!this.disposed) this.onDispose?.();
    this.disposed = true;
    this.active?.delete(this);
    clearTimeout(this.timer);
    this.caller?.removeEventListener('abort', this.onCallerAbort);
  }
}

/**
 * A signal that follows `signal` `graceMs` later: a request on it, already on its way when its query is cancelled,
 * may still arrive. Dispose of it when the request is done.
 */
export function gracedSignal(signal: AbortSignal, graceMs: number): { signal: AbortSignal; dispose(): void } {
  const graced = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const later = () => {
    timer = setTimeout(() => graced.abort(signal.reason), graceMs);
    timer.unref();
  };
  if (signal.aborted) later();
  else signal.addEventListener('abort', later, { once: true });
  return {
    signal: graced.signal,
    dispose: () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', later);
    },
  };
}
