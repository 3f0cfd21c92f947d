/**
 * The one refusal of `limits.requestsPerMinute`, whichever entrance counted it (an HTTP request, a Flight SQL call):
 * 429 TG_TOO_MANY_REQUESTS naming the limit, with the seconds left of the caller's window as Retry-After.
 */
import { ApiError } from '../core/errors.js';

/** The refusal of one `what` (requests, calls) too many this minute, `ttlMs` before the window ends. */
export function rateExceeded(perMinute: number, ttlMs: number, what: 'requests' | 'calls'): ApiError {
  const retryAfterS = Math.max(1, Math.ceil(ttlMs / 1000));
  return new ApiError(
    'TG_TOO_MANY_REQUESTS',
    `more than ${perMinute} ${what} a minute; retry after ${retryAfterS}s`,
    { limit: 'requestsPerMinute' },
    undefined,
    retryAfterS,
  );
}
