/**
 * `maxConcurrentQueries` holds for the queries Trino lists, not only for the slots handed out: a query given up (its
 * client gone, a held query evicted for another) is listed until Trino has answered its cancellation, so the query
 * its slot lets in must wait for that. The fake counts what Trino lists (the load test's view).
 */
import { describe, expect, it } from 'vitest';
import { QueryLease } from '../../src/access/query-lease.js';
import { QueryLimiter } from '../../src/access/query-limiter.js';
import { PageCutter } from '../../src/read/page-cutter.js';
import { HeldResults, pageRead, type HeldResult } from '../../src/read/held-results.js';
import type { PortRef } from '../../src/read/sliced-result.js';
import type { TrinoPort } from '../../src/trino/trino-port.js';
import { ListedQueriesTrino } from '../fakes/listed-queries-trino.js';
import type { RowBatch } from '../../src/core/text-rows.js';

const tick = (ms = 5) => new Promise((r) => setTimeout(r, ms));

/** The gateway's slots: `max` in all, a caller's own limit `per`, a queue long enough for the tests. */
const slots = (max: number, per?: number) =>
  new QueryLimiter({ concurrentQueries: per, maxConcurrentQueries: max, queuedQueries: 64, queueWaitMs: 5_000 });

/** One request of `caller`: its lease, and what its client going away does (as the access plugin does). */
function request(trino: TrinoPort, limiter: QueryLimiter, caller: string) {
  const gone = new AbortController();
  const lease = new QueryLease(trino, limiter, caller, gone.signal);
  const port: PortRef = { trino: lease, opts: {}, stats: { queries: 0, widthMs: 0, endMs: 0 } };
  return {
    lease,
    port,
    signal: gone.signal,
    leave: () => {
      gone.abort(new Error('the client went away'));
      lease.end();
    },
  };
}

/** A result held for the next page: its query read a page, then parked on the slot it had. */
function heldOf(rest: AsyncIterator<RowBatch>): HeldResult {
  return {
    queryId: 'q',
    columns: [],
    rows: [],
    rest,
    port: { trino: null as never, opts: {}, stats: { queries: 0, widthMs: 0, endMs: 0 } },
    relay: new AbortController(),
    startedMs: Date.now(),
    reach: { yielded: 1, sure: Infinity },
    consumed: 0,
  };
}

