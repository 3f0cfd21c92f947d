/**
 * A request's query slots counted across instances too (access/shared-slots.ts), each instance its own limiter and
 * both one shared count (in memory here; PostgreSQL in test/integration/shared-quotas.test.ts): a caller's limit
 * holds for its queries on both, all or none; a refused query gives its instance's slot back; a query waits for a
 * slot freed elsewhere up to the queue wait; a page query held for the next page counts only where it is held.
 */
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/core/errors.js';
import { QueryLease } from '../../src/access/query-lease.js';
import { QueryLimiter } from '../../src/access/query-limiter.js';
import type { SharedHold, SharedSlots } from '../../src/access/shared-slots.js';
import { FakeTrinoPort } from '../fakes/fake-trino-port.js';

/** The slots of every caller, counted in one map as a shared store would. */
class MemorySlots implements SharedSlots {
  readonly taken = new Map<string, number>();
  constructor(
    readonly limit: number,
    readonly waitMs: number,
  ) {}

  open(key: string): SharedHold {
    let mine = 0;
    return {
      take: async (n) => {
        if (n <= mine) return true;
        const all = this.taken.get(key) ?? 0;
        if (all + n - mine > this.limit) return false;
        this.taken.set(key, all + n - mine);
        mine = n;
        return true;
      },
      release: async () => {
        this.taken.set(key, (this.taken.get(key) ?? 0) - mine);
        mine = 0;
      },
    };
  }
}

const ONE = { columns: [{ name: 'n', type: 'bigint' }], batches: [[[1]]] };

function setup(waitMs = 0) {
  const trino = new FakeTrinoPort().answer(/.*/, ONE);
  const shared = new MemorySlots(2, waitMs);
  const instance = () => {
    const limiter = new QueryLimiter({
      concurrentQueries: 2,
      maxConcurrentQueries: 8,
      queuedQueries: 4,
      queueWaitMs: waitMs,
    });
    const lease = (key = 'alice') => new QueryLease(trino, limiter, key, new AbortController().signal, shared);
    return { limiter, lease };
  };
  return { shared, a: { ...instance(), shared }, b: instance() };
}

async function refusal(p: Promise<unknown>): Promise<ApiError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

describe('QueryLease with slots shared by instances', () => {
  it("a caller's limit holds across instances; the refused query gives its instance's slot back", async () => {
    const { shared, a, b } = setup();
    const [l1, l2] = [a.lease(), b.lease()];
    await l1.hold(1);
    await l2.hold(1);
    expect(shared.taken.get('alice')).toBe(2);
    const err = await refusal(a.lease().hold(1));
    expect([err.code, err.details]).toEqual([
      'TG_TOO_MANY_REQUESTS',
      { limit: 'concurrentQueries', max: 2, waitedMs: 0 },
    ]);
    expect(a.limiter.active('alice')).toBe(1);
    // Another caller has its own slots.
    await b.lease('bob').hold(2);
    l2.end();
    await expect.poll(() => shared.taken.get('alice')).toBe(1);
    await a.lease().hold(1);
    expect(a.limiter.active('alice')).toBe(2);
  });

  it('takes n at once, all or none', async () => {
    const { shared, a, b } = setup();
    await a.lease().hold(1);
    expect((await refusal(b.lease().hold(2))).code).toBe('TG_TOO_MANY_REQUESTS');
    expect([shared.taken.get('alice'), b.limiter.active('alice')]).toEqual([1, 0]);
  });

  it('waits for a slot freed on the other instance, within the queue wait', async () => {
    const { a, b } = setup(60_000);
    const [l1, l2] = [a.lease(), b.lease()];
    await Promise.all([l1.hold(1), l2.hold(1)]);
    const waiting = a.lease().hold(1);
    l2.end();
    await waiting;
    expect(a.limiter.active('alice')).toBe(2);
  });

  it('a client gone while its query waits for a shared slot: refused with the abort, its local slot given back', async () => {
    const { a, b } = setup(60_000);
    await Promise.all([a.lease().hold(1), b.lease().hold(1)]);
    const gone = new AbortController();
    const waiting = new QueryLease(new FakeTrinoPort(), a.limiter, 'alice', gone.signal, a.shared).hold(1);
    gone.abort(new Error('the client went away'));
    await expect(waiting).rejects.toThrow('the client went away');
    expect(a.limiter.active('alice')).toBe(1);
  });

  it('gives the shared slots back only once the queries have ended in Trino', async () => {
    const { shared, a } = setup();
    const l = a.lease();
    let cancelled!: () => void;
    const cancelling = new Promise<void>((resolve) => (cancelled = resolve));
    // A query the request reads on from, still running when the request ends: end() cancels it.
    await l.adopt(await a.limiter.acquire('alice'), () => cancelling);
    expect(shared.taken.get('alice')).toBe(1);
    l.end();
    // Every promise settled that can settle before the cancellation has: the slot is still taken.
    await new Promise((resolve) => setImmediate(resolve));
    expect(shared.taken.get('alice')).toBe(1);
    cancelled();
    await expect.poll(() => shared.taken.get('alice')).toBe(0);
  });

  it('a query held for the next page counts only on its instance; the request reading on from it takes a slot', async () => {
    const { shared, a, b } = setup();
    const first = a.lease();
    await first.hold(1);
    const detached = first.detach()!;
    first.end();
    await expect.poll(() => shared.taken.get('alice')).toBe(0);
    expect(a.limiter.active('alice')).toBe(1);
    const next = a.lease();
    await next.adopt(detached.release, async () => undefined);
    expect(shared.taken.get('alice')).toBe(1);
    next.end();
    await expect.poll(() => shared.taken.get('alice')).toBe(0);
    // With the caller's slots all taken on the other instance, reading on is refused.
    const held = a.lease();
    await held.hold(1);
    const again = held.detach()!;
    held.end();
    await b.lease().hold(2);
    expect((await refusal(a.lease().adopt(again.release, async () => undefined))).code).toBe('TG_TOO_MANY_REQUESTS');
  });
});
