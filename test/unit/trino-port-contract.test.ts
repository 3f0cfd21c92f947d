/**
 * The TrinoPort contract, run on the real port (HttpTrino over a fake Trino speaking the protocol) and on the
 * in-memory fake that route and planner tests use, so the fake cannot drift from what callers of the port see:
 * rows in order, one page per pull (at most one ahead), in-band errors, cancellation on stopping early and on abort.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ResultColumn } from '../../src/core/result-stream.js';
import { HttpTrino } from '../../src/trino/http-trino.js';
import { QueryCancelledError, TrinoQueryError, type TrinoErrorInfo } from '../../src/trino/trino-errors.js';
import type { TrinoPort } from '../../src/trino/trino-port.js';
import { FakeTrinoHttp, QID, rejection } from '../fakes/fake-trino-http.js';
import { FakeTrinoPort } from '../fakes/fake-trino-port.js';
import { rowValues } from '../../src/core/text-rows.js';

interface Harness {
  port: TrinoPort;
  /** Scripts the next query: its columns, its pages, then (optionally) Trino's in-band error. */
  script(columns: ResultColumn[], pages: unknown[][][], error?: TrinoErrorInfo): void;
  /** Pages the port has taken from Trino so far. */
  pagesRead(): number;
  /** Whether anything was sent or recorded at all. */
  touched(): boolean;
  cancelled(): boolean;
  close(): Promise<void>;
}

async function httpHarness(): Promise<Harness> {
  const fake = new FakeTrinoHttp();
  await fake.start();
  return {
    port: new HttpTrino({ server: fake.base, user: 'gw' }),
    script(columns, pages, error) {
      const last = pages.length - 1;
      // The POST answers with the first page; GET n with page n; after the last page, the error if any.
      const page = (n: number) =>
        n > last
          ? { id: QID, stats: { state: 'FAILED' }, error }
          : fake.page(n < last || error ? n + 1 : null, { data: pages[n], ...(n === 0 ? { columns } : {}) });
      fake.onPost = () => ({ body: pages.length === 0 ? { ...fake.page(null), columns, error } : page(0) });
      fake.onGet = (n) => ({ body: page(n) });
    },
    pagesRead: () => (fake.requests('POST').length > 0 ? 1 : 0) + fake.requests('GET').length,
    touched: () => fake.log.length > 0,
    cancelled: () => fake.requests('DELETE').length > 0,
    close: () => fake.stop(),
  };
}

async function fakeHarness(): Promise<Harness> {
  const port = new FakeTrinoPort();
  const q = () => port.queries.at(-1);
  return {
    port,
    script: (columns, pages, error) => port.answer(() => true, { columns, batches: pages, error }),
    pagesRead: () => q()?.pulled ?? 0,
    touched: () => port.queries.length > 0,
    cancelled: () => q()?.cancelled ?? false,
    close: async () => {},
  };
}

const COLUMNS = [{ name: 'n', type: 'integer' }];
const PAGES = [[[1], [2]], [[3]], [[4], [5]]];
const ERROR = { message: 'boom', errorCode: 65536, errorName: 'GENERIC_INTERNAL_ERROR', errorType: 'INTERNAL_ERROR' };

