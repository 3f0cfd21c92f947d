/**
 * One compressor per response for each content coding, fed one encoder chunk (one Trino batch) at a time and
 * flushed after each, so what has been sent always decodes to every row encoded so far (a client sees rows as they
 * come, however slowly they come).
 *
 * gzip and br: Node's zlib, a stream per response (the dictionary carries over from batch to batch), flushed with
 * Z_SYNC_FLUSH / BROTLI_OPERATION_FLUSH; zlib compresses on libuv's thread pool, off the event loop. zstd: Node 20's
 * zlib has none, so each batch becomes a zstd frame of its own, compressed by zstd's C code in WebAssembly
 * (@foxglove/wasm-zstd, which already decodes Trino's spooled segments); a zstd stream is one or more frames
 * (RFC 8878 3.1), which curl, browsers, Python's zstandard and the zstd CLI read through.
 *
 * A cut: a gzip or br stream is simply never finished (no trailer, no last meta-block), so a decoder reports it
 * truncated. Frames are complete one by one, so a cut zstd stream gets the start of one more frame that never
 * comes: no decoder takes what arrived for a whole stream either.
 */
import { createRequire } from 'node:module';
import zlib from 'node:zlib';
import type { ContentCoding } from '../core/content-codings.js';
import { assertNever } from '../core/errors.js';

export interface ChunkCompressor {
  /** Compresses `chunk` and flushes: these bytes, after those returned before, decode to every chunk so far. */
  write(chunk: string | Uint8Array): Promise<Uint8Array>;
  /** What ends a complete stream (gzip's trailer, brotli's last meta-block). */
  end(): Promise<Uint8Array>;
  /** What leaves the stream unfinished after a failure, so that no decoder reads it as complete. */
  cut(): Uint8Array;
  /** Frees the compressor; called once, whatever happened. */
  close(): void;
}

/** A compressor of `coding` at `level` (a level the coding takes: LEVEL_RANGES). */
export function chunkCompressor(coding: ContentCoding, level: number): ChunkCompressor {
  switch (coding) {
    case 'gzip':
      return zlibCompressor(zlib.createGzip({ level, chunkSize: 64 * 1024 }), zlib.constants.Z_SYNC_FLUSH);
    case 'br':
      return zlibCompressor(
        zlib.createBrotliCompress({
          chunkSize: 64 * 1024,
          params: { [zlib.constants.BROTLI_PARAM_QUALITY]: level },
        }),
        zlib.constants.BROTLI_OPERATION_FLUSH,
      );
    case 'zstd':
      return zstdCompressor(level);
    default:
      return assertNever(coding, 'content coding');
  }
}

const NOTHING = new Uint8Array(0);

/**
 * A zlib stream, its output collected as it is pushed: flush() calls back once the chunk and the flush are
 * processed, after their output has been pushed (read at once: the 'data' listener keeps the stream flowing).
 */
function zlibCompressor(z: zlib.Gzip | zlib.BrotliCompress, flushKind: number): ChunkCompressor {
  const out: Buffer[] = [];
  z.on('data', (b: Buffer) => out.push(b));
  // Errors reach the pending write's callback, or 'end' never comes: either way the caller sees them.
  let failure: Error | undefined;
  z.on('error', (err) => {
    failure ??= err;
  });
  const take = () => {
    const bytes = out.length === 1 ? out[0]! : Buffer.concat(out);
    out.length = 0;
    return bytes;
  };
  return {
    write: (chunk) =>
      new Promise((resolve, reject) => {
        if (failure) return reject(failure);
        z.write(chunk);
        z.flush(flushKind, (err?: Error | null) => {
          const e = err ?? failure;
          if (e) reject(e);
          else resolve(take());
        });
      }),
    end: () =>
      new Promise((resolve, reject) => {
        if (failure) return reject(failure);
        z.once('error', reject);
        z.once('end', () => resolve(take()));
        z.end();
      }),
    cut: () => NOTHING,
    close: () => z.destroy(),
  };
}

interface WasmZstd {
  isLoaded: Promise<boolean>;
  compress(buffer: Uint8Array, level?: number): Buffer;
}

/** zstd's WebAssembly module, loaded on the first zstd response (a gateway that never sends one never loads it). */
let wasmZstd: Promise<WasmZstd> | undefined;

function loadZstd(): Promise<WasmZstd> {
  wasmZstd ??= (async () => {
    const m = createRequire(import.meta.url)('@foxglove/wasm-zstd') as WasmZstd;
    await m.isLoaded;
    return m;
  })();
  return wasmZstd;
}

/** RFC 8878 3.1.1: every zstd frame starts with this magic number; alone it is a frame that never ends. */
const ZSTD_MAGIC = Uint8Array.of(0x28, 0xb5, 0x2f, 0xfd);

function zstdCompressor(level: number): ChunkCompressor {
  let frames = 0;
  const frame = async (bytes: Uint8Array) => {
    frames++;
    return (await loadZstd()).compress(bytes, level);
  };
  return {
    write: (chunk) => frame(typeof chunk === 'string' ? Buffer.from(chunk) : chunk),
    // A body is at least one frame: an empty one if no chunk came.
    end: async () => (frames === 0 ? frame(NOTHING) : NOTHING),
    cut: () => ZSTD_MAGIC,
    close: () => {},
  };
}
