/**
 * The compressing stream of a read (http/wire-body.ts, chunk-compressor.ts), for each content coding: every chunk
 * is flushed as it comes (the bytes out so far decode to every chunk in so far), no chunk is pulled ahead of the
 * consumer, a complete stream is a complete one for strict decoders, a failure after the first byte leaves a stream
 * that no strict decoder takes for complete (after the in-body cut mark, which still decodes), and a consumer that
 * stops early closes the source and the compressor.
 */
import { createRequire } from 'node:module';
import zlib from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { CONTENT_CODINGS, DEFAULT_LEVELS, LEVEL_RANGES, type ContentCoding } from '../../src/core/content-codings.js';
import { chunkCompressor } from '../../src/http/chunk-compressor.js';
import { compressChunks } from '../../src/http/wire-body.js';

const zstd = createRequire(import.meta.url)('@foxglove/wasm-zstd') as {
  isLoaded: Promise<boolean>;
  decompress(b: Uint8Array, size: number): Buffer;
};
beforeAll(() => zstd.isLoaded);

/** Strict decoders: a stream that is not complete throws. */
const strict: Record<ContentCoding, (b: Buffer, size: number) => Buffer> = {
  gzip: (b) => zlib.gunzipSync(b),
  br: (b) => zlib.brotliDecompressSync(b),
  zstd: (b, size) => zstd.decompress(b, size),
};

/** Decoders of what has arrived so far (a stream not yet finished): the bytes decoded up to here. */
const prefix: Record<ContentCoding, (b: Buffer, size: number) => Buffer> = {
  gzip: (b) => zlib.gunzipSync(b, { finishFlush: zlib.constants.Z_SYNC_FLUSH }),
  br: (b) => zlib.brotliDecompressSync(b, { finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH }),
  // Whole frames: each flushed chunk is one.
  zstd: (b, size) => zstd.decompress(b, size),
};

/** Rows of text like the encoders write, different enough per chunk that nothing compresses to nothing. */
const chunkText = (i: number) =>
  Array.from(
    { length: 200 },
    (_, r) => `{"key":"k-${i}-${r}","value":{"n":${i * 1000 + r},"page":"/p/${r % 7}"}}\n`,
  ).join('');

/** A source that records how many chunks were pulled, and whether it was closed early. */
function source(chunks: (string | Uint8Array)[], failAfter?: number) {
  const state = { pulled: 0, closed: false };
  async function* gen() {
    try {
      for (const [i, c] of chunks.entries()) {
        if (i === failAfter) throw new Error('the query failed');
        state.pulled++;
        yield c;
      }
    } finally {
      state.closed = true;
    }
  }
  return { state, chunks: gen() };
}

describe.each(CONTENT_CODINGS)('%s', (coding) => {
  const level = DEFAULT_LEVELS[coding];

  it('flushes every chunk: what is out after each one decodes to every chunk in so far, and no chunk is pulled ahead', async () => {
    const input = [chunkText(0), Buffer.from(chunkText(1)), chunkText(2), chunkText(3)];
    const src = source(input);
    let firstBytes = 0;
    const out = compressChunks(src.chunks, chunkCompressor(coding, level), () => firstBytes++);
    const sent: Buffer[] = [];
    for (let i = 0; i < input.length; i++) {
      const step = await out.next();
      expect(step.done).toBe(false);
      sent.push(Buffer.from(step.value as Uint8Array));
      expect(src.state.pulled).toBe(i + 1);
      const soFar = Buffer.from(input.slice(0, i + 1).join(''));
      expect(prefix[coding](Buffer.concat(sent), soFar.length).equals(soFar)).toBe(true);
    }
    expect(firstBytes).toBe(1);
    for await (const tail of out) sent.push(Buffer.from(tail));
    const all = Buffer.from(input.join(''));
    expect(strict[coding](Buffer.concat(sent), all.length).equals(all)).toBe(true);
    expect(Buffer.concat(sent).length).toBeLessThan(all.length / 3);
    expect(src.state.closed).toBe(true);
  });

  it('an empty source is a complete stream of nothing', async () => {
    let firstBytes = 0;
    const sent: Buffer[] = [];
    for await (const b of compressChunks(source([]).chunks, chunkCompressor(coding, level), () => firstBytes++))
      sent.push(Buffer.from(b));
    expect(firstBytes).toBe(1);
    expect(strict[coding](Buffer.concat(sent), 0)).toHaveLength(0);
  });

  it('a failure after the first byte: the cut mark decodes, the stream never completes, the error comes through', async () => {
    const input = [chunkText(0), chunkText(1), '{"error":{"code":"TG_TRINO_FAILED"}}\n', chunkText(3)];
    const src = source(input, 3);
    const sent: Buffer[] = [];
    const out = compressChunks(src.chunks, chunkCompressor(coding, level), () => {});
    await expect(
      (async () => {
        for await (const b of out) sent.push(Buffer.from(b));
      })(),
    ).rejects.toThrow('the query failed');
    const arrived = Buffer.concat(sent);
    const expected = Buffer.from(input.slice(0, 3).join(''));
    expect(() => strict[coding](arrived, expected.length)).toThrow();
    const decoded = prefix[coding](coding === 'zstd' ? arrived.subarray(0, -4) : arrived, expected.length);
    expect(decoded.equals(expected)).toBe(true);
    expect(decoded.toString().endsWith('{"error":{"code":"TG_TRINO_FAILED"}}\n')).toBe(true);
  });

  it('a failure before the first byte: nothing is sent, Content-Encoding is never named, the error comes through', async () => {
    let firstBytes = 0;
    const out = compressChunks(source([chunkText(0)], 0).chunks, chunkCompressor(coding, level), () => firstBytes++);
    await expect(out.next()).rejects.toThrow('the query failed');
    expect(firstBytes).toBe(0);
  });

  it('a consumer that stops early (the client went away) closes the source: the query is cancelled', async () => {
    const src = source([chunkText(0), chunkText(1), chunkText(2)]);
    const out = compressChunks(src.chunks, chunkCompressor(coding, level), () => {});
    expect((await out.next()).done).toBe(false);
    expect(src.state.closed).toBe(false);
    await out.return();
    expect(src.state.closed).toBe(true);
    expect(src.state.pulled).toBe(1);
  });
});

describe('levels', () => {
  it.each(CONTENT_CODINGS)(
    '%s: the level reaches the compressor (its lowest and highest give other bytes)',
    async (coding) => {
      const text = Array.from({ length: 20 }, (_, i) => chunkText(i)).join('');
      const size = async (level: number) => {
        const c = chunkCompressor(coding, level);
        const n = (await c.write(text)).length + (await c.end()).length;
        c.close();
        return n;
      };
      // Not always smaller at the highest: zstd 19 wrote these synthetic rows larger than zstd 1.
      expect(await size(LEVEL_RANGES[coding].max)).not.toBe(await size(LEVEL_RANGES[coding].min));
    },
  );
});
