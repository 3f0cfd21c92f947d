/**
 * Concurrent queries: per caller and for the whole gateway, with a short bounded FIFO wait;
 * past it a 429 TG_TOO_MANY_REQUESTS with Retry-After. Slots always come back.
 */
import { describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../src/core/errors.js';
import { QueryLimiter } from '../../src/access/query-limiter.js';
import { createAccess } from '../../src/access/create-access.js';
import { loadConfig } from '../../src/server/load-config.js';

const limiter = (o: Partial<ConstructorParameters<typeof QueryLimiter>[0]> = {}) =>
  new QueryLimiter({ concurrentQueries: 2, maxConcurrentQueries: 3, queuedQueries: 2, queueWaitMs: 200, ...o });

async function rejection(p: Promise<unknown>): Promise<ApiError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}
const tick = () => new Promise((r) => setTimeout(r, 5));

/** Runs `fn` holding one slot of `key`, giving it back however `fn` ends. */
async function run<T>(q: QueryLimiter, key: string, fn: () => Promise<T>): Promise<T> {
  const release = await q.acquire(key);
  try {
    return await fn();
  } finally {
    release();
  }
}

describe('QueryLimiter', () => {
  it('grants at once under both limits, and counts per caller and in all', async () => {
    const q = limiter();
    const r1 = await q.acquire('a');
    const r2 = await q.acquire('b');
    expect([q.active(), q.active('a'), q.active('b'), q.active('c')]).toEqual([2, 1, 1, 0]);
    r1();
    r1(); // twice: no effect
    expect([q.active(), q.active('a')]).toEqual([1, 0]);
    r2();
    expect(q.active()).toBe(0);
  });

  it('a caller at its own limit waits; a release of its own lets it in, in order', async () => {
    const q = limiter({ queueWaitMs: 5_000 });
    const [a1, a2] = [await q.acquire('a'), await q.acquire('a')];
    const order: string[] = [];
    const w1 = q.acquire('a').then((r) => {
      order.push('w1');
      return r;
    });
    const w2 = q.acquire('a').then((r) => {
      order.push('w2');
      return r;
    });
    await tick();
    expect(q.waiting()).toBe(2);
    // Another caller is not held behind a's queue: the gateway has room.
    const b = await q.acquire('b');
    expect(q.active()).toBe(3);
    a1();
    (await w1)();
    a2();
    (await w2)();
    expect(order).toEqual(['w1', 'w2']);
    b();
    expect([q.active(), q.waiting()]).toEqual([0, 0]);
  });

  it('over the gateway limit a query waits for any release', async () => {
    const q = limiter({ concurrentQueries: undefined, queueWaitMs: 5_000 });
    const held = await Promise.all([q.acquire('a'), q.acquire('b'), q.acquire('c')]);
    const w = q.acquire('d');
    await tick();
    expect(q.waiting()).toBe(1);
    held[1]!();
    const r = await w;
    expect(q.active('d')).toBe(1);
    r();
    for (const h of held) h();
    expect(q.active()).toBe(0);
  });

  it('a full queue is a 429 at once, naming the limit, with Retry-After', async () => {
    const q = limiter({ queueWaitMs: 5_000 });
    const held = [await q.acquire('a'), await q.acquire('a')];
    const waiting = [q.acquire('a'), q.acquire('a')];
    const err = await rejection(q.acquire('a'));
    expect([err.code, err.status, err.retryAfterS, err.details]).toEqual([
      'TG_TOO_MANY_REQUESTS',
      429,
      5,
      { limit: 'queuedQueries', max: 2 },
    ]);
    expect(err.message).toBe(
      '2 queries already wait for a slot (limits.queuedQueries, the queue is full); retry after 5s',
    );
    for (const h of held) h();
    for (const w of waiting) (await w)();
    expect(q.active()).toBe(0);
  });

  it('a wait that runs out is a 429 and leaves the queue', async () => {
    const q = limiter({ concurrentQueries: undefined, maxConcurrentQueries: 1, queueWaitMs: 50 });
    const held = await q.acquire('a');
    const t0 = Date.now();
    const err = await rejection(q.acquire('b'));
    expect(Date.now() - t0).toBeGreaterThanOrEqual(45);
    expect(err.message).toBe(
      "waited 50 ms (limits.queueWaitMs) for one of the gateway's 1 query slots (limits.maxConcurrentQueries, all taken); retry after 1s",
    );
    expect(err.details).toEqual({ limit: 'maxConcurrentQueries', max: 1, waitedMs: 50 });
    expect(q.waiting()).toBe(0);
    held();
    (await q.acquire('b'))();
  });

  it('an aborted wait leaves the queue with the abort reason; an aborted signal never takes a slot', async () => {
    const q = limiter({ maxConcurrentQueries: 1, queueWaitMs: 5_000 });
    const held = await q.acquire('a');
    const ac = new AbortController();
    const w = q.acquire('b', ac.signal);
    await tick();
    ac.abort(new Error('client gone'));
    await expect(w).rejects.toThrow('client gone');
    expect(q.waiting()).toBe(0);
    await expect(q.acquire('c', ac.signal)).rejects.toThrow('client gone');
    held();
    expect(q.active()).toBe(0);
  });

  it('n slots at once, all or none: a waiter for 2 is not granted 1, and is granted when 2 are free', async () => {
    const q = limiter({ concurrentQueries: 2, maxConcurrentQueries: 4 });
    const two = await q.acquire('a', undefined, 2);
    expect([q.active(), q.active('a')]).toEqual([2, 2]);
    const other = await q.acquire('b');
    const waiting = q.acquire('b', undefined, 2);
    await tick();
    expect([q.active('b'), q.waiting()]).toEqual([1, 1]); // 3 running, 1 free: not enough for 2
    two();
    await tick();
    expect([q.active('b'), q.waiting()]).toEqual([1, 1]); // b's own limit (2) still holds it
    other();
    (await waiting)();
    expect([q.active(), q.waiting()]).toEqual([0, 0]);
  });

  it('more slots than a limit could ever grant: a 422 at once, naming the limit, nothing queued', async () => {
    const q = limiter({ concurrentQueries: 2, maxConcurrentQueries: 3 });
    const per = await rejection(q.acquire('a', undefined, 3));
    expect([per.code, per.status, per.details]).toEqual([
      'TG_TOO_EXPENSIVE',
      422,
      { limit: 'concurrentQueries', max: 2, found: 3 },
    ]);
    expect(per.message).toContain('limits.concurrentQueries = 2');
    const all = await rejection(
      limiter({ concurrentQueries: undefined, maxConcurrentQueries: 3 }).acquire('a', undefined, 4),
    );
    expect(all.details).toEqual({ limit: 'maxConcurrentQueries', max: 3, found: 4 });
    expect([q.active(), q.waiting()]).toEqual([0, 0]);
  });

  it('a burst: no more than the limits ever run, every query ends, the rest get 429', async () => {
    const q = limiter({ concurrentQueries: 2, maxConcurrentQueries: 3, queuedQueries: 3, queueWaitMs: 100 });
    let peak = 0;
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        run(q, `c${i % 4}`, async () => {
          peak = Math.max(peak, q.active());
          expect(q.active(`c${i % 4}`)).toBeLessThanOrEqual(2);
          await new Promise((r) => setTimeout(r, 20));
        }),
      ),
    );
    expect(peak).toBe(3);
    const refused = results.filter((r) => r.status === 'rejected');
    expect(refused.length).toBeGreaterThan(0);
    for (const r of refused) expect((r as PromiseRejectedResult).reason.code).toBe('TG_TOO_MANY_REQUESTS');
    expect([q.active(), q.waiting()]).toEqual([0, 0]);
  });
});

