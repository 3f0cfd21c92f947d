/**
 * An abort while a query's POST is in flight rejects query() at once (the client need not wait for Trino), and the
 * port tells the caller of the cancellation it sends once Trino has answered the POST: query slots stay taken until
 * it has been answered (src/access/query-lease.ts).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HttpTrino } from '../../src/trino/http-trino.js';
import { QueryCancelledError } from '../../src/trino/trino-errors.js';
import { FakeTrinoHttp, rejection } from '../fakes/fake-trino-http.js';

let fake: FakeTrinoHttp;
beforeEach(async () => {
  fake = new FakeTrinoHttp();
  await fake.start();
});
afterEach(() => fake.stop());

describe('a query aborted while its POST is in flight', () => {
  it('rejects at once, and the promise it hands over resolves once Trino has the query cancelled', async () => {
    fake.onPost = () => ({ body: fake.page(1, { columns: [{ name: 'n', type: 'integer' }] }), delayMs: 300 });
    const abort = new AbortController();
    let cancelled: Promise<void> | undefined;
    const trino = new HttpTrino({ server: fake.base, user: 'gw' });
    const pending = rejection(
      trino.query('SELECT 1', { signal: abort.signal, cancelling: (p) => void (cancelled = p) }),
    );
    await fake.until(() => fake.log.length === 1);
    abort.abort();
    expect(await pending).toBeInstanceOf(QueryCancelledError);
    expect([cancelled !== undefined, fake.requests('DELETE')]).toEqual([true, []]);
    await cancelled;
    expect(fake.requests()).toEqual(['POST /v1/statement', `DELETE ${fake.path(1)}`]);
  });
});
