/**
 * The Trino port's protocol paths (src/trino/http-trino.ts) against a fake Trino speaking the client protocol over
 * HTTP (test/fakes/fake-trino-http.ts): paging, in-band errors, retries, cancellation, deadlines, timeouts,
 * the lossless parse and per-query headers.
 */
import type http from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HttpTrino } from '../../src/trino/http-trino.js';
import { QueryCancelledError, TrinoQueryError, TrinoUnavailableError } from '../../src/trino/trino-errors.js';
import { FakeTrinoHttp, QID, rejection } from '../fakes/fake-trino-http.js';
import { rowValues } from '../../src/core/text-rows.js';

const COLUMNS = [{ name: 'n', type: 'bigint', typeSignature: { rawType: 'bigint', arguments: [] } }];
const ERROR = {
  message: 'Query exceeded the maximum execution time limit of 1.00s',
  errorCode: 131075,
  errorName: 'EXCEEDED_TIME_LIMIT',
  errorType: 'INSUFFICIENT_RESOURCES',
};

let fake: FakeTrinoHttp;
let client: HttpTrino;
beforeEach(async () => {
  fake = new FakeTrinoHttp();
  await fake.start();
  client = new HttpTrino({ server: fake.base, user: 'gw' });
});
afterEach(() => fake.stop());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const until = (cond: () => boolean, ms?: number) => fake.until(cond, ms);
const path = (n: number) => fake.path(n);

