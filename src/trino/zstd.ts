/**
 * zstd frames decompressed into reused buffers. A spooled segment decompresses to some megabytes that live while
 * its rows are read, long enough to outlive V8's young generation: decompressed into a new Buffer each time, the
 * dead ones piled up outside the heap until a full collection (V8 starts one only some 64 MB of external memory
 * later), which made a gateway's peak memory grow with the read. Here the frame is decompressed by zstd's own
 * code (the WebAssembly build of @foxglove/wasm-zstd, loaded as a module instance of our own so its output can be
 * copied into a buffer of our choosing) into a buffer from a small pool (buffer-pool.ts), and given back once its
 * rows are read; the segment's body as fetched comes from the same pool (http-transport.ts `pool`).
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
