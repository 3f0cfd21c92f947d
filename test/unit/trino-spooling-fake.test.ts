/**
 * The spooling protocol in the Trino port (src/trino/result-reader.ts, segment-fetch.ts, segment-decoder.ts)
 * against a fake Trino over HTTP: the encoding header, inline and spooled segments in every encoding, order under
 * concurrent fetches, the fetch window (backpressure), acknowledgements, retries, release on cancel, redirects,
 * and direct pages read by the same path.
 */
import { compress as zstdCompress, isLoaded as zstdLoaded } from '@foxglove/wasm-zstd';
import { compressSync as lz4Compress } from 'lz4-napi';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { HttpTrino } from '../../src/trino/http-trino.js';
import { BATCH_ROWS } from '../../src/trino/result-reader.js';
import { TrinoUnavailableError } from '../../src/trino/trino-errors.js';
import { FakeTrinoHttp, QID, rejection, type Reply } from '../fakes/fake-trino-http.js';
import { batchLength, rowValues } from '../../src/core/text-rows.js';

const COLUMNS = [
  { name: 'n', type: 'bigint' },
  { name: 's', type: 'varchar' },
];
const ENCODINGS = ['json+zstd', 'json+lz4', 'json'];

let fake: FakeTrinoHttp;
beforeAll(() => zstdLoaded);
beforeEach(async () => {
  fake = new FakeTrinoHttp();
  await fake.start();
});
afterEach(() => fake.stop());

const client = (segmentFetch = 4, encodings = ENCODINGS) =>
  new HttpTrino({ server: fake.base, user: 'gw', encodings, segmentFetch, retry: { retries: 3, baseMs: 1, maxMs: 5 } });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Rows n..n+count-1. */
function rows(from: number, count: number): unknown[][] {
  return Array.from({ length: count }, (_, i) => [from + i, `row ${from + i}`]);
}
/** Trino's JSON of the rows; a string of 16+ digits is written as the JSON number Trino sends for a BIGINT. */
const json = (r: unknown[][]) => Buffer.from(JSON.stringify(r).replace(/"(\d{16,})"/g, '$1'));

type Codec = 'zstd' | 'lz4' | 'plain';
function encode(r: unknown[][], codec: Codec): { bytes: Buffer; metadata: Record<string, number> } {
  const plain = json(r);
  const base = { rowOffset: 0, rowsCount: r.length };
  if (codec === 'plain') return { bytes: plain, metadata: { ...base, segmentSize: plain.length } };
  // lz4-napi writes the decompressed size first (four bytes); Trino sends the bare block.
  const bytes = codec === 'zstd' ? zstdCompress(plain) : lz4Compress(plain).subarray(4);
  return { bytes, metadata: { ...base, segmentSize: bytes.length, uncompressedSize: plain.length } };
}

/** Spooled segments served at /v1/spooled/download/<name>, acknowledged at /v1/spooled/ack/<name>. */
class Segments {
  readonly bodies = new Map<string, Buffer>();
  /** Answers a segment GET: the body unless a test says otherwise. */
  answer: (name: string, attempt: number) => Reply | undefined = () => undefined;

  constructor() {
    fake.onOther = (method, path) => {
      const [, , , kind, name] = path.split('/');
      if (method === 'DELETE') return { status: 204 };
      if (kind === 'ack') return { status: 200 };
      if (kind !== 'download' || !name) return { status: 404 };
      const attempt = fake.requests('GET').filter((r) => r === `GET ${path}`).length - 1;
      return this.answer(name, attempt) ?? { body: this.bodies.get(name) ?? Buffer.alloc(0) };
    };
  }

  spooled(name: string, r: unknown[][], codec: Codec = 'zstd'): object {
    const { bytes, metadata } = encode(r, codec);
    this.bodies.set(name, bytes);
    return {
      type: 'spooled',
      uri: `${fake.base}/v1/spooled/download/${name}`,
      ackUri: `${fake.base}/v1/spooled/ack/${name}`,
      headers: { 'X-Trino-Spool-Key': [`key-${name}`] },
      metadata,
    };
  }

  static inline(r: unknown[][], codec: Codec = 'plain'): object {
    const { bytes, metadata } = encode(r, codec);
    return { type: 'inline', data: bytes.toString('base64'), metadata };
  }

  gets(): string[] {
    return fake.requests('GET').filter((r) => r.includes('/v1/spooled/download/'));
  }
  acks(): string[] {
    return fake.requests('GET').filter((r) => r.includes('/v1/spooled/ack/'));
  }
}

/** A spooled result: the POST answers with columns; page n (1-based) carries pages[n-1]'s segments. */
function serve(encoding: string, pages: object[][]): void {
  fake.onPost = () => ({ body: fake.page(1, { columns: COLUMNS }) });
  fake.onGet = (n) => ({
    body: fake.page(n < pages.length ? n + 1 : null, { data: { encoding, segments: pages[n - 1] } }),
  });
}

