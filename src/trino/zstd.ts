/**
 * zstd frames decompressed into reused buffers. A spooled segment decompresses to some megabytes that live while
 * its rows are read, long enough to outlive V8's young generation: decompressed into a new Buffer each time, the
 * dead ones piled up outside the heap until a full collection (V8 starts one only some 64 MB of external memory
 * later), which made a gateway's peak memory grow with the read. Here the frame is decompressed by zstd's own
 * code (the WebAssembly build of @foxglove/wasm-zstd, loaded as a module instance of our own so its output can be
 * copied into a buffer of our choosing) into a buffer from a small pool, and given back once its rows are read;
 * the segment's body as fetched comes from the same pool (http-transport.ts `pool`).
 */
import { createRequire } from 'node:module';

interface ZstdModule {
  HEAPU8: Uint8Array;
  _malloc(size: number): number;
  _free(pointer: number): void;
  _decompress(dest: number, destSize: number, src: number, srcSize: number): number;
  ready: Promise<unknown>;
}

const factory = createRequire(import.meta.url)('@foxglove/wasm-zstd/dist/wasm-zstd.js') as () => Promise<ZstdModule>;
let zstd: ZstdModule | undefined;

/** Resolves once the WebAssembly module is loaded (decompress needs it). */
export const zstdReady: Promise<void> = factory().then(async (m) => {
  await m.ready;
  zstd = m;
});

/**
 * Byte buffers reused for result bodies (segmentBuffers: spooled segments as fetched and decompressed; pageBuffers:
 * protocol pages as fetched, given back by json-rows.ts once their rows are parsed). At most `keep` wait here,
 * for at most `idleMs` after the last one came back (an idle gateway keeps none). A buffer is handed out as a view
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

export const segmentBuffers = new BufferPool();
export const pageBuffers = new BufferPool(4);

/**
 * Decompresses a zstd frame of `size` bytes into `out` (at least that long); returns the bytes written. Throws when
 * the frame does not decompress.
 */
export function zstdDecompressInto(frame: Uint8Array, size: number, out: Buffer): number {
  const m = zstd;
  if (!m) throw new Error('zstd is not loaded yet');
  if (out.length < size) throw new RangeError('output buffer too small');
  const src = m._malloc(frame.length);
  const dest = m._malloc(size);
  try {
    if (!src || !dest) throw new Error('zstd: out of memory');
    // HEAPU8 is read after the allocations: growing the module's memory replaces it.
    m.HEAPU8.set(frame, src);
    const n = m._decompress(dest, size, src, frame.length);
    if (n < 0 || n > size) throw new Error('zstd: the frame does not decompress');
    out.set(m.HEAPU8.subarray(dest, dest + n), 0);
    return n;
  } finally {
    if (src) m._free(src);
    if (dest) m._free(dest);
  }
}
