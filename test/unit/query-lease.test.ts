/**
 * A request's Trino port: quotas count Trino queries, not requests. A request holds no slot until its
 * first query, one slot for queries run one after another, N for a bulk read of N slices (all or none), gives them
 * all back when it ends, and the request's abort signal reaches every query it runs.
 */
import { describe, expect, it } from 'vitest';
import { QueryLease } from '../../src/access/query-lease.js';
import { QueryLimiter } from '../../src/access/query-limiter.js';
import { ApiError } from '../../src/core/errors.js';
import { FakeTrinoPort } from '../fakes/fake-trino-port.js';

const ONE = { columns: [{ name: 'n', type: 'bigint' }], batches: [[[1]]] };
const setup = (limits: Partial<ConstructorParameters<typeof QueryLimiter>[0]> = {}) => {
  const trino = new FakeTrinoPort().answer(/.*/, ONE);
  const limiter = new QueryLimiter({
    concurrentQueries: 2,
    maxConcurrentQueries: 3,
    queuedQueries: 0,
    queueWaitMs: 0,
    ...limits,
  });
  const lease = (key = 'a') => {
    const gone = new AbortController();
    return { lease: new QueryLease(trino, limiter, key, gone.signal), gone };
  };
  return { trino, limiter, lease };
};

async function code(p: Promise<unknown>): Promise<string> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return (err as ApiError).code;
}

describe('QueryLease', () => {
  it('no slot before the first query; one for queries run one after another; all back at the end', async () => {
    const { limiter, lease } = setup();
    const { lease: l } = lease();
    expect(limiter.active('a')).toBe(0);
    expect((await l.all('SELECT 1')).rows).toEqual([[1]]);
    expect(limiter.active('a')).toBe(1);
    await l.all('SELECT 2');
    await (await l.query('SELECT 3')).cancel();
    expect(limiter.active('a')).toBe(1);
    l.end();
    expect(limiter.active('a')).toBe(0);
    await expect(l.all('SELECT 4')).rejects.toThrow();
    expect(limiter.active('a')).toBe(0);
  });

  it('a bulk read holds N slots before its slices start, so another query of the caller is refused', async () => {
    const { limiter, lease } = setup({ concurrentQueries: 2 });
    const bulk = lease().lease;
    await bulk.hold(2);
    await Promise.all([bulk.query('slice 1'), bulk.query('slice 2')]);
    expect(limiter.active('a')).toBe(2);
    expect(await code(lease().lease.all('EXPLAIN x'))).toBe('TG_TOO_MANY_REQUESTS');
    // Another caller still has the gateway's third slot.
    const other = lease('b').lease;
    await other.all('SELECT 1');
    expect(limiter.active()).toBe(3);
    bulk.end();
    other.end();
    expect(limiter.active()).toBe(0);
  });

  it('holding more than a limit allows is a 422, and nothing stays held', async () => {
    const { limiter, lease } = setup({ concurrentQueries: 2 });
    const l = lease().lease;
    expect(await code(l.hold(3))).toBe('TG_TOO_EXPENSIVE');
    expect(limiter.active()).toBe(0);
  });

  it("the request's abort signal reaches every query, beside the query's own", async () => {
    const { trino, lease } = setup();
    const { lease: l, gone } = lease();
    const own = new AbortController();
    const r = await l.query('SELECT 1', { signal: own.signal });
    await l.all('SELECT 2');
    gone.abort(new Error('the client went away'));
    expect(trino.queries.map((q) => q.opts.signal?.aborted)).toEqual([true, true]);
    expect(trino.queries[0]!.cancelled).toBe(true);
    await r.cancel();
    l.end();
  });
});