describe('the spooling protocol', () => {
  it('asks for the encodings in order; without encodings, asks for none', async () => {
    fake.onPost = () => ({ body: { id: QID, columns: COLUMNS, data: [[1, 'a']], stats: { state: 'FINISHED' } } });
    await client().all('SELECT 1');
    await client(4, []).all('SELECT 1');
    const posts = fake.log.filter((l) => l.method === 'POST');
    expect(posts.map((p) => p.headers['x-trino-query-data-encoding'])).toEqual(['json+zstd,json+lz4,json', undefined]);
  });

  it('inline and spooled segments (zstd, lz4, uncompressed) over two pages: every row in order, BIGINT exact', async () => {
    const s = new Segments();
    const big = [['9007199254740993', 'beyond 2^53']];
    serve('json+zstd', [
      [Segments.inline(rows(0, 3)), s.spooled('a', rows(3, 500)), s.spooled('b', rows(503, 10), 'plain')],
      [Segments.inline(rows(513, 2), 'zstd'), s.spooled('c', [...rows(515, 5), ...big])],
    ]);
    const r = await client().all('SELECT n, s FROM t');
    expect(r.rows).toEqual([...rows(0, 520), ...big]);
    expect(s.gets().sort()).toEqual(['a', 'b', 'c'].map((n) => `GET /v1/spooled/download/${n}`));
    await fake.until(() => s.acks().length === 3); // sent once each segment has been read, not awaited
    expect(s.acks().sort()).toEqual(['a', 'b', 'c'].map((n) => `GET /v1/spooled/ack/${n}`));
    const segmentGets = fake.log.filter((l) => l.path.startsWith('/v1/spooled/'));
    expect(segmentGets.every((l) => l.headers['x-trino-spool-key'] === `key-${l.path.split('/').pop()}`)).toBe(true);
    expect(segmentGets.every((l) => l.headers.authorization === undefined)).toBe(true);
    expect(fake.requests('DELETE')).toEqual([]);
  });

  it('json+lz4 answers decode too', async () => {
    const s = new Segments();
    serve('json+lz4', [[s.spooled('a', rows(0, 300), 'lz4'), Segments.inline(rows(300, 4), 'lz4')]]);
    expect((await client().all('SELECT 1')).rows).toEqual(rows(0, 304));
  });

  it('segments fetched at once, the first one slowest: the rows still come in order', async () => {
    const s = new Segments();
    const names = ['a', 'b', 'c', 'd'];
    serve('json+zstd', [names.map((n, i) => s.spooled(n, rows(i * 100, 100)))]);
    s.answer = (name) => ({ body: s.bodies.get(name), delayMs: (4 - names.indexOf(name)) * 150 });
    expect((await client(4).all('SELECT 1')).rows).toEqual(rows(0, 400));
    // All four were asked for before the first (slowest) one had answered.
    const asked = (n: string) => fake.log.find((l) => l.path === `/v1/spooled/download/${n}`)!.at;
    const answered = fake.answered.find((a) => a.request === 'GET /v1/spooled/download/a')!.at;
    expect(names.filter((n) => asked(n) > answered)).toEqual([]);
  });

  it('never fetches more than the window ahead of the consumer; acknowledges a segment once it is read', async () => {
    const s = new Segments();
    serve('json+zstd', [['a', 'b', 'c', 'd', 'e', 'f'].map((n, i) => s.spooled(n, rows(i * 10, 10)))]);
    const r = await client(2).query('SELECT 1');
    const it = r.batches[Symbol.asyncIterator]();
    expect((await it.next()).value).toEqual(rows(0, 10));
    await fake.until(() => s.gets().length >= 2);
    await sleep(100); // the consumer holds the first batch: nothing more is fetched
    expect(s.gets()).toEqual(['GET /v1/spooled/download/a', 'GET /v1/spooled/download/b']);
    expect(s.acks()).toEqual([]);
    expect((await it.next()).value).toEqual(rows(10, 10));
    await fake.until(() => s.gets().length >= 3 && s.acks().length >= 1);
    await sleep(50);
    expect(s.gets()).toHaveLength(3);
    expect(s.acks()).toEqual(['GET /v1/spooled/ack/a']);
    await it.return?.();
  });

  it('a segment GET failing (503, a reset, a cut body) is retried; the rows arrive once each', async () => {
    const s = new Segments();
    serve('json+zstd', [[s.spooled('a', rows(0, 50)), s.spooled('b', rows(50, 50))]]);
    const cut = Buffer.from('short');
    s.answer = (name, attempt) =>
      name !== 'b' ? undefined : [{ status: 503 }, 'reset' as const, { body: cut }][attempt];
    expect((await client().all('SELECT 1')).rows).toEqual(rows(0, 100));
    expect(s.gets().filter((g) => g.endsWith('/b'))).toHaveLength(4);
  });

  it('a segment that keeps failing: TrinoUnavailableError; the query is cancelled, every segment released', async () => {
    const s = new Segments();
    serve('json+zstd', [[s.spooled('a', rows(0, 5)), s.spooled('b', rows(5, 5)), s.spooled('c', rows(10, 5))]]);
    s.answer = (name) => (name === 'b' ? { status: 500 } : undefined);
    const r = await client().query('SELECT 1');
    const seen: unknown[][] = [];
    const err = await rejection(
      (async () => {
        for await (const b of r.batches) seen.push(...(b as unknown[][]));
      })(),
    );
    expect(err).toBeInstanceOf(TrinoUnavailableError);
    expect(seen).toEqual(rows(0, 5));
    await fake.until(() => s.acks().length === 3);
    expect(s.gets().filter((g) => g.endsWith('/b'))).toHaveLength(1); // a 500 is not retried
  });

  it('stopping early cancels the query and releases every segment not yet acknowledged, fetched or not', async () => {
    const s = new Segments();
    serve('json+zstd', [
      ['a', 'b', 'c', 'd', 'e'].map((n, i) => s.spooled(n, rows(i * 10, 10))),
      [s.spooled('f', rows(50, 10))],
    ]);
    const r = await client(2).query('SELECT 1');
    for await (const _ of r.batches) break;
    await fake.until(() => s.acks().length === 5 && fake.requests('DELETE').length === 1);
    expect(s.acks().sort()).toEqual(['a', 'b', 'c', 'd', 'e'].map((n) => `GET /v1/spooled/ack/${n}`));
    expect(s.gets()).toEqual(['GET /v1/spooled/download/a', 'GET /v1/spooled/download/b']);
  });

  it('a redirect (to a worker, or to storage) is followed with the segment headers', async () => {
    const s = new Segments();
    serve('json+zstd', [[s.spooled('a', rows(0, 20))]]);
    s.answer = (name) =>
      name === 'a' ? { status: 307, headers: { location: '/v1/spooled/download/moved' } } : undefined;
    s.bodies.set('moved', encode(rows(0, 20), 'zstd').bytes);
    expect((await client().all('SELECT 1')).rows).toEqual(rows(0, 20));
    const moved = fake.log.find((l) => l.path === '/v1/spooled/download/moved');
    expect(moved?.headers['x-trino-spool-key']).toBe('key-a');
  });

  it('an encoding that was not asked for is refused', async () => {
    serve('arrow', [[Segments.inline(rows(0, 1))]]);
    expect(await rejection(client().all('SELECT 1'))).toBeInstanceOf(TrinoUnavailableError);
  });

  it('direct pages are read by the same path when encodings were asked for', async () => {
    fake.onPost = () => ({ body: fake.page(1, { columns: COLUMNS, data: rows(0, 2) }) });
    fake.onGet = (n) => ({ body: fake.page(n < 2 ? n + 1 : null, { data: rows(n * 2, 2) }) });
    expect((await client().all('SELECT 1')).rows).toEqual(rows(0, 6));
  });

  it('a segment of many rows reaches the consumer in batches of at most BATCH_ROWS rows, in order', async () => {
    const s = new Segments();
    serve('json+zstd', [[s.spooled('a', rows(0, 2 * BATCH_ROWS + 100))]]);
    const r = await client().query('SELECT 1');
    const sizes: number[] = [];
    const all: (readonly unknown[])[] = [];
    for await (const b of r.batches) {
      sizes.push(batchLength(b));
      all.push(...rowValues(b));
    }
    expect(sizes).toEqual([BATCH_ROWS, BATCH_ROWS, 100]);
    expect(all).toEqual(rows(0, 2 * BATCH_ROWS + 100));
  });

  it('a direct page of many rows reaches the consumer in batches too, and a page whose rows are not JSON fails', async () => {
    const page = rows(0, BATCH_ROWS + 1);
    fake.onPost = () => ({ body: fake.page(1, { columns: COLUMNS }) });
    fake.onGet = () => ({ body: fake.page(null, { data: page }) });
    const sizes: number[] = [];
    const all: (readonly unknown[])[] = [];
    for await (const b of (await client().query('SELECT 1')).batches) {
      sizes.push(batchLength(b));
      all.push(...rowValues(b));
    }
    expect(sizes).toEqual([BATCH_ROWS, 1]);
    expect(all).toEqual(page);

    fake.onGet = () => ({ body: JSON.stringify(fake.page(null, { data: 'X' })).replace('"X"', '[[1,"a"],[2,x]]') });
    const err = await rejection(client().all('SELECT 1'));
    expect(err).toBeInstanceOf(TrinoUnavailableError);
    expect((err as Error).message).toMatch(/rows are not JSON/);
  });
});