describe('query slots hold for the queries Trino lists', () => {
  it("a client gone: the query waiting for its slot starts once Trino has cancelled the gone one's", async () => {
    const trino = new ListedQueriesTrino();
    const limiter = slots(1);
    const a = request(trino, limiter, 'a');
    const first = await a.lease.query('SELECT a');
    await first.batches[Symbol.asyncIterator]().next();
    const b = request(trino, limiter, 'b');
    const waiting = b.lease.query('SELECT b');
    await tick();
    expect([limiter.waiting(), trino.listed]).toEqual([1, 1]);
    a.leave();
    await waiting;
    expect(trino.peak).toBe(1);
    expect([limiter.active(), limiter.endingCount()]).toEqual([1, 0]);
    b.leave();
    await tick(40);
    expect([trino.listed, limiter.active(), limiter.endingCount()]).toEqual([0, 0, 0]);
  });

  it('a query run to completion (an explain, a count) whose client leaves: its slot is free once it is cancelled', async () => {
    const trino = new ListedQueriesTrino();
    const limiter = slots(1);
    const a = request(trino, limiter, 'a');
    const rows = a.lease.all('SELECT count').catch(() => 'cut');
    await tick();
    const b = request(trino, limiter, 'b');
    const waiting = b.lease.query('SELECT b');
    await tick();
    a.leave();
    await waiting;
    expect(trino.peak).toBe(1);
    expect(await rows).toBe('cut');
    b.leave();
  });

  it('a client gone while its POST is on its way: the slot is free once Trino has answered it and the cancel', async () => {
    const trino = new ListedQueriesTrino(1_000, 20, 50);
    const limiter = slots(1);
    const a = request(trino, limiter, 'a');
    const asked = a.lease.query('SELECT a').catch(() => 'cancelled');
    await tick();
    const b = request(trino, limiter, 'b');
    const waiting = b.lease.query('SELECT b');
    a.leave();
    expect(await asked).toBe('cancelled');
    await waiting;
    expect(trino.peak).toBe(1);
    b.leave();
  });

  it('a held query evicted for another caller: that query starts once the held one is cancelled in Trino', async () => {
    const trino = new ListedQueriesTrino();
    const limiter = slots(1);
    const held = new HeldResults(4, 60_000);
    const release = await limiter.acquire('alice');
    const rest = (await trino.query('SELECT page')).batches[Symbol.asyncIterator]();
    await rest.next();
    held.hold('t', heldOf(rest), { release, park: (evict) => limiter.park('alice', evict) });
    const bob = request(trino, limiter, 'bob');
    await bob.lease.query('SELECT other');
    expect(trino.peak).toBe(1);
    expect([held.size, trino.listed]).toEqual([0, 1]);
    bob.leave();
  });

  it("a caller's own held query evicted for its next one: the caller's limit holds in Trino too", async () => {
    const trino = new ListedQueriesTrino();
    const limiter = slots(8, 1);
    const held = new HeldResults(4, 60_000);
    const release = await limiter.acquire('alice');
    const rest = (await trino.query('SELECT page')).batches[Symbol.asyncIterator]();
    await rest.next();
    held.hold('t', heldOf(rest), { release, park: (evict) => limiter.park('alice', evict) });
    const next = request(trino, limiter, 'alice');
    await next.lease.query('SELECT explain');
    expect(trino.peak).toBe(1);
    expect(held.size).toBe(0);
    next.leave();
  });

  it('a page read on from a held query, its client gone: the slot is free once the held query is cancelled', async () => {
    const trino = new ListedQueriesTrino();
    const limiter = slots(1);
    const held = new HeldResults(4, 60_000);
    const page = (r: ReturnType<typeof request>, token: string | undefined) =>
      pageRead(
        held,
        r.lease,
        r.port,
        { eligible: true, limit: 2, token, caller: 'alice', signal: r.signal },
        async () => ({
          ...(await r.port.trino.query('SELECT page', r.port.opts)),
          reach: { yielded: 0, sure: Infinity },
        }),
      );
    const one = request(trino, limiter, 'alice');
    const first = await page(one, undefined);
    const cutter = new PageCutter(first.source, 2, null, undefined, true, first.first);
    for await (const batch of cutter.batches()) expect(batch).toHaveLength(1);
    first.holdRest('t2', cutter.rest()!);
    one.lease.end();
    const two = request(trino, limiter, 'alice');
    const second = await page(two, 't2');
    expect([second.continued, trino.started]).toEqual([true, 1]);
    const bob = request(trino, limiter, 'bob');
    const waiting = bob.lease.query('SELECT bob');
    await tick();
    two.leave();
    await waiting;
    expect(trino.peak).toBe(1);
    bob.leave();
  });

  it('a result left unread when its request ends is cancelled, and holds its slot until it is', async () => {
    const trino = new ListedQueriesTrino();
    const limiter = slots(2);
    const bulk = request(trino, limiter, 'a');
    await bulk.lease.hold(2);
    await Promise.all([bulk.lease.query('slice 1'), bulk.lease.query('slice 2')]);
    bulk.lease.end();
    const after = bulk.lease.query('slice 3').catch(() => 'refused');
    const other = request(trino, limiter, 'b');
    await other.lease.query('SELECT b');
    expect(trino.peak).toBe(2);
    expect([await after, trino.listed, limiter.active(), limiter.endingCount()]).toEqual(['refused', 1, 1, 0]);
    other.leave();
  });

  it('queries read to their end give their slot back at once', async () => {
    const trino = new ListedQueriesTrino(3);
    const limiter = slots(1);
    const a = request(trino, limiter, 'a');
    await a.lease.all('SELECT 1');
    for await (const batch of (await a.lease.query('SELECT 2')).batches) expect(batch).toHaveLength(1);
    a.lease.end();
    expect([limiter.active(), limiter.endingCount(), trino.listed]).toEqual([0, 0, 0]);
  });

  it('a load of callers whose clients leave, pages held and evicted: Trino never lists more than the limit', async () => {
    const trino = new ListedQueriesTrino();
    const limiter = slots(4, 2);
    const held = new HeldResults(8, 60_000);
    let seed = 7;
    const random = () => ((seed = (seed * 48271) % 2147483647) / 2147483647) as number;
    const outcomes = { read: 0, left: 0, held: 0, refused: 0 };
    async function one(caller: string, i: number) {
      const r = request(trino, limiter, caller);
      try {
        const result = await r.lease.query(`SELECT ${i}`);
        const it = result.batches[Symbol.asyncIterator]();
        for (let n = Math.floor(random() * 5); n >= 0; n--) await it.next();
        const roll = random();
        if (roll < 0.4) {
          outcomes.left++;
          r.leave();
          return;
        }
        if (roll < 0.7) {
          // The page's query is held for the next page, on its slot, parked under its caller.
          const detached = r.lease.detach()!;
          held.hold(`${caller}/${i}`, heldOf(it), { release: detached.release, park: (e) => r.lease.park(e) });
          outcomes.held++;
        } else {
          await it.return?.();
          outcomes.read++;
        }
        r.lease.end();
      } catch {
        outcomes.refused++;
        r.lease.end();
      }
    }
    const callers = Array.from({ length: 8 }, (_, c) => `c${c}`);
    await Promise.all(
      callers.map(async (caller, c) => {
        for (let i = 0; i < 12; i++) {
          await one(caller, c * 100 + i);
          await tick(Math.floor(random() * 4));
        }
      }),
    );
    await held.close();
    await tick(40);
    expect(outcomes.left + outcomes.held + outcomes.read).toBeGreaterThan(80);
    expect(trino.peak).toBe(4);
    expect([trino.listed, limiter.active(), limiter.endingCount(), limiter.parkedCount()]).toEqual([0, 0, 0, 0]);
  });
});