describe('HttpTrino over the protocol', () => {
  it('POST, then GET each nextUri until there is none; rows in order; nothing cancelled', async () => {
    fake.onPost = () => ({ body: fake.page(1, { stats: { state: 'QUEUED' } }) });
    fake.onGet = (n) =>
      n === 1
        ? { body: fake.page(2, { columns: COLUMNS, data: [[1], [2]] }) }
        : n === 2
          ? { body: fake.page(3, { data: [[3]] }) }
          : { body: fake.page(null, { stats: { state: 'FINISHED' } }) };
    const r = await client.all('SELECT n FROM t');
    expect(r).toEqual({ columns: COLUMNS, rows: [[1], [2], [3]] });
    expect(fake.requests()).toEqual(['POST /v1/statement', `GET ${path(1)}`, `GET ${path(2)}`, `GET ${path(3)}`]);
    expect(fake.log[0]!.body).toBe('SELECT n FROM t');
  });

  it('an in-band error on the first page -> TrinoQueryError with the error and the query id', async () => {
    fake.onPost = () => ({ body: { id: QID, stats: { state: 'FAILED' }, error: ERROR } });
    const err = await rejection(client.query('SELECT 1'));
    expect(err).toBeInstanceOf(TrinoQueryError);
    expect([(err as TrinoQueryError).info, (err as TrinoQueryError).queryId]).toEqual([ERROR, QID]);
  });

  it('an in-band error on a later page -> TrinoQueryError after the rows before it', async () => {
    fake.onPost = () => ({ body: fake.page(1, { columns: COLUMNS, data: [[1]] }) });
    fake.onGet = (n) =>
      n === 1
        ? { body: fake.page(2, { data: [[2]] }) }
        : { body: { id: QID, stats: { state: 'FAILED' }, error: ERROR } };
    const r = await client.query('SELECT n FROM t');
    const seen: unknown[] = [];
    const err = await rejection(
      (async () => {
        for await (const b of r.batches) seen.push(...rowValues(b));
      })(),
    );
    expect(seen).toEqual([[1], [2]]);
    expect(err).toBeInstanceOf(TrinoQueryError);
    expect([(err as TrinoQueryError).info, (err as TrinoQueryError).queryId]).toEqual([ERROR, QID]);
    expect(fake.requests('DELETE')).toEqual([]);
  });

  it('HTTP 503, 502 and 429 on a GET are retried; the page then arrives', async () => {
    fake.onPost = () => ({ body: fake.page(1) });
    const statuses = [503, 502, 429];
    fake.onGet = (_n, attempt) =>
      attempt < 3
        ? { status: statuses[attempt], body: 'busy' }
        : { body: fake.page(null, { columns: COLUMNS, data: [[7]] }) };
    expect((await client.all('SELECT 7')).rows).toEqual([[7]]);
    expect(fake.requests('GET')).toEqual([`GET ${path(1)}`, `GET ${path(1)}`, `GET ${path(1)}`, `GET ${path(1)}`]);
  });

  it('a GET answered 404 is not retried -> TrinoUnavailableError(404)', async () => {
    fake.onPost = () => ({ body: fake.page(1) });
    fake.onGet = () => ({ status: 404, body: 'gone' });
    const err = await rejection(client.query('SELECT 1'));
    expect(err).toBeInstanceOf(TrinoUnavailableError);
    expect([(err as TrinoUnavailableError).httpStatus, (err as Error).message]).toEqual([
      404,
      'Trino answered HTTP 404',
    ]);
    expect(fake.requests('GET')).toHaveLength(1);
  });

  it('retries give up after five: six GETs, then TrinoUnavailableError(503)', async () => {
    fake.onPost = () => ({ body: fake.page(1) });
    fake.onGet = () => ({ status: 503 });
    const err = await rejection(client.query('SELECT 1'));
    expect(err).toBeInstanceOf(TrinoUnavailableError);
    expect((err as TrinoUnavailableError).httpStatus).toBe(503);
    expect(fake.requests('GET')).toHaveLength(6);
  });

  it.each([
    ['HTTP 503', { status: 503, body: 'starting' }, 503, 'Trino answered HTTP 503'],
    ['a connection reset', 'reset', undefined, 'Trino is not reachable (ECONNRESET)'],
  ] as const)('POST is never retried (%s): one POST, TrinoUnavailableError', async (_label, reply, status, message) => {
    fake.onPost = () => reply;
    const err = await rejection(client.query('SELECT 1'));
    expect(err).toBeInstanceOf(TrinoUnavailableError);
    expect([(err as TrinoUnavailableError).httpStatus, (err as Error).message]).toEqual([status, message]);
    expect(fake.requests()).toEqual(['POST /v1/statement']);
  });

  it('breaking out of the iteration sends DELETE to the next page URI and fetches nothing more', async () => {
    fake.onPost = () => ({ body: fake.page(1, { columns: COLUMNS, data: [[1]] }) });
    fake.onGet = () => ({ body: fake.page(2, { data: [[2]] }) });
    const r = await client.query('SELECT n FROM t');
    for await (const b of r.batches) {
      expect(b).toEqual([[1]]);
      break;
    }
    // The DELETE is sent as the iteration ends; on a busy machine the fake may not have it yet when the loop exits.
    await until(() => fake.requests('DELETE').length > 0);
    expect(fake.requests()).toEqual(['POST /v1/statement', `DELETE ${path(1)}`]);
  });

  it('cancel() sends one DELETE, however often it is called; cancel(id) deletes the query', async () => {
    fake.onPost = () => ({ body: fake.page(1, { columns: COLUMNS }) });
    const r = await client.query('SELECT n FROM t');
    await r.cancel();
    await r.cancel();
    await client.cancel(QID);
    expect(fake.requests()).toEqual(['POST /v1/statement', `DELETE ${path(1)}`, `DELETE /v1/query/${QID}`]);
  });

  it('abort while a page is being fetched -> DELETE of that page and QueryCancelledError(aborted)', async () => {
    fake.onPost = () => ({ body: fake.page(1, { columns: COLUMNS, data: [[1]] }) });
    fake.onGet = () => 'stall';
    const abort = new AbortController();
    const r = await client.query('SELECT n FROM t', { signal: abort.signal });
    const it = r.batches[Symbol.asyncIterator]();
    expect((await it.next()).value).toEqual([[1]]);
    const pending = it.next();
    await until(() => fake.requests('GET').length === 1);
    abort.abort();
    const err = await rejection(pending);
    expect(err).toBeInstanceOf(QueryCancelledError);
    expect([(err as QueryCancelledError).reason, (err as QueryCancelledError).queryId]).toEqual(['aborted', QID]);
    await until(() => fake.requests('DELETE').length > 0);
    expect(fake.requests('DELETE')).toEqual([`DELETE ${path(1)}`]);
  });

  it('a signal aborted before the query: QueryCancelledError(aborted), nothing sent', async () => {
    const err = await rejection(client.query('SELECT 1', { signal: AbortSignal.abort() }));
    expect(err).toBeInstanceOf(QueryCancelledError);
    expect((err as QueryCancelledError).reason).toBe('aborted');
    expect(fake.requests()).toEqual([]);
  });

  it('deadline: timeoutMs passes while Trino stalls -> QueryCancelledError(deadline) and DELETE', async () => {
    fake.onPost = () => ({ body: fake.page(1, { columns: COLUMNS, data: [[1]] }) });
    fake.onGet = () => 'stall';
    const t0 = Date.now();
    const r = await client.query('SELECT n FROM t', { timeoutMs: 100 });
    const seen: unknown[] = [];
    const err = await rejection(
      (async () => {
        for await (const b of r.batches) seen.push(...rowValues(b));
      })(),
    );
    // The gateway's own deadline is a backstop 2 s after Trino's query_max_run_time.
    expect(Date.now() - t0).toBeGreaterThanOrEqual(2_000);
    expect(Date.now() - t0).toBeLessThan(10_000); // a wide margin, for a busy machine
    expect(seen).toEqual([[1]]);
    expect(err).toBeInstanceOf(QueryCancelledError);
    expect([(err as QueryCancelledError).reason, (err as QueryCancelledError).queryId]).toEqual(['deadline', QID]);
    await until(() => fake.requests('DELETE').length > 0);
    expect(fake.requests('DELETE')).toEqual([`DELETE ${path(1)}`]);
    expect(fake.log[0]!.headers['x-trino-session']).toBe('query_max_run_time=1s');
  });

  it('deadline while waiting for the first columns -> QueryCancelledError(deadline)', async () => {
    fake.onPost = () => ({ body: fake.page(1, { stats: { state: 'QUEUED' } }) });
    fake.onGet = () => 'stall';
    const err = await rejection(client.query('SELECT 1', { timeoutMs: 100 }));
    expect(err).toBeInstanceOf(QueryCancelledError);
    expect((err as QueryCancelledError).reason).toBe('deadline');
  });

  // Regression: a client that goes away (or a deadline that passes) while Trino is still queueing or planning must
  // not leave the query running until Trino's own query_max_run_time: the nextUri known so far is DELETEd.
  it('abort while waiting for the first columns also sends DELETE', async () => {
    fake.onPost = () => ({ body: fake.page(1, { stats: { state: 'QUEUED' } }) });
    fake.onGet = () => 'stall';
    const abort = new AbortController();
    const pending = rejection(client.query('SELECT 1', { signal: abort.signal }));
    await until(() => fake.requests('GET').length === 1);
    abort.abort();
    expect(await pending).toBeInstanceOf(QueryCancelledError);
    await until(() => fake.requests('DELETE').length > 0, 1_000);
  });

  it('paging one page ahead: the GET of a page starts when the consumer starts the page before it', async () => {
    fake.onPost = () => ({ body: fake.page(1, { columns: COLUMNS, data: [[0]] }) });
    fake.onGet = (n) => ({ body: fake.page(n < 3 ? n + 1 : null, { data: [[n]] }) });
    const r = await client.query('SELECT n FROM t');
    const it = r.batches[Symbol.asyncIterator]();
    const count = () => fake.log.length;
    await sleep(30);
    expect(count()).toBe(1);
    const pulls: [unknown, number][] = [];
    for (let i = 0; i < 5; i++) {
      const step = await it.next();
      await sleep(30); // time for any eager fetch to show up
      pulls.push([step.done ? 'done' : step.value, count()]);
    }
    // [batch, requests so far]: the first batch came with the POST; reading a page asks for the next one (GETs of
    // pages 1, 2 and 3), never two ahead.
    expect(pulls).toEqual([
      [[[0]], 2],
      [[[1]], 3],
      [[[2]], 4],
      [[[3]], 4],
      ['done', 4],
    ]);
    expect(fake.requests('DELETE')).toEqual([]);
  });

  it('BIGINT beyond 2^53 keeps every digit; doubles and strings are untouched', async () => {
    fake.onPost = () => ({
      body:
        `{"id":"${QID}","columns":[{"name":"n","type":"bigint"},{"name":"d","type":"double"},{"name":"s","type":"varchar"}],` +
        `"data":[[9007199254740993,1.5,"9007199254740993"],[-9223372036854775808,1e300,"x"],[9223372036854775807,12345678901234567.0,"y"],[42,2.5E+20,"z"]]}`,
    });
    const { rows } = await client.all('SELECT n, d, s FROM t');
    expect(rows.map((r) => [String(r[0]), r[1], r[2]])).toEqual([
      ['9007199254740993', 1.5, '9007199254740993'],
      ['-9223372036854775808', 1e300, 'x'],
      ['9223372036854775807', 12345678901234568, 'y'],
      ['42', 2.5e20, 'z'],
    ]);
    expect(rows[3]![0]).toBe(42);
  });

  it('user, session (query_max_run_time from timeoutMs), catalog and schema are headers of each query', async () => {
    fake.onPost = () => ({ body: fake.page(null, { columns: COLUMNS, data: [] }) });
    await client.all('SELECT 1', {
      user: 'alice',
      catalog: 'vast',
      schema: 'demo|kafka_topics',
      timeoutMs: 2_500,
      session: { 'vast.complex_predicate_pushdown': 'true', odd: 'a,b=c' },
    });
    await client.all('SELECT 2');
    const pick = (h: http.IncomingHttpHeaders) =>
      Object.fromEntries(
        Object.entries(h)
          .filter(([k]) => k.startsWith('x-trino-'))
          .sort(([a], [b]) => a.localeCompare(b)),
      );
    expect(fake.log.map((l) => pick(l.headers))).toEqual([
      {
        'x-trino-catalog': 'vast',
        'x-trino-client-capabilities': 'PARAMETRIC_DATETIME',
        'x-trino-schema': 'demo|kafka_topics',
        'x-trino-session': 'query_max_run_time=3s,vast.complex_predicate_pushdown=true,odd=a%2Cb%3Dc',
        'x-trino-source': 'topicgate',
        'x-trino-user': 'alice',
      },
      {
        'x-trino-client-capabilities': 'PARAMETRIC_DATETIME',
        'x-trino-session': 'query_max_run_time=120s',
        'x-trino-source': 'topicgate',
        'x-trino-user': 'gw',
      },
    ]);
  });

  it('a catalog or schema that is not header-safe is refused before anything is sent', async () => {
    await expect(client.query('SELECT 1', { schema: 'a b' })).rejects.toThrow(
      'not usable as a Trino session header: "a b"',
    );
    expect(fake.requests()).toEqual([]);
  });

  // Regression: trino-client copies X-Trino-Set-Catalog / -Set-Schema / -Set-Session from every response into
  // headers shared by later queries. Here every query's headers come from its own options (never shared state).
  it('a Set-Catalog in one response does not reach the next query', async () => {
    fake.onPost = (sql) => ({
      body: fake.page(null, { columns: COLUMNS, data: [] }),
      headers:
        sql === 'USE other.s'
          ? { 'X-Trino-Set-Catalog': 'other', 'X-Trino-Set-Schema': 's' }
          : ({} as Record<string, string>),
    });
    await client.all('USE other.s');
    await client.all('SELECT 1');
    expect([fake.log[1]!.headers['x-trino-catalog'], fake.log[1]!.headers['x-trino-schema']]).toEqual([
      undefined,
      undefined,
    ]);
  });
});
