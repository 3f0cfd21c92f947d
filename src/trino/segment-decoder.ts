/**
 * The bytes of one spooled-protocol segment to rows. Trino's `json` encoding writes a segment as a JSON array of
 * rows (the same value shapes as direct pages); `json+zstd` compresses it as one zstd frame, `json+lz4` as one raw
 * LZ4 block (no frame: the size comes from the segment's metadata). A segment whose `uncompressedSize` is absent
 * was left uncompressed (Trino skips compressing small segments), whatever the encoding says.
 *
 * Decoders: zstd by @foxglove/wasm-zstd (zstd's C code in WebAssembly: no build step, about 4x the speed of the
 * pure-JS fzstd here; decompressed into reused buffers, zstd.ts), LZ4 by lz4-napi (lz4_flex through N-API, shipped
 * prebuilt per platform). Node 20 has no zstd of its own (node:zlib gained it in 22.15).
 */
import { uncompressSync as lz4Uncompress } from 'lz4-napi';
import type { TextRows } from '../core/text-rows.js';
import type { TrinoEncoding } from '../core/trino-encodings.js';
import { arrayBatches } from './json-rows.js';
import { TrinoUnavailableError } from './trino-errors.js';
import { segmentBuffers } from './buffer-pool.js';
import { zstdDecompressInto, zstdReady } from './zstd.js';

export interface SegmentMetadata {
  /** Bytes of the segment as sent (compressed, when compressed). */
  segmentSize: number;
  /** Bytes after decompressing; absent when the segment is not compressed. */
  uncompressedSize?: number;
  rowOffset?: number;
  rowsCount?: number;
}

type Decompress = (bytes: Buffer, size: number) => Buffer;

const DECOMPRESS = {
  'json+zstd': (bytes, size) => {
    const pooled = segmentBuffers.take(size);
    try {
      return pooled.subarray(0, zstdDecompressInto(bytes, size, pooled));
    } catch (err) {
      segmentBuffers.give(pooled);
      throw err;
    } finally {
      // The frame was copied into zstd's memory: its body (pooled when fetched) is free again.
      segmentBuffers.give(bytes);
    }
  },
  // lz4-napi reads lz4_flex's size-prepended block: four little-endian bytes of the decompressed size first.
  'json+lz4': (bytes, size) => {
    const framed = Buffer.allocUnsafe(bytes.length + 4);
    framed.writeUInt32LE(size, 0);
    bytes.copy(framed, 4);
    segmentBuffers.give(bytes);
    return lz4Uncompress(framed);
  },
  json: undefined,
} satisfies Record<TrinoEncoding, Decompress | undefined>;

/** Whether the port can decode segments in this encoding. */
export function decodable(encoding: string): encoding is TrinoEncoding {
  return Object.hasOwn(DECOMPRESS, encoding);
}

/** The WebAssembly zstd decoder loads asynchronously, once; decode() needs it loaded. */
export const decoderReady: Promise<unknown> = zstdReady;

/**
 * A segment's rows, in batches of at most `batchRows` (as text with `text`), each scanned for and parsed when its turn comes (json-rows.ts:
 * parsed whole, a segment's rows outlive V8's young generation; scanned whole, it holds the event loop). A segment
 * that does not decode to a JSON array is a TrinoUnavailableError, thrown by the batch where its text stops being
 * one (after the last batch, for text after the array).
 */
export function* decodeSegment(
  encoding: TrinoEncoding,
  bytes: Buffer,
  meta: SegmentMetadata,
  lossless: boolean,
  batchRows: number,
  text = false,
): Generator<unknown[][] | TextRows> {
  const bad = (why: string) => new TrinoUnavailableError(`Trino sent a spooled segment that ${why}`);
  let plain: Buffer;
  try {
    const decompress: Decompress | undefined = DECOMPRESS[encoding];
    const size = meta.uncompressedSize === undefined ? undefined : Number(meta.uncompressedSize);
    plain = decompress && size !== undefined ? decompress(bytes, size) : bytes;
    if (size !== undefined && plain.length !== size) {
      segmentBuffers.give(plain);
      throw new Error('size');
    }
  } catch {
    throw bad(`does not decompress as ${encoding}`);
  }
  // The bytes read (decompressed, or the body itself) go back to the pool when their rows have been read or the
  // reader stopped (the pool ignores buffers not its own), and, as text, once every batch of them is done.
  const errors = { notArray: () => bad('is not an array of rows'), notJson: () => bad('is not JSON') };
  yield* arrayBatches(plain, batchRows, lossless, errors, text, () => segmentBuffers.give(plain));
}
