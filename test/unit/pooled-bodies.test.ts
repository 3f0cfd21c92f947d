/**
 * Result bodies read into reused buffers (src/trino/http-transport.ts `pool`, json-rows.ts `releaseWhenRead`):
 * a body of unknown length (chunked, as Trino sends direct pages) or of announced length lands byte for byte in a
 * pool buffer, grown when it outruns the first one; gzip bodies are not pooled. A direct page's buffer goes back
 * once its rows are read or their reading stops, and pages of concurrent queries read through the same pool keep
 * their own rows.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { HttpTransport } from '../../src/trino/http-transport.js';
import { HttpTrino } from '../../src/trino/http-trino.js';
import { memberRows } from '../../src/trino/json-rows.js';
import { BufferPool, pageBuffers } from '../../src/trino/buffer-pool.js';
import { rowValues, type TextRows, type RowBatch } from '../../src/core/text-rows.js';

let server: http.Server;
let base = '';
/** What the server sends for a path: the body, and how. */
const bodies = new Map<string, { body: Buffer; mode: 'chunked' | 'length' | 'gzip' }>();
/** The answer to POST /v1/statement. */
let post = (): object => ({});

beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.method === 'POST') {
      req.resume();
      return void req.on('end', () => res.writeHead(200).end(JSON.stringify(post())));
    }
    const b = bodies.get(req.url ?? '');
    if (!b) return void res.writeHead(404).end();
    if (b.mode === 'gzip') return void res.writeHead(200, { 'content-encoding': 'gzip' }).end(zlib.gzipSync(b.body));
    if (b.mode === 'length') return void res.writeHead(200, { 'content-length': String(b.body.length) }).end(b.body);
    res.writeHead(200, { 'transfer-encoding': 'chunked' });
    // Pieces of 7 KB, written over several turns, so the client sees many chunks of a body of unknown length.
    let at = 0;
    const next = () => {
      if (at >= b.body.length) return void res.end();
      res.write(b.body.subarray(at, (at += 7000)));
      setImmediate(next);
    };
    next();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((r) => server.close(r)));

const text = (n: number, seed: string) => Buffer.from(Array.from({ length: n }, (_, i) => `${seed}${i},`).join(''));

describe('bodies read into pool buffers', () => {
  const transport = new HttpTransport({ gzip: false });
  const get = (path: string, pool?: BufferPool, via = transport) =>
    via.send({ method: 'GET', url: new URL(path, base), headers: {}, timeoutMs: 10_000, pool });

  it('a chunked body lands whole in a buffer of the pool, grown when a later body is larger', async () => {
    const pool = new BufferPool(16, 60_000);
    bodies.set('/small', { body: text(30_000, 'a'), mode: 'chunked' });
    bodies.set('/large', { body: text(150_000, 'b'), mode: 'chunked' });
    const small = (await get('/small', pool)).body;
    expect(small.equals(bodies.get('/small')!.body)).toBe(true);
    // Outgrown buffers went back as it filled; the body's own is the pool's too (it takes back only its own).
    const grownOut = pool.size;
    pool.give(small);
    expect(pool.size).toBe(grownOut + 1);
    const large = (await get('/large', pool)).body;
    expect(large.length).toBeGreaterThan(4 * small.length);
    expect(large.equals(bodies.get('/large')!.body)).toBe(true);
    const before = pool.size;
    pool.give(large);
    expect(pool.size).toBe(before + 1);
    // The small body again, into a buffer that held the large one: its own bytes only.
    const again = (await get('/small', pool)).body;
    expect(again.equals(bodies.get('/small')!.body)).toBe(true);
  });

  it('a body of announced length too; a gzip body is inflated and not pooled; without a pool nothing is', async () => {
    const pool = new BufferPool(4, 60_000);
    bodies.set('/length', { body: text(20_000, 'c'), mode: 'length' });
    bodies.set('/gzip', { body: text(20_000, 'd'), mode: 'gzip' });
    const known = (await get('/length', pool)).body;
    expect(known.equals(bodies.get('/length')!.body)).toBe(true);
    pool.give(known);
    expect(pool.size).toBe(1);
    const gz = (await get('/gzip', pool, new HttpTransport({ gzip: true }))).body;
    expect(gz.equals(bodies.get('/gzip')!.body)).toBe(true);
    pool.give(gz);
    expect(pool.size).toBe(1);
    const plain = (await get('/small')).body;
    pool.give(plain);
    expect(pool.size).toBe(1);
  });
});

