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

  constructor(
    private readonly caller: AbortSignal | undefined,
    deadlineMs: number,
  ) {
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

  /** Stops the deadline and lets go of the caller's signal (the query finished, failed or was cancelled). */
  dispose(): void {
    clearTimeout(this.timer);
    this.caller?.removeEventListener('abort', this.onCallerAbort);
  }
}
