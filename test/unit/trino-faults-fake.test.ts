/**
 * Faults on the wire between the gateway and Trino (src/trino/http-trino.ts against test/fakes/fake-trino-http.ts):
 * connection resets and truncated pages, per-request timeouts, the retry backoff and its cap, an abort while the
 * POST is in flight, a page that is not JSON. GETs of a nextUri are retried; the POST never is.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HttpTrino, type HttpTrinoOptions } from '../../src/trino/http-trino.js';
import { QueryCancelledError, TrinoUnavailableError } from '../../src/trino/trino-errors.js';
import { backoffMs } from '../../src/trino/wire-failures.js';
import { FakeTrinoHttp, QID, rejection } from '../fakes/fake-trino-http.js';

const COLUMNS = [{ name: 'n', type: 'integer' }];

let fake: FakeTrinoHttp;
beforeEach(async () => {
  fake = new FakeTrinoHttp();
  await fake.start();
});
afterEach(() => fake.stop());

const connect = (extra: Partial<HttpTrinoOptions> = {}) => new HttpTrino({ server: fake.base, user: 'gw', ...extra });
const gets = () => fake.requests('GET');
/** Milliseconds between successive GETs. */
const gaps = () => {
  const at = fake.log.filter((l) => l.method === 'GET').map((l) => l.at);
  return at.slice(1).map((t, i) => t - at[i]!);
};
function unavailable(err: unknown): [number | undefined, string] {
  expect(err).toBeInstanceOf(TrinoUnavailableError);
  return [(err as TrinoUnavailableError).httpStatus, (err as Error).message];
}

