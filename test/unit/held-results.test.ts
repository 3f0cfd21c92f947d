/**
 * Pages read on: the held results' bounds (count, time to live, age, parked slots), and the page cutter
 * handing its result over so the next page reads on from it, with the rows and next position a query of its own
 * would give.
 */
import { describe, expect, it } from 'vitest';
import { QueryLease } from '../../src/access/query-lease.js';
import { QueryLimiter } from '../../src/access/query-limiter.js';
import { PageCutter } from '../../src/read/page-cutter.js';
import { HeldResults, pageRead, type HeldResult } from '../../src/read/held-results.js';
import type { PortRef, HoldingResult } from '../../src/read/sliced-result.js';
import { FakeTrinoPort } from '../fakes/fake-trino-port.js';
import { inMemoryResult, type InMemoryResult } from '../fakes/in-memory-result.js';

const COLUMNS = [
  { name: 'n', type: 'bigint' },
  { name: 'timestamp_broker', type: 'timestamp(3)' },
];
const row = (i: number) => [i, `2026-11-01 00:00:00.${String(Math.floor(i / 3)).padStart(3, '0')}`];
const rows = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => row(from + k));

/** A held result over an in-memory result that has been pulled once (so closing it is observable). */
async function heldOf(startedMs = Date.now()): Promise<{ held: HeldResult; source: InMemoryResult }> {
  const source = inMemoryResult(COLUMNS, [rows(0, 2), rows(2, 4), rows(4, 6)]);
  const rest = source.batches[Symbol.asyncIterator]();
  await rest.next();
  const port = { trino: null as never, opts: {}, stats: { queries: 0, widthMs: 0, endMs: 0 } };
  return {
    held: {
      queryId: 'q',
      columns: COLUMNS,
      rows: [],
      rest,
      port,
      relay: new AbortController(),
      startedMs,
      reach: { yielded: 2, sure: Infinity },
      consumed: 0,
    },
    source,
  };
}

const noSlot = { release: null, park: () => () => {} };
/** A limiter of one query per caller, eight in all; a query that does not fit waits `queueWaitMs`. */
const oneQueryEach = (queueWaitMs: number) =>
  new QueryLimiter({ concurrentQueries: 1, maxConcurrentQueries: 8, queuedQueries: 4, queueWaitMs });
const tick = () => new Promise((r) => setTimeout(r, 5));

async function drain(c: PageCutter): Promise<unknown[][]> {
  const out: unknown[][] = [];
  for await (const b of c.batches()) out.push(...(b as unknown[][]));
  return out;
}

