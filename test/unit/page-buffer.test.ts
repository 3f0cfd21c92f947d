/**
 * Page buffers reused once their pages have left (otherwise dead page buffers pile up outside V8's heap): a taken
 * page is never written into while it may still be on its way out, and a body served over real HTTP, to a fast or
 * a slow client, is byte for byte the body encoded without reuse.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { drainedOutput, encodedReadable } from '../../src/encode/encoder-registry.js';
import { encodeCsv } from '../../src/encode/text/csv-encoder.js';
import { encodeNdjson } from '../../src/encode/text/ndjson-encoder.js';
import { ConstantBytes, PageBuffer } from '../../src/encode/text/page-buffer.js';
import type { Readable } from 'node:stream';
import type { ResultColumn } from '../../src/core/result-stream.js';
import { inMemoryResult } from '../fakes/in-memory-result.js';

const page = (out: PageBuffer, text: string) => {
  out.write(text);
  return out.take();
};

// Buffers of 4 KB and more are never slices of Node's shared pool: each is an ArrayBuffer of its own.
const SIZE = 8192;

describe('PageBuffer', () => {
  it('without `drained`, every page is a buffer of its own', () => {
    const out = new PageBuffer(SIZE);
    const pages = Array.from({ length: 10 }, (_, i) => page(out, `page ${i} `.repeat(3)));
    expect(new Set(pages.map((p) => p.buffer)).size).toBe(10);
    expect(pages.map((p) => p.toString())).toEqual(Array.from({ length: 10 }, (_, i) => `page ${i} `.repeat(3)));
  });

  it('never writes into a taken page while the output has not drained', () => {
    const out = new PageBuffer(SIZE, () => false);
    const pages = Array.from({ length: 20 }, (_, i) => page(out, `p${i}`.padEnd(40, '.')));
    expect(new Set(pages.map((p) => p.buffer)).size).toBe(20);
    expect(pages.map((p) => p.toString())).toEqual(Array.from({ length: 20 }, (_, i) => `p${i}`.padEnd(40, '.')));
  });

  it('writes later pages into the buffers of pages that have left', () => {
    let drained = false;
    const out = new PageBuffer(SIZE, () => drained);
    const first = page(out, 'a'.repeat(100));
    const second = page(out, 'b'.repeat(100));
    expect(second.buffer).not.toBe(first.buffer);
    drained = true; // both have been written out
    const third = page(out, 'c'.repeat(50));
    const fourth = page(out, 'd'.repeat(100));
    const reused = new Set([first.buffer, second.buffer]);
    expect(reused.has(fourth.buffer)).toBe(true);
    expect([third.toString(), fourth.toString()]).toEqual(['c'.repeat(50), 'd'.repeat(100)]);
  });

  it('reuses only a buffer large enough for the page just taken, and never one still lent', () => {
    let drained = false;
    const out = new PageBuffer(SIZE, () => drained);
    const small = page(out, 'x'.repeat(16));
    drained = true;
    const big = page(out, 'y'.repeat(3 * SIZE)); // the next page's buffer must hold as much: the small one will not
    const after = page(out, 'z');
    expect(after.buffer).not.toBe(small.buffer);
    expect(after.buffer).not.toBe(big.buffer); // big was still lent when after's buffer was chosen
    expect(big.toString() === 'y'.repeat(3 * SIZE)).toBe(true);
    const last = page(out, 'w'); // written once the output had drained: into the largest free buffer
    expect(last.buffer).toBe(big.buffer);
    expect([after.toString(), last.toString()]).toEqual(['z', 'w']);
  });
});

const COLUMNS: ResultColumn[] = [
  { name: 'n', type: 'bigint' },
  { name: 'text', type: 'varchar' },
];
const BATCHES = Array.from({ length: 150 }, (_, b) =>
  Array.from({ length: 200 }, (_, r) => [String(b * 200 + r), `row ${b}/${r} ${'é,"'.repeat(r % 7)}`]),
);

/** The body an encoder writes with every page a buffer of its own. */
async function plainBody(encode: typeof encodeNdjson): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of encode(inMemoryResult(COLUMNS, BATCHES), { next: null }))
    chunks.push(Buffer.from(typeof c === 'string' ? Buffer.from(c) : c));
  return Buffer.concat(chunks);
}

/**
 * Serves one body as http/stream-read.ts does (encodedReadable, drainedOutput) and reads it with a client that stops for a
 * while every `pauseEvery` chunks (0: never). Returns the body and how many distinct buffers its pages were in.
 */
async function served(encode: typeof encodeNdjson, pauseEvery: number) {
  const buffers = new Set<ArrayBufferLike>();
  let pages = 0;
  const server = http.createServer((_req, res) => {
    let body: Readable | undefined;
    const encoded = encode(inMemoryResult(COLUMNS, BATCHES), { next: null, drained: drainedOutput(res, () => body) });
    async function* recorded() {
      for await (const c of encoded) {
        if (typeof c !== 'string' && c.length > 1000) {
          pages++;
          buffers.add(c.buffer);
        }
        yield c;
      }
    }
    body = encodedReadable(recorded());
    body.pipe(res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const { port } = server.address() as AddressInfo;
    const received = await new Promise<Buffer>((resolve, reject) => {
      http
        .get(`http://127.0.0.1:${port}/`, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => {
            chunks.push(c);
            if (pauseEvery > 0 && chunks.length % pauseEvery === 0) {
              res.pause();
              setTimeout(() => res.resume(), 5);
            }
          });
          res.on('end', () => resolve(Buffer.concat(chunks)));
          res.on('error', reject);
        })
        .on('error', reject);
    });
    return { received, pages, distinct: buffers.size };
  } finally {
    await new Promise((r) => server.close(r));
  }
}

describe('page buffers reused over real HTTP', () => {
  for (const [name, encode] of [
    ['NDJSON', encodeNdjson],
    ['CSV', encodeCsv],
  ] as const) {
    it(`${name}: a fast client gets the exact body, its pages written into a few reused buffers`, async () => {
      const expected = await plainBody(encode);
      const { received, pages, distinct } = await served(encode, 0);
      expect(received.equals(expected)).toBe(true);
      expect(pages).toBe(BATCHES.length);
      expect(distinct).toBeLessThan(pages / 2);
    });

    it(`${name}: a client that keeps stopping gets the exact body`, async () => {
      const expected = await plainBody(encode);
      const { received } = await served(encode, 3);
      expect(received.equals(expected)).toBe(true);
    });
  }
});

describe('constants written four bytes at a time', () => {
  it('are their bytes, at any offset, across a buffer grown or reused', () => {
    const constants = Array.from({ length: 11 }, (_, n) => Buffer.from('{"abcdefghij'.slice(0, n)));
    let drained = false;
    // A 5-byte first buffer: every offset mod 4 is seen, and most writes grow the buffer (a new view).
    const out = new PageBuffer(5, () => drained);
    for (let round = 0; round < 3; round++) {
      const expected: Buffer[] = [];
      for (let k = 0; k < 40; k++) {
        const c = constants[(k * 7) % constants.length]!;
        out.writeConstant(new ConstantBytes(c));
        out.writeByte(0x7c); // |
        expected.push(c, Buffer.from('|'));
      }
      expect(out.take().equals(Buffer.concat(expected)), `round ${round}`).toBe(true);
      drained = true; // the next rounds write into reused buffers
    }
  });
});
