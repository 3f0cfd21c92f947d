/**
 * Calls per minute per caller (`limits.requestsPerMinute`, as for HTTP requests): its principal, or its client address
 * when anonymous or refused, counted before a refusal so that guessing credentials is limited too. Counted in this
 * process, in fixed one-minute windows; past the limit a call is RESOURCE_EXHAUSTED with the seconds to wait.
 */
import { ApiError } from '../core/errors.js';

const WINDOW_MS = 60_000;
/** Windows kept before the ended ones are dropped. */
const PRUNE_AT = 10_000;

export class CallRate {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(private readonly perMinute: number | undefined) {}

  /** Counts a call of `key`; throws the 429 when it is one too many this minute. */
  take(key: string, now = Date.now()): void {
    if (this.perMinute === undefined) return;
    if (this.windows.size >= PRUNE_AT) this.prune(now);
    let w = this.windows.get(key);
    if (!w || now - w.start >= WINDOW_MS) this.windows.set(key, (w = { start: now, count: 0 }));
    if (++w.count <= this.perMinute) return;
    const retryAfterS = Math.max(1, Math.ceil((w.start + WINDOW_MS - now) / 1000));
    throw new ApiError(
      'TG_TOO_MANY_REQUESTS',
      `more than ${this.perMinute} calls a minute; retry after ${retryAfterS}s`,
      { limit: 'requestsPerMinute' },
      undefined,
      retryAfterS,
    );
  }

  private prune(now: number): void {
    for (const [key, w] of this.windows) if (now - w.start >= WINDOW_MS) this.windows.delete(key);
  }
}
