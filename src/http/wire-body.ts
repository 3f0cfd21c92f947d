/**
 * Compression on the wire (API.md "Compression on the wire"): a read in a format compressed on the wire (JSON,
 * NDJSON, CSV, Arrow; Parquet compresses its columns itself) is sent with the content coding `Accept-Encoding`
 * asks for (accept-encoding.ts), compressed and flushed chunk by chunk (chunk-compressor.ts), so rows reach the
 * client as they come and backpressure reaches Trino as before: the next chunk is asked of the encoder only once the
 * previous one is compressed and taken.
 *
 * `Content-Encoding` is set with the first compressed byte, not before: a read that fails before its body starts is
 * answered with the usual (uncompressed) error body. After it, a failure leaves the compressed stream unfinished
 * (ChunkCompressor.cut) below the encoder's in-body cut mark, and the transfer is then aborted as an uncompressed
 * one is (flush-then-abort.ts), so a client sees the cut whichever layer it looks at.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config/config.js';
import type { ContentCoding } from '../core/content-codings.js';
import type { EncoderEntry } from '../encode/encoder-registry.js';
import { negotiateContentCoding } from './accept-encoding.js';
import { chunkCompressor, type ChunkCompressor } from './chunk-compressor.js';
import { addVary } from './vary.js';

type Chunks = AsyncIterable<string | Uint8Array>;

/** Whether a read in `entry`'s format may be compressed on the wire (its bytes then vary with Accept-Encoding). */
export function compressesOnWire(config: Pick<Config, 'compression'>, entry: Pick<EncoderEntry, 'compression'>) {
  return config.compression && entry.compression === 'wire';
}

/** The coding a read in `entry`'s format is sent with for `request`, or null: uncompressed. */
export function wireCodingOf(config: Config, entry: EncoderEntry, request: FastifyRequest): ContentCoding | null {
  return compressesOnWire(config, entry) ? negotiateContentCoding(request.headers['accept-encoding']) : null;
}

/**
 * The encoder's chunks as they go on the wire for `request`: compressed when it accepts a coding of ours, with
 * `Vary: Accept-Encoding` on every response whose bytes could have been (so a cache keeps one per coding).
 */
export function wireBody(
  config: Config,
  request: FastifyRequest,
  reply: FastifyReply,
  entry: EncoderEntry,
  chunks: Chunks,
): Chunks {
  if (!compressesOnWire(config, entry)) return chunks;
  addVary(reply, ['Accept-Encoding']);
  const coding = wireCodingOf(config, entry, request);
  if (!coding) return chunks;
  const compressor = chunkCompressor(coding, config.compressionLevels[coding]);
  return compressChunks(chunks, compressor, () => reply.raw.setHeader('Content-Encoding', coding));
}

/**
 * `chunks` compressed, each flushed as it comes (see the file's comment); `onFirstByte` runs once, just before the
 * first compressed byte is handed on. Returning early (the client went away) closes `chunks`, which cancels the
 * query, and frees the compressor.
 */
export async function* compressChunks(
  chunks: Chunks,
  compressor: ChunkCompressor,
  onFirstByte: () => void,
): AsyncGenerator<Uint8Array, void, undefined> {
  let started = false;
  const start = () => {
    if (!started) onFirstByte();
    started = true;
  };
  try {
    for await (const chunk of chunks) {
      const bytes = await compressor.write(chunk);
      start();
      if (bytes.length > 0) yield bytes;
    }
    const tail = await compressor.end();
    start();
    if (tail.length > 0) yield tail;
  } catch (err) {
    // Before the first byte nothing was sent: the error becomes a normal error response.
    const mark = started ? compressor.cut() : undefined;
    if (mark !== undefined && mark.length > 0) yield mark;
    throw err;
  } finally {
    compressor.close();
  }
}
