/**
 * Spooled segments decompressed into reused buffers (src/trino/zstd.ts, buffer-pool.ts): the pool hands a buffer to one reader at
 * a time and takes back only its own, once; decompressing into a reused buffer gives exactly the frame's bytes,
 * whatever was in it before; a segment's pooled buffers come back once its rows are read, or its reader stops.
 */
import { compress, isLoaded } from '@foxglove/wasm-zstd';
import { beforeAll, describe, expect, it } from 'vitest';
import { decodeSegment } from '../../src/trino/segment-decoder.js';
import { BufferPool, segmentBuffers } from '../../src/trino/buffer-pool.js';
import { zstdDecompressInto, zstdReady } from '../../src/trino/zstd.js';

beforeAll(async () => {
  await Promise.all([isLoaded, zstdReady]);
});

describe('BufferPool', () => {
  it('reuses a buffer given back, the smallest that fits, as a view of the size asked', () => {
    const pool = new BufferPool(4, 60_000);
    const a = pool.take(3 << 20);
    const b = pool.take(100);
    expect([a.length, b.length]).toEqual([3 << 20, 100]);
    pool.give(a);
    pool.give(b);
    const c = pool.take(50);
    expect(c.buffer).toBe(b.buffer);
    expect(c.length).toBe(50);
    const d = pool.take(2 << 20);
    expect(d.buffer).toBe(a.buffer);
    expect(pool.size).toBe(0);
  });

  it('hands out no buffer more than twice the size a new one would be', () => {
    const pool = new BufferPool(4, 60_000);
    const large = pool.take(4 << 20);
    pool.give(large);
    const small = pool.take(1000); // 64 KiB new: the 4 MiB one stays for a segment
    expect(small.buffer).not.toBe(large.buffer);
    expect(pool.take(3 << 20).buffer).toBe(large.buffer);
  });

  it('ignores buffers it did not hand out, and a buffer given back twice is handed out once', () => {
    const pool = new BufferPool(4, 60_000);
    pool.give(Buffer.alloc(1 << 20));
    pool.give(Buffer.from('small, from the shared slab'));
    expect(pool.size).toBe(0);
    const a = pool.take(1000);
    pool.give(a);
    pool.give(a);
    expect(pool.size).toBe(1);
    const [x, y] = [pool.take(1000), pool.take(1000)];
    expect(x.buffer).not.toBe(y.buffer);
  });

  it('keeps at most `keep` buffers, and none once idle', async () => {
    const pool = new BufferPool(2, 30);
    const bs = [pool.take(10), pool.take(10), pool.take(10)];
    for (const b of bs) pool.give(b);
    expect(pool.size).toBe(2);
    await new Promise((r) => setTimeout(r, 80));
    expect(pool.size).toBe(0);
  });
});

describe('zstd into a reused buffer', () => {
  it('gives exactly the frame’s bytes, over a buffer that held a longer segment before', () => {
    const long = Buffer.from('x'.repeat(200_000));
    const short = Buffer.from(JSON.stringify([[1, 'é', null]]));
    const out = Buffer.alloc(long.length, 0xff);
    expect(zstdDecompressInto(compress(long), long.length, out)).toBe(long.length);
    expect(out.equals(long)).toBe(true);
    const n = zstdDecompressInto(compress(short), short.length, out);
    expect(out.subarray(0, n).equals(short)).toBe(true);
  });

  it('refuses a frame that does not decompress, and an output buffer too small', () => {
    expect(() => zstdDecompressInto(Buffer.from('not zstd'), 10, Buffer.alloc(10))).toThrow();
    const frame = compress(Buffer.from('0123456789'));
    expect(() => zstdDecompressInto(frame, 10, Buffer.alloc(5))).toThrow(RangeError);
  });
});

describe('a segment’s pooled buffers', () => {
  const rows = Array.from({ length: 5000 }, (_, i) => [i, `row ${i}`]);
  const plain = Buffer.from(JSON.stringify(rows));

  it('come back once its rows are read, and the next segment reads its own rows from them', () => {
    const frame = compress(plain);
    const before = segmentBuffers.size;
    const first = [...decodeSegment('json+zstd', frame, meta(frame, plain), false, 1024)].flat();
    expect(first).toEqual(rows);
    expect(segmentBuffers.size).toBe(before + 1);
    const other = Array.from({ length: 10 }, (_, i) => [100_000 + i, 'other']);
    const otherPlain = Buffer.from(JSON.stringify(other));
    const otherFrame = compress(otherPlain);
    expect([...decodeSegment('json+zstd', otherFrame, meta(otherFrame, otherPlain), false, 1024)].flat()).toEqual(
      other,
    );
  });

  it('come back when the reader stops early', () => {
    const frame = compress(plain);
    const taken = segmentBuffers.take(plain.length);
    segmentBuffers.give(taken);
    const before = segmentBuffers.size;
    const it = decodeSegment('json+zstd', frame, meta(frame, plain), false, 1024);
    expect(it.next().value).toEqual(rows.slice(0, 1024));
    expect(segmentBuffers.size).toBe(before - 1);
    it.return(undefined);
    expect(segmentBuffers.size).toBe(before);
  });
});

function meta(frame: Uint8Array, plain: Buffer) {
  return { segmentSize: frame.length, uncompressedSize: plain.length };
}
