/**
 * Result bodies in reused buffers. A spooled segment (as fetched, and decompressed) or a direct page lives while
 * its rows are read, long enough to outlive V8's young generation: in a new Buffer each time, the dead ones piled
 * up outside the heap until a full collection (V8 starts one only some 64 MB of external memory later), and a
 * gateway's peak memory grew with the read.
 */
import { Buffer } from 'node:buffer';

/**
 * Byte buffers to reuse: at most `keep` wait here, for at most `idleMs` after the last one came back (an idle gateway keeps none). A buffer is handed out as a view
 * of its first `size` bytes; give() takes back only views of this pool's own buffers, once each (anything else is
 * left to the garbage collector), so giving back a buffer that did not come from here, or twice, cannot hand the
 * same bytes to two readers.
 */
export class BufferPool {
  private readonly free: ArrayBuffer[] = [];
  private readonly own = new WeakSet<ArrayBuffer>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly keep = 8,
    private readonly idleMs = 10_000,
  ) {}

  /** A buffer of `size` bytes, the caller's to fill and read until it gives it back. */
  take(size: number): Buffer {
    let best = -1;
    // Whole MiB (64 KiB for small ones), so a buffer fits the slightly smaller segments after it.
    const unit = size > 1 << 20 ? 1 << 20 : 1 << 16;
    const fresh = Math.ceil(Math.max(1, size) / unit) * unit;
    for (let i = 0; i < this.free.length; i++) {
      const b = this.free[i]!;
      // At most twice what a new one would be: a small body does not take a large buffer the next segment needs.
      if (b.byteLength < size || b.byteLength > 2 * fresh) continue;
      if (best < 0 || b.byteLength < this.free[best]!.byteLength) best = i;
    }
    if (best >= 0) return Buffer.from(this.free.splice(best, 1)[0]!, 0, size);
    const b = new ArrayBuffer(fresh);
    this.own.add(b);
    return Buffer.from(b, 0, size);
  }

  /** Gives back a buffer from take(): the caller reads it no more. Other buffers are ignored. */
  give(view: Uint8Array): void {
    const b = view.buffer as ArrayBuffer;
    if (!this.own.has(b) || this.free.includes(b)) return;
    if (this.free.length >= this.keep) this.free.shift();
    this.free.push(b);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => (this.free.length = 0), this.idleMs);
    this.timer.unref();
  }

  /** Buffers waiting to be reused. */
  get size(): number {
    return this.free.length;
  }
}

/** Spooled segments as fetched and decompressed (segment-fetch.ts, segment-decoder.ts). */
export const segmentBuffers = new BufferPool();
/** Direct pages as fetched (http-trino.ts), given back by json-rows.ts once their rows are parsed. */
export const pageBuffers = new BufferPool(4);