describe('the per-caller limit has a default', () => {
  it('without concurrentQueries in the config, one caller runs at most 16 queries at once; the 17th waits', async () => {
    const { queries } = createAccess(loadConfig({ TOPICGATE_TRINO_URL: 'http://127.0.0.1:1' }));
    const held = await Promise.all(Array.from({ length: 16 }, () => queries.acquire('principal:key:a')));
    const seventeenth = queries.acquire('principal:key:a');
    await tick();
    expect([queries.active('principal:key:a'), queries.waiting()]).toEqual([16, 1]);
    // Another caller is not held back by it.
    (await queries.acquire('principal:key:b'))();
    held.shift()!();
    (await seventeenth)();
    for (const release of held) release();
    expect([queries.active(), queries.waiting()]).toEqual([0, 0]);
  });
});

describe('a burst waits for its slots, as a database pool lets its callers wait', () => {
  it('the default queue wait is 30 s: a caller 29 s behind its slots is still waiting, not refused', async () => {
    vi.useFakeTimers();
    try {
      const { queries } = createAccess(loadConfig({ TOPICGATE_TRINO_URL: 'http://127.0.0.1:1' }));
      const held = await Promise.all(Array.from({ length: 16 }, () => queries.acquire('principal:key:a')));
      let outcome = 'waiting';
      const w = queries.acquire('principal:key:a').then(
        (release) => {
          outcome = 'granted';
          return release;
        },
        (err: ApiError) => {
          outcome = err.message;
          return undefined;
        },
      );
      await vi.advanceTimersByTimeAsync(29_000);
      expect(outcome).toBe('waiting');
      held.pop()!();
      (await w)?.();
      expect(outcome).toBe('granted');
      for (const release of held) release();
    } finally {
      vi.useRealTimers();
    }
  });

  it('past the wait, the 429 says it waited and for which limit', async () => {
    vi.useFakeTimers();
    try {
      const q = limiter({ queueWaitMs: 30_000 });
      const held = [await q.acquire('a'), await q.acquire('a')];
      const w = rejection(q.acquire('a'));
      await vi.advanceTimersByTimeAsync(30_000);
      const err = await w;
      expect([err.status, err.retryAfterS, err.details]).toEqual([
        429,
        30,
        { limit: 'concurrentQueries', max: 2, waitedMs: 30_000 },
      ]);
      expect(err.message).toBe(
        "waited 30000 ms (limits.queueWaitMs) for one of this caller's 2 query slots (limits.concurrentQueries, all taken); retry after 30s",
      );
      expect(q.waiting()).toBe(0);
      for (const h of held) h();
    } finally {
      vi.useRealTimers();
    }
  });
});