describe("a direct page's rows and its buffer", () => {
  const page = (rows: unknown[][]) => Buffer.from(JSON.stringify({ id: 'q', data: rows, stats: {} }));
  const rows = Array.from({ length: 50 }, (_, i) => [i, `r${i}`]);

  it('are given back once the rows are read, once, and the rows cannot be read again', () => {
    const { rows: r } = memberRows(page(rows), 'data', 8);
    let released = 0;
    r!.releaseWhenRead(() => released++);
    expect([...r!.batches(false, () => new Error('bad'))].flat()).toEqual(rows);
    expect(released).toBe(1);
    expect(() => [...r!.batches(false, () => new Error('bad'))]).toThrow(/read once/);
    expect(released).toBe(1);
  });

  it('are given back when the reading stops early', () => {
    const { rows: r } = memberRows(page(rows), 'data', 8);
    let released = 0;
    r!.releaseWhenRead(() => released++);
    const it = r!.batches(false, () => new Error('bad'));
    expect(it.next().value).toEqual(rows.slice(0, 8));
    expect(released).toBe(0);
    it.return(undefined);
    expect(released).toBe(1);
  });

  /** A fake Trino of two queries, each of 12 chunked pages of different sizes; the pages come one at a time. */
  function twoQueries(tag: string): Map<string, unknown[][]> {
    const queries = [`${tag}a`, `${tag}b`];
    const expected = new Map<string, unknown[][]>();
    for (const q of queries) {
      const all: unknown[][] = [];
      for (let n = 1; n <= 12; n++) {
        const data = Array.from({ length: 500 + ((n * 997) % 4000) }, (_, i) => [`${q}-${n}-${i}`, n * 100_000 + i]);
        all.push(...data);
        const next = n < 12 ? `${base}/v1/statement/executing/${q}/x/${n + 1}` : undefined;
        const columns = [
          { name: 'k', type: 'varchar', typeSignature: { rawType: 'varchar', arguments: [] } },
          { name: 'n', type: 'integer', typeSignature: { rawType: 'integer', arguments: [] } },
        ];
        const body = Buffer.from(JSON.stringify({ id: q, nextUri: next, columns, data, stats: { state: 'RUNNING' } }));
        bodies.set(`/v1/statement/executing/${q}/x/${n}`, { body, mode: 'chunked' });
      }
      expected.set(q, all);
    }
    let posted = 0;
    post = () => {
      const q = queries[posted++]!;
      return { id: q, nextUri: `${base}/v1/statement/executing/${q}/x/1`, stats: {} };
    };
    return expected;
  }

  /** Reads both queries a batch of each in turn, so both queries' pages are alive while buffers come and go. */
  async function interleaved(rowText: boolean, take: (batch: RowBatch, got: (readonly unknown[])[]) => void) {
    const trino = new HttpTrino({ server: base, user: 'gw' });
    const [a, b] = [await trino.query('SELECT 1', { rowText }), await trino.query('SELECT 2', { rowText })];
    const got = new Map<string, (readonly unknown[])[]>([
      [a.queryId, []],
      [b.queryId, []],
    ]);
    const its = [a, b].map((r) => [r.queryId, r.batches[Symbol.asyncIterator]()] as const);
    for (let open = its.length; open > 0;) {
      open = 0;
      for (const [q, it] of its) {
        const r = await it.next();
        if (!r.done) {
          open++;
          take(r.value, got.get(q)!);
        }
      }
    }
    return got;
  }

  it('pages of two queries read at once through the shared pool keep their own rows', async () => {
    const expected = twoQueries('v');
    const got = await interleaved(false, (batch, rows) => rows.push(...rowValues(batch)));
    for (const [q, rows] of expected) expect(got.get(q)).toEqual(rows);
    expect(pageBuffers.size).toBeGreaterThan(0); // the pages' buffers came back for the next ones
  });

  it('rows as text are views of their page: a page is reused only once every batch of it is done', async () => {
    // Held, never done: no page of theirs is reused, whatever the other query reads meanwhile.
    const expected = twoQueries('h');
    const held: TextRows[] = [];
    // When each buffer was given back, and when each batch came: no buffer may go back after a batch of it came.
    const events: { given: ArrayBufferLike; at: number }[] = [];
    const give = vi.spyOn(pageBuffers, 'give').mockImplementation(function (this: BufferPool, view) {
      events.push({ given: view.buffer, at: events.length + held.length });
      return BufferPool.prototype.give.call(this, view);
    });
    const came = new Map<ArrayBufferLike, number>();
    await interleaved(true, (batch) => {
      held.push(batch as TextRows);
      const page = (batch as TextRows).bytes.buffer;
      if (!came.has(page)) came.set(page, events.length + held.length);
    });
    expect(came.size).toBeGreaterThan(4); // more pages than the pool keeps: buffers were reused meanwhile
    for (const { given, at } of events) expect(at < (came.get(given) ?? Infinity)).toBe(true);
    const rows = new Map<string, unknown[][]>([...expected.keys()].map((q) => [q, []]));
    for (const batch of held) {
      const values = batch.values();
      rows.get(String(values[0]![0]).slice(0, 2))!.push(...values);
    }
    for (const [q, all] of expected) expect(rows.get(q)).toEqual(all);
    // Written and done as they come (the encoders do so): the pages come back for the next ones.
    const again = twoQueries('d');
    const pages = new Set<ArrayBufferLike>();
    const got = await interleaved(true, (batch, into) => {
      pages.add((batch as TextRows).bytes.buffer);
      into.push(...rowValues(batch));
      (batch as TextRows).done();
      expect(() => (batch as TextRows).bytes).toThrow(/after it was done/);
    });
    for (const [q, all] of again) expect(got.get(q)).toEqual(all);
    // Each page of both queries came back (a buffer may serve several pages in turn).
    const given = new Set(events.map((e) => e.given));
    for (const page of pages) expect(given.has(page)).toBe(true);
    give.mockRestore();
  });
});