describe('HttpTrino under faults', () => {
  it('a connection reset on a GET (before any answer) is retried; the page then arrives', async () => {
    fake.onPost = () => ({ body: fake.page(1) });
    fake.onGet = (_n, attempt) =>
      attempt < 2 ? 'reset' : { body: fake.page(null, { columns: COLUMNS, data: [[7]] }) };
    expect((await connect().all('SELECT 7')).rows).toEqual([[7]]);
    expect(gets()).toEqual(Array(3).fill(`GET ${fake.path(1)}`));
  });

  it('a connection closed halfway through a page is retried; the page then arrives whole', async () => {
    const page = fake.page(2, { columns: COLUMNS, data: [[1], [2], [3]] });
    fake.onPost = () => ({ body: fake.page(1) });
    fake.onGet = (n, attempt) =>
      n === 1 ? (attempt === 0 ? { truncate: page } : { body: page }) : { body: fake.page(null, { data: [[4]] }) };
    expect((await connect().all('SELECT n')).rows).toEqual([[1], [2], [3], [4]]);
    expect(gets()).toEqual([`GET ${fake.path(1)}`, `GET ${fake.path(1)}`, `GET ${fake.path(2)}`]);
  });

  it('resets on every GET: six GETs, then TrinoUnavailableError naming the reset, and the query is cancelled', async () => {
    fake.onPost = () => ({ body: fake.page(1) });
    fake.onGet = () => 'reset';
    const err = await rejection(connect().query('SELECT 1'));
    expect(unavailable(err)).toEqual([undefined, 'Trino is not reachable (ECONNRESET)']);
    expect(gets()).toHaveLength(6);
    await fake.until(() => fake.requests('DELETE').length > 0);
    expect(fake.requests('DELETE')).toEqual([`DELETE ${fake.path(1)}`]);
  });

  it('per-request timeout: a GET that stalls is given up after requestTimeoutMs and retried', async () => {
    fake.onPost = () => ({ body: fake.page(1, { columns: COLUMNS, data: [[1]] }) });
    fake.onGet = (_n, attempt) => (attempt === 0 ? 'stall' : { body: fake.page(null, { data: [[2]] }) });
    const t0 = performance.now();
    expect((await connect({ requestTimeoutMs: 200 }).all('SELECT n')).rows).toEqual([[1], [2]]);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(200);
    expect(gets()).toEqual([`GET ${fake.path(1)}`, `GET ${fake.path(1)}`]);
  });

  it('a GET that always stalls: retries + 1 attempts, then TrinoUnavailableError naming the time limit', async () => {
    fake.onPost = () => ({ body: fake.page(1) });
    fake.onGet = () => 'stall';
    const client = connect({ requestTimeoutMs: 100, retry: { retries: 2, baseMs: 10, maxMs: 10 } });
    const err = await rejection(client.query('SELECT 1'));
    expect(unavailable(err)).toEqual([undefined, 'Trino did not answer within 100 ms']);
    expect(gets()).toHaveLength(3);
  });

  it.each([
    ['stalls', 'stall', 'Trino did not answer within 200 ms'],
    ['is closed halfway through its answer', { truncate: { id: QID } }, 'Trino is not reachable (ECONNRESET)'],
  ] as const)('a POST that %s is not retried: one POST, TrinoUnavailableError', async (_label, reply, message) => {
    fake.onPost = () => reply;
    const err = await rejection(connect({ requestTimeoutMs: 200 }).query('SELECT 1'));
    expect(unavailable(err)).toEqual([undefined, message]);
    expect(fake.requests()).toEqual(['POST /v1/statement']);
  });

  it('backoff doubles from the base: 50, 100, 200, 400, 800 ms between the six GETs', async () => {
    fake.onPost = () => ({ body: fake.page(1) });
    fake.onGet = () => ({ status: 503 });
    await rejection(connect().query('SELECT 1'));
    const g = gaps();
    expect(g).toHaveLength(5);
    for (const [i, gap] of g.entries()) expect(gap).toBeGreaterThanOrEqual(50 * 2 ** i - 5);
  });

  it('backoff is capped: the schedule doubles up to maxMs and stays there', () => {
    const waits = [0, 1, 2, 3, 4, 5].map((a) => backoffMs(a, { baseMs: 50, maxMs: 300 }));
    expect(waits).toEqual([50, 100, 200, 300, 300, 300]);
  });

  it('with maxMs 50 every one of the five retries still happens', async () => {
    fake.onPost = () => ({ body: fake.page(1) });
    fake.onGet = () => ({ status: 503 });
    await rejection(connect({ retry: { retries: 5, baseMs: 50, maxMs: 50 } }).query('SELECT 1'));
    const g = gaps();
    expect(g).toHaveLength(5);
    for (const gap of g) expect(gap).toBeGreaterThanOrEqual(45);
  });

  it('an abort while the POST is in flight rejects at once; the query is cancelled when Trino answers', async () => {
    // Trino answers the POST late (1.5 s): the abort is rejected before that, not when Trino answers.
    fake.onPost = () => ({ body: fake.page(1, { columns: COLUMNS }), delayMs: 1_500 });
    const abort = new AbortController();
    const pending = rejection(connect().query('SELECT 1', { signal: abort.signal }));
    await fake.until(() => fake.log.length === 1);
    abort.abort();
    const err = await pending;
    expect(fake.answered).toEqual([]);
    expect(err).toBeInstanceOf(QueryCancelledError);
    expect([(err as QueryCancelledError).reason, (err as QueryCancelledError).queryId]).toEqual(['aborted', undefined]);
    await fake.until(() => fake.requests('DELETE').length > 0);
    expect(fake.requests()).toEqual(['POST /v1/statement', `DELETE ${fake.path(1)}`]);
  });

  it('a page that is not JSON -> TrinoUnavailableError, not a parse error', async () => {
    fake.onPost = () => ({ body: '<html>proxy error</html>' });
    const err = await rejection(connect().query('SELECT 1'));
    expect(unavailable(err)).toEqual([200, 'Trino answered HTTP 200 with a body that is not JSON']);
  });

  it('an abort during the backoff between retries ends the wait at once', async () => {
    fake.onPost = () => ({ body: fake.page(1) });
    fake.onGet = () => ({ status: 503 });
    const abort = new AbortController();
    const client = connect({ retry: { retries: 5, baseMs: 600_000, maxMs: 600_000 } });
    const pending = rejection(client.query('SELECT 1', { signal: abort.signal }));
    await fake.until(() => gets().length === 1);
    abort.abort();
    expect(await pending).toBeInstanceOf(QueryCancelledError);
    // Rejected during the backoff: a wait of ten minutes, which only the abort can have ended within the test's time.
    expect(gets()).toHaveLength(1);
    await fake.until(() => fake.requests('DELETE').length > 0);
  });
});

describe('HttpTrino.close(): every running query is cancelled before it resolves', () => {
  it('a query still planning (its GET stalls) and a streaming one: both DELETEd, close() waits for the DELETEs', async () => {
    const port = connect();
    fake.onPost = (sql) => ({
      body: sql.includes('planning') ? fake.page(1) : fake.page(2, { columns: COLUMNS, data: [[1]] }),
    });
    fake.onGet = (n) => (n === 1 ? 'stall' : { body: fake.page(null, { data: [[2]] }) });
    const streaming = await port.query('SELECT streaming');
    const first = await streaming.batches[Symbol.asyncIterator]().next();
    expect(first.value).toEqual([[1]]);
    const planning = rejection(port.query('SELECT planning'));
    await fake.until(() => gets().length > 0);
    await port.close();
    expect(fake.requests('DELETE').sort()).toEqual([`DELETE ${fake.path(1)}`, `DELETE ${fake.path(2)}`].sort());
    expect(await planning).toBeInstanceOf(QueryCancelledError);
  });

  it('nothing running: close() resolves at once and sends nothing', async () => {
    fake.onPost = () => ({ body: fake.page(null, { columns: COLUMNS, data: [[1]] }) });
    const port = connect();
    await port.all('SELECT 1');
    await port.close();
    expect(fake.requests('DELETE')).toEqual([]);
  });
});
