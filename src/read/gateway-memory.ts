/**
 * What the gateway holds of rows and values between Trino and the client, in bytes (`limits.maxGatewayBytes`,
 * docs/limits.md): a sort or an aggregation of decoded fields holds the window's rows or groups, and a page of
 * decoded payloads read ahead before its headers holds its rows. Each response holds its bytes through its own
 * account (estimates by read/retained-bytes.ts), all accounts together at most the limit. Streaming a result holds
 * nothing here: its batches are bounded by count (a Trino page or segment, and one fetched ahead).
 *
 * A response that would need more than the whole limit on its own is a 422 TG_TOO_EXPENSIVE (no retry helps); one
 * that finds the rest held by other responses is a 429 TG_TOO_MANY_REQUESTS with Retry-After (it may fit later).
 * Both name the limit, before the response's first byte.
 */
import { ApiError } from '../core/errors.js';

const MiB = 1_048_576;

/** The gateway's budget of held bytes, shared by every response in this process. */
export class GatewayMemory {
  private used = 0;

  constructor(readonly maxBytes: number) {}

  /** Bytes held by every response now. */
  get held(): number {
    return this.used;
  }

  /** A response's account: what it holds is given back by `close()` (or piece by piece, `release`). */
  account(): MemoryAccount {
    return new MemoryAccount(this);
  }

  /** Takes `n` bytes if they fit; false when they do not. */
  take(n: number): boolean {
    if (this.used + n > this.maxBytes) return false;
    this.used += n;
    return true;
  }

  give(n: number): void {
    this.used = Math.max(0, this.used - n);
  }
}

/** One response's bytes held in the gateway. */
export class MemoryAccount {
  private own = 0;
  private closed = false;

  constructor(private readonly pool: GatewayMemory) {}

  /** Bytes this response holds now. */
  get bytes(): number {
    return this.own;
  }

  /** Holds `n` more bytes, or throws: 422 when this response alone would pass the limit, 429 while others hold it. */
  hold(n: number, what: string): void {
    if (this.tryHold(n)) return;
    const max = this.pool.maxBytes;
    if (this.own + n > max) {
      throw new ApiError(
        'TG_TOO_EXPENSIVE',
        `${what} holds more than ${mib(max)} in the gateway (limits.maxGatewayBytes): narrow since/until, add filters the storage takes, or ask for fewer rows`,
        { limit: 'limits.maxGatewayBytes', max },
      );
    }
    throw new ApiError(
      'TG_TOO_MANY_REQUESTS',
      `the gateway holds its limit of ${mib(max)} for other responses (limits.maxGatewayBytes); retry after 2s`,
      { limit: 'limits.maxGatewayBytes', max },
      undefined,
      2,
    );
  }

  /** Holds `n` more bytes if they fit (the caller then holds less instead); never throws. */
  tryHold(n: number): boolean {
    if (this.closed || !this.pool.take(n)) return false;
    this.own += n;
    return true;
  }

  /** Gives back `n` of the bytes held (at most all of them). */
  release(n: number): void {
    const k = Math.min(n, this.own);
    this.own -= k;
    this.pool.give(k);
  }

  /** Gives back everything; later holds fail (the response is over). */
  close(): void {
    this.release(this.own);
    this.closed = true;
  }
}

function mib(n: number): string {
  return n >= MiB ? `${Math.round((n / MiB) * 10) / 10} MiB` : `${n} bytes`;
}
