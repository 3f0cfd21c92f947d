/**
 * Failures on the wire: which of them a nextUri GET may retry (the protocol's transient statuses, a reset
 * connection, a request past its time limit), and the one error every failure reaches callers as. Messages name
 * a status or an error code, never a URL's credentials or a header.
 */
import { RequestTimeoutError } from './http-transport.js';
import { TrinoUnavailableError } from './trino-errors.js';

const RETRY_STATUSES = new Set([429, 502, 503, 504]);
// ECONNRESET also stands for Node's "socket hang up" (the connection closed before or during the answer).
const RESET_CODES = new Set(['ECONNRESET', 'EPIPE']);

/** Trino answered outside 2xx. */
export class HttpStatusError extends Error {
  constructor(readonly status: number) {
    super(`HTTP ${status}`);
  }
}

/** Whether a failed nextUri GET may be sent again. */
export function retryable(err: unknown): boolean {
  if (err instanceof HttpStatusError) return RETRY_STATUSES.has(err.status);
  if (err instanceof RequestTimeoutError) return true;
  return RESET_CODES.has((err as { code?: string })?.code ?? '');
}

/** Any failure to reach Trino (or an HTTP error from it) as the port's TrinoUnavailableError. */
export function unavailable(err: unknown): TrinoUnavailableError {
  if (err instanceof TrinoUnavailableError) return err;
  if (err instanceof HttpStatusError) return new TrinoUnavailableError(`Trino answered HTTP ${err.status}`, err.status);
  if (err instanceof RequestTimeoutError)
    return new TrinoUnavailableError(`Trino did not answer within ${err.timeoutMs} ms`);
  const code = (err as { code?: string })?.code;
  return new TrinoUnavailableError(`Trino is not reachable (${code ?? (err as Error)?.message ?? 'error'})`);
}

/** The wait before retry number `attempt` (0-based): doubling from `baseMs`, never above `maxMs`. */
export function backoffMs(attempt: number, retry: { baseMs: number; maxMs: number }): number {
  return Math.min(retry.baseMs * 2 ** attempt, retry.maxMs);
}
