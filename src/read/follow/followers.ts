/**
 * `limits.maxFollowers` (API.md "Following a topic"): the follows each caller keeps open at once, counted in this
 * process. A follower holds no query slot between its polls, so the limit on open follows is what bounds the polls
 * one caller can keep running; past it, a 429 naming the limit. Counted per instance: a follow lasts as long as its
 * client stays, and holding a connection of the shared store for each one (as query slots are held there,
 * access/pg-query-slots.ts) would cost the store a connection per follower for hours.
 */
import { ApiError } from '../../core/errors.js';

export class Followers {
  private readonly open = new Map<string, number>();
  /** Each open follow's way to end, for shutdown. */
  private readonly enders = new Set<() => void>();

  constructor(private readonly max: number) {}

  /** Follows open now (all, or of one caller). */
  count(key?: string): number {
    if (key !== undefined) return this.open.get(key) ?? 0;
    let n = 0;
    for (const v of this.open.values()) n += v;
    return n;
  }

  /**
   * Counts a follow of the caller `key`; `end` ends it (at shutdown). Returns what gives its place back (once,
   * however often called). Throws the 429 when the caller has `max` open.
   */
  enter(key: string, end: () => void): () => void {
    const n = this.open.get(key) ?? 0;
    if (n >= this.max) {
      throw new ApiError(
        'TG_TOO_MANY_REQUESTS',
        `this caller already follows ${this.max} topics at once (limits.maxFollowers); close one, or retry later`,
        { limit: 'maxFollowers', max: this.max },
        undefined,
        RETRY_AFTER_S,
      );
    }
    this.open.set(key, n + 1);
    this.enders.add(end);
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.enders.delete(end);
      const now = (this.open.get(key) ?? 1) - 1;
      if (now > 0) this.open.set(key, now);
      else this.open.delete(key);
    };
  }

  /** Ends every open follow (the gateway is shutting down: their clients resume on another instance). */
  endAll(): void {
    for (const end of [...this.enders]) end();
  }
}

/** A follow ends when its client leaves, at a time no one can say: a retry is worth a few seconds later. */
const RETRY_AFTER_S = 5;
