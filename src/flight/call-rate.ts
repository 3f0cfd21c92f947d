/**
 * Calls per minute per caller (`limits.requestsPerMinute`, as for HTTP requests): its principal, or its client address
 * when anonymous or refused, counted before a refusal so that guessing credentials is limited too. Where the
 * instances share a store (access/shared-quotas.ts), a call is counted there under the key an HTTP request of the same
 * caller is, so a caller has one budget across instances and entrances; otherwise in this process, in fixed one-minute
 * windows. Past the limit, the 429 of every entrance (access/rate-exceeded.ts): RESOURCE_EXHAUSTED over gRPC.
 */
import { rateExceeded } from '../access/rate-exceeded.js';

const WINDOW_MS = 60_000;
/** Windows kept before the ended ones are dropped. */
const PRUNE_AT = 10_000;

/** Counts shared by the instances: one added for `key`, its count this window and the window's milliseconds left. */
export interface SharedRateCounts {
  count(key: string, windowMs: number): Promise<{ current: number; ttl: number }>;
}

export class CallRate {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(
    private readonly perMinute: number | undefined,
    private readonly shared?: SharedRateCounts,
  ) {}

  /** Counts a call of `key`; throws the 429 when it is one too many this minute. */
  async take(key: string, now = Date.now()): Promise<void> {
    if (this.perMinute === undefined) return;
    const { current, ttl } = this.shared ? await this.shared.count(key, WINDOW_MS) : this.local(key, now);
    if (current > this.perMinute) throw rateExceeded(this.perMinute, ttl, 'calls');
  }

  private local(key: string, now: number): { current: number; ttl: number } {
    if (this.windows.size >= PRUNE_AT) this.prune(now);
    let w = this.windows.get(key);
    if (!w || now - w.start >= WINDOW_MS) this.windows.set(key, (w = { start: now, count: 0 }));
    return { current: ++w.count, ttl: w.start + WINDOW_MS - now };
  }

  private prune(now: number): void {
    for (const [key, w] of this.windows) if (now - w.start >= WINDOW_MS) this.windows.delete(key);
  }
}