describe('HeldResults', () => {
  it('hands a result out once, under its key only, with its slot', async () => {
    const cache = new HeldResults(4, 60_000);
    const { held } = await heldOf();
    const release = () => {};
    cache.hold('t1', held, { release, park: () => () => {} });
    expect(cache.take('t2')).toBeUndefined();
    expect(cache.take('t1')).toEqual({ result: held, release });
    expect(cache.take('t1')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('holds at most max results: the oldest is ended to make room', async () => {
    const cache = new HeldResults(2, 60_000);
    const [a, b, c] = [await heldOf(), await heldOf(), await heldOf()];
    cache.hold('a', a.held, noSlot);
    cache.hold('b', b.held, noSlot);
    cache.hold('c', c.held, noSlot);
    await tick();
    expect(cache.size).toBe(2);
    expect([a.source.closed, b.source.closed, c.source.closed]).toEqual([true, false, false]);
    expect(cache.take('a')).toBeUndefined();
    await cache.close();
    expect([b.source.closed, c.source.closed]).toEqual([true, true]);
  });

  it('ends a result after its time to live, and one too old to read on when it is asked for', async () => {
    let now = 0;
    const cache = new HeldResults(4, 1000, 20, () => now);
    const [a, b] = [await heldOf(0), await heldOf(0)];
    cache.hold('a', a.held, noSlot);
    await new Promise((r) => setTimeout(r, 60));
    expect(a.source.closed).toBe(true);
    expect(cache.take('a')).toBeUndefined();
    const late = new HeldResults(4, 1000, 60_000, () => now);
    late.hold('b', b.held, noSlot);
    now = 1001;
    expect(late.take('b')).toBeUndefined();
    await tick();
    expect(b.source.closed).toBe(true);
  });

  it("a held result keeps its caller's slot, parked: a query that needs the slot ends it", async () => {
    const limiter = oneQueryEach(50);
    const cache = new HeldResults(4, 60_000);
    const { held, source } = await heldOf();
    const release = await limiter.acquire('alice');
    cache.hold('t', held, { release, park: (evict) => limiter.park('alice', evict) });
    expect([limiter.active('alice'), limiter.parkedCount()]).toEqual([1, 1]);
    // Another caller fits beside it; alice's next query takes the parked slot at once.
    (await limiter.acquire('bob'))();
    expect(cache.size).toBe(1);
    const mine = await limiter.acquire('alice');
    await tick();
    expect([cache.size, source.closed, limiter.parkedCount(), limiter.active('alice')]).toEqual([0, true, 0, 1]);
    mine();
  });

  it('a query already waiting when a result is parked takes its slot, rather than wait out the queue', async () => {
    const limiter = oneQueryEach(60_000);
    const cache = new HeldResults(4, 60_000);
    const { held, source } = await heldOf();
    const release = await limiter.acquire('alice');
    // Queued behind the page's own query, before that query is left running for the next page.
    const waiting = limiter.acquire('alice');
    await tick();
    expect(limiter.waiting()).toBe(1);
    cache.hold('t', held, { release, park: (evict) => limiter.park('alice', evict) });
    const mine = await waiting;
    expect([cache.size, source.closed, limiter.parkedCount(), limiter.active('alice')]).toEqual([0, true, 0, 1]);
    mine();
  });

  it('a result taken out is unparked: its slot is no longer given up', async () => {
    const limiter = oneQueryEach(20);
    const cache = new HeldResults(4, 60_000);
    const { held } = await heldOf();
    cache.hold('t', held, { release: await limiter.acquire('alice'), park: (e) => limiter.park('alice', e) });
    const taken = cache.take('t')!;
    expect(limiter.parkedCount()).toBe(0);
    await expect(limiter.acquire('alice')).rejects.toMatchObject({ code: 'TG_TOO_MANY_REQUESTS' });
    taken.release!();
    expect(limiter.active('alice')).toBe(0);
  });
});

describe('PageCutter reading on', () => {
  it('hands over the rows after the page and its result, which is not ended', async () => {
    const source = inMemoryResult(COLUMNS, [rows(0, 4), rows(4, 8), rows(8, 12)]);
    const cutter = new PageCutter(source, 5, 1, undefined, true);
    expect(await drain(cutter)).toEqual(rows(0, 5));
    const rest = cutter.rest()!;
    expect(rest.rows).toEqual(rows(5, 8));
    expect([source.closed, source.pulled]).toEqual([false, 2]);
    expect((await rest.source.next()).value).toEqual(rows(8, 12));
  });

  it('hands nothing over for a last page, or for a page the client left (the result is ended)', async () => {
    const last = new PageCutter(inMemoryResult(COLUMNS, [rows(0, 4)]), 5, 1, undefined, true);
    expect(await drain(last)).toEqual(rows(0, 4));
    expect(last.rest()).toBeNull();
    const source = inMemoryResult(COLUMNS, [rows(0, 4), rows(4, 8), rows(8, 12)]);
    const left = new PageCutter(source, 5, 1, undefined, true);
    const it = left.batches();
    await it.next();
    await it.return(undefined);
    expect(left.rest()).toBeNull();
    expect(source.closed).toBe(true);
    const plain = inMemoryResult(COLUMNS, [rows(0, 4), rows(4, 8), rows(8, 12)]);
    const notReadOn = new PageCutter(plain, 5, 1);
    await drain(notReadOn);
    expect([notReadOn.rest(), plain.closed]).toEqual([null, true]);
  });

  it('pages read on are the pages queries from their positions read, with the same next positions', async () => {
    const all = rows(0, 30);
    let position = { h: 'x', m: 'anchor' as const, a: String(row(0)[1]), s: 0 } as Parameters<PageCutter['next']>[0];
    // Batches of 4: page ends fall inside batches and on their edges.
    const batches = Array.from({ length: 8 }, (_, k) => all.slice(4 * k, 4 * k + 4));
    let cutter = new PageCutter(inMemoryResult(COLUMNS, batches), 7, 1, undefined, true);
    const pages: unknown[][][] = [];
    let offset = 0;
    for (;;) {
      const got = await drain(cutter);
      const own = new PageCutter(inMemoryResult(COLUMNS, [all.slice(offset)]), 7, 1);
      expect(got).toEqual(await drain(own));
      const next = cutter.next(position);
      expect(next).toEqual(own.next(position));
      pages.push(got);
      offset += got.length;
      const rest = cutter.rest();
      if (!next) {
        expect(rest).toBeNull();
        break;
      }
      position = next;
      const source = { queryId: 'q', columns: COLUMNS, batches: { [Symbol.asyncIterator]: () => rest!.source } };
      cutter = new PageCutter(source, 7, 1, undefined, true, rest!.rows);
    }
    expect(pages.flat()).toEqual(all);
    expect(pages.map((p) => p.length)).toEqual([7, 7, 7, 7, 2]);
  });
});

/** One request's side of a page read on: its lease on `trino`, its port, and the signal its client going away aborts. */
function request(trino: FakeTrinoPort, limiter: QueryLimiter) {
  const gone = new AbortController();
  const lease = new QueryLease(trino, limiter, 'alice', gone.signal);
  const port: PortRef = { trino: lease, opts: {}, stats: { queries: 0, widthMs: 0, endMs: 0 } };
  return { lease, port, gone };
}

/**
 * A result read on in two slices through `ref`, as slicedResult runs them: the first slice's rows, then, once
 * `between` resolves (the first slice's last page arriving late), the second slice's query.
 */
function twoSlices(ref: PortRef, between: Promise<void>, second = 'slice 2'): Promise<HoldingResult> {
  const reach = { yielded: 0, sure: Infinity };
  return ref.trino.query('slice 1', ref.opts).then((first) => ({
    queryId: first.queryId,
    columns: first.columns,
    reach,
    batches: (async function* () {
      for await (const b of first.batches) yield b;
      await between;
      const next = await ref.trino.query(second, ref.opts);
      for await (const b of next.batches) yield b;
    })(),
  }));
}

describe('pageRead: a page reads on from the query the page before left running', () => {
  const opts = (token: string | undefined, signal: AbortSignal) => ({
    eligible: true,
    limit: 2,
    token,
    caller: 'alice',
    signal,
  });

  it('a slice query the held result starts after its request ended runs on the held slot; the next page adopts it', async () => {
    const trino = new FakeTrinoPort()
      .answer('slice 1', { columns: COLUMNS, batches: [rows(0, 3)] })
      .answer('slice 2', { columns: COLUMNS, batches: [rows(3, 6)] });
    const limiter = oneQueryEach(20);
    const held = new HeldResults(4, 60_000);
    let lateEnd = () => {};
    const between = new Promise<void>((r) => (lateEnd = r));
    const one = request(trino, limiter);
    const first = await pageRead(held, one.lease, one.port, opts(undefined, one.gone.signal), () =>
      twoSlices(one.port, between),
    );
    const page1 = new PageCutter(first.source, 2, 1, undefined, true, first.first);
    expect(await drain(page1)).toEqual(rows(0, 2));
    first.holdRest('t2', page1.rest()!);
    one.lease.end();
    // The first slice ends only now (its last page came late), and the second slice's query starts while held.
    lateEnd();
    await tick();
    expect(trino.queries.map((q) => q.sql)).toEqual(['slice 1', 'slice 2']);
    expect([limiter.active('alice'), limiter.parkedCount()]).toEqual([1, 1]);
    const two = request(trino, limiter);
    const second = await pageRead(held, two.lease, two.port, opts('t2', two.gone.signal), () => {
      throw new Error('the page reads on: it runs no query of its own');
    });
    expect(second.continued).toBe(true);
    const page2 = new PageCutter(second.source, 2, 1, undefined, true, second.first);
    expect(await drain(page2)).toEqual(rows(2, 4));
    expect([limiter.active('alice'), limiter.parkedCount()]).toEqual([1, 0]);
    two.lease.end();
    expect(limiter.active('alice')).toBe(0);
  });

  it('a held result that fails before the next page reads from it: that page runs its own query, on the slot', async () => {
    const trino = new FakeTrinoPort()
      .answer('slice 1', { columns: COLUMNS, batches: [rows(0, 3)] })
      .answer('broken', { columns: COLUMNS, batches: [], failWith: new Error('query cut in Trino') })
      .answer('fresh', { columns: COLUMNS, batches: [rows(2, 6)] });
    const limiter = oneQueryEach(20);
    const held = new HeldResults(4, 60_000);
    const one = request(trino, limiter);
    const first = await pageRead(held, one.lease, one.port, opts(undefined, one.gone.signal), () =>
      twoSlices(one.port, Promise.resolve(), 'broken'),
    );
    const page1 = new PageCutter(first.source, 2, 1, undefined, true, first.first);
    await drain(page1);
    first.holdRest('t2', page1.rest()!);
    one.lease.end();
    const two = request(trino, limiter);
    const second = await pageRead(held, two.lease, two.port, opts('t2', two.gone.signal), async () => {
      const r = await two.port.trino.query('fresh', two.port.opts);
      return { ...r, reach: { yielded: 0, sure: Infinity } };
    });
    expect(second.continued).toBe(false);
    expect(await drain(new PageCutter(second.source, 2, 1, undefined, true, second.first))).toEqual(rows(2, 4));
    // One slot throughout: the held one, adopted, ran the page's own query.
    expect([limiter.active('alice'), limiter.parkedCount(), held.size]).toEqual([1, 0, 0]);
    two.lease.end();
    expect(limiter.active('alice')).toBe(0);
  });
});