describe.each([
  ['HttpTrino over the protocol', httpHarness],
  ['FakeTrinoPort', fakeHarness],
])('TrinoPort contract: %s', (_name, make) => {
  let h: Harness;
  afterEach(() => h.close());

  it('all(): the columns and every row in order; nothing cancelled', async () => {
    h = await make();
    h.script(COLUMNS, PAGES);
    expect(await h.port.all('SELECT n')).toEqual({ columns: COLUMNS, rows: [[1], [2], [3], [4], [5]] });
    expect(h.cancelled()).toBe(false);
  });

  it('one page per pull, at most one page ahead of the pulls', async () => {
    h = await make();
    h.script(COLUMNS, PAGES);
    const it = (await h.port.query('SELECT n')).batches[Symbol.asyncIterator]();
    const seen: unknown[] = [];
    for (let i = 0; i < 3; i++) {
      const step = await it.next();
      await new Promise((r) => setTimeout(r, 20)); // time for any eager fetch to show up
      seen.push(step.value);
      expect(h.pagesRead()).toBeGreaterThanOrEqual(i + 1);
      expect(h.pagesRead()).toBeLessThanOrEqual(i + 2);
    }
    expect(seen).toEqual([[[1], [2]], [[3]], [[4], [5]]]);
  });

  it('an in-band error before any row: query() rejects with TrinoQueryError', async () => {
    h = await make();
    h.script(COLUMNS, [], ERROR);
    const err = await rejection(h.port.query('SELECT n'));
    expect(err).toBeInstanceOf(TrinoQueryError);
    expect((err as TrinoQueryError).info).toEqual(ERROR);
    expect((err as TrinoQueryError).queryId).toEqual(expect.any(String));
  });

  it('an in-band error after rows: the rows, then TrinoQueryError; nothing cancelled', async () => {
    h = await make();
    h.script(COLUMNS, PAGES, ERROR);
    const r = await h.port.query('SELECT n');
    const rows: unknown[] = [];
    const err = await rejection(
      (async () => {
        for await (const b of r.batches) rows.push(...rowValues(b));
      })(),
    );
    expect(rows).toEqual([[1], [2], [3], [4], [5]]);
    expect([err instanceof TrinoQueryError, (err as TrinoQueryError).queryId]).toEqual([true, r.queryId]);
    expect(h.cancelled()).toBe(false);
  });

  it('close() cancels a result still streaming; a finished one is left alone', async () => {
    h = await make();
    h.script(COLUMNS, PAGES);
    expect(await h.port.all('SELECT n')).toMatchObject({ rows: [[1], [2], [3], [4], [5]] });
    await h.port.close();
    expect(h.cancelled()).toBe(false);
    const it = (await h.port.query('SELECT n')).batches[Symbol.asyncIterator]();
    await it.next();
    await h.port.close();
    expect(h.cancelled()).toBe(true);
  });

  it('stopping early cancels the query', async () => {
    h = await make();
    h.script(COLUMNS, PAGES);
    const r = await h.port.query('SELECT n');
    for await (const b of r.batches) {
      expect(b).toEqual([[1], [2]]);
      break;
    }
    expect(h.cancelled()).toBe(true);
  });

  it('a signal aborted before the query: QueryCancelledError(aborted), nothing sent', async () => {
    h = await make();
    h.script(COLUMNS, PAGES);
    const err = await rejection(h.port.query('SELECT n', { signal: AbortSignal.abort() }));
    expect([err instanceof QueryCancelledError, (err as QueryCancelledError).reason]).toEqual([true, 'aborted']);
    expect(h.touched()).toBe(false);
  });

  it('an abort between pulls: the next pull throws QueryCancelledError(aborted), the query is cancelled', async () => {
    h = await make();
    h.script(COLUMNS, PAGES);
    const abort = new AbortController();
    const r = await h.port.query('SELECT n', { signal: abort.signal });
    const it = r.batches[Symbol.asyncIterator]();
    await it.next();
    abort.abort();
    const err = await rejection(it.next());
    expect([err instanceof QueryCancelledError, (err as QueryCancelledError).queryId]).toEqual([true, r.queryId]);
    await expect.poll(() => h.cancelled()).toBe(true);
  });
});

describe('FakeTrinoPort scripting', () => {
  it('records each query with its options; the latest matching script wins; unscripted SQL is an error', async () => {
    const port = new FakeTrinoPort()
      .answer(/FROM t/, { columns: COLUMNS, batches: [[[1]]] })
      .answer('SELECT n FROM t WHERE n > 1', { columns: COLUMNS, batches: [[[2]]] });
    expect((await port.all('SELECT n FROM t')).rows).toEqual([[1]]);
    expect((await port.all('SELECT n FROM t WHERE n > 1', { user: 'alice', timeoutMs: 5 })).rows).toEqual([[2]]);
    await expect(port.query('SELECT 1')).rejects.toThrow('FakeTrinoPort: no answer scripted for "SELECT 1"');
    expect(port.queries.map((q) => [q.sql, q.opts, q.pulled, q.finished, q.cancelled])).toEqual([
      ['SELECT n FROM t', {}, 1, true, false],
      ['SELECT n FROM t WHERE n > 1', { user: 'alice', timeoutMs: 5 }, 1, true, false],
    ]);
  });

  it('an Error as the answer rejects query(); cancel(id) and info() are scripted too', async () => {
    const port = new FakeTrinoPort().answer(() => true, new Error('Trino is down'));
    await expect(port.query('SELECT 1')).rejects.toThrow('Trino is down');
    await port.cancel('q1');
    expect(port.cancelledIds).toEqual(['q1']);
    expect(await port.info()).toEqual({ starting: false, nodeVersion: { version: '476' } });
    port.infoAnswer = new Error('unreachable');
    await expect(port.info()).rejects.toThrow('unreachable');
  });
});
