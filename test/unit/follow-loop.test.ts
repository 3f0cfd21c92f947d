/**
 * A follower's poll loop (read/follow/follow-loop.ts) over a fake Trino port holding one topic table: it delivers
 * every event once, in order, resumes exactly after any event (ties and identical duplicates included), asks Trino
 * only for what lies between its position and now minus settle, holds a query slot only while a poll runs, polls
 * no more while the client has not taken what was written, and cancels its query when the client goes away.
 */
import { describe, expect, it } from 'vitest';
import { limitsOf } from '../../src/config/access-schema.js';
import type { FollowPoint } from '../../src/query/follow/follow-ids.js';
import { FollowPlanner } from '../../src/query/follow/follow-plan.js';
import { trinoTimestampText } from '../../src/core/trino-timestamp.js';
import { followLoop, type FollowItem } from '../../src/read/follow/follow-loop.js';
import { HeldResults } from '../../src/read/held-results.js';
import { openPage } from '../../src/read/open-page.js';
import { QueryLease } from '../../src/access/query-lease.js';
import { QueryLimiter } from '../../src/access/query-limiter.js';
import { table, topicOf } from '../cases/columns.js';
import { testPolicy } from '../cases/read-policy.js';
import { TopicTrino } from '../fakes/topic-trino.js';
import { GatewayMemory } from '../../src/read/gateway-memory.js';

/** An account and a look-ahead nothing here reaches. */
const roomy = () => ({ memory: new GatewayMemory(2 ** 40).account(), lookAheadBytes: 2 ** 40 });

const topic = topicOf([table('key', 'varbinary'), table('timestamp_broker', 'timestamp(3)')]);
const T0 = Date.parse('2026-11-30T08:00:00.000Z');
const SETTLE_MS = 2_000;
const at = (ms: number) => trinoTimestampText(T0 + ms);

/** A follow over `trino`, its clock `clock.now`, `limit` rows a poll; `drained` says whether the client took all. */
function follower(trino: TopicTrino, o: { limit?: number; start?: FollowPoint; select?: string[] } = {}) {
  const clock = { now: T0 + 60_000 };
  const policy = testPolicy({ maxLimit: o.limit ?? 1000 });
  const read = { where: null, since: new Date(T0).toISOString(), select: o.select };
  const planner = new FollowPlanner({ topic, read, policy, settleMs: SETTLE_MS }, null, clock.now);
  const limiter = new QueryLimiter(limitsOf({ concurrentQueries: 1, queueWaitMs: 5 }));
  const client = new AbortController();
  const lease = new QueryLease(trino, limiter, 'alice', client.signal);
  const state = { drained: true, busy: 0 };
  const ctx = { config: { topics: {}, queryTimeoutMs: 60_000, prefetchRows: 0 }, registry: undefined };
  const pageOptions = { paged: false, caller: 'alice', topic: 't', decode: false, bytesAsHex: true };
  const items = followLoop({
    start: o.start ?? planner.start,
    poll: (from, now, width) => planner.poll(from, now, width),
    open: (plan, trino) =>
      openPage({ ...ctx, ...roomy(), held: new HeldResults(0, 1000), trino, signal: client.signal }, plan, {
        ...pageOptions,
        flattensDecoded: false,
      }),
    trino: lease,
    pollMs: 1,
    drained: () => state.drained,
    hiddenTime: planner.hiddenTime,
    signal: client.signal,
    now: () => clock.now,
    onBusy: () => void state.busy++,
  });
  return { items, clock, limiter, client, state, planner };
}

/** Takes items until `n` rows came (each row with its key text and the position after it). */
async function take(items: AsyncGenerator<FollowItem>, n: number) {
  const rows: { key: string; point: FollowPoint; row: readonly unknown[] }[] = [];
  while (rows.length < n) {
    const r = await items.next();
    if (r.done) break;
    if (r.value.kind !== 'rows') continue;
    const { points } = r.value;
    for (const [i, row] of r.value.rows.entries()) {
      rows.push({ key: Buffer.from(String(row[0]), 'base64').toString(), point: points[i]!, row });
    }
  }
  return rows;
}

/** A topic with runs of tied events and identical duplicates, in broker-time then key order. */
function tiedTopic(): { trino: TopicTrino; keys: string[] } {
  const trino = new TopicTrino();
  const events: [string, number][] = [
    ['a', 0],
    ['b', 0],
    ['b', 0],
    ['c', 0],
    ['a', 5],
    ['a', 7],
    ['a', 7],
    ['a', 7],
    ['b', 7],
    ['c', 9],
    ['d', 9],
  ];
  for (const [k, ms] of events) trino.append(k, at(ms));
  return { trino, keys: events.map(([k]) => k) };
}

describe('a follower', () => {
  it('delivers every event once, in order, and resumes exactly after any of them', async () => {
    const { trino, keys } = tiedTopic();
    // Three rows a poll: polls end inside runs of ties.
    const f = follower(trino, { limit: 3 });
    const all = await take(f.items, keys.length);
    expect(all.map((r) => r.key)).toEqual(keys);
    await f.items.return();
    for (let k = 0; k < keys.length; k++) {
      const again = follower(trino, { limit: 3, start: all[k]!.point });
      const rest = await take(again.items, keys.length - k - 1);
      expect(
        rest.map((r) => r.key),
        `resumed after event ${k}`,
      ).toEqual(keys.slice(k + 1));
      await again.items.return();
    }
  });

  it('asks only for what has settled, and sees events appended later', async () => {
    const trino = new TopicTrino();
    trino.append('a', at(1_000));
    const f = follower(trino);
    f.clock.now = T0 + 5_000;
    expect((await take(f.items, 1)).map((r) => r.key)).toEqual(['a']);
    // Appended now: settled only once the clock has passed it by the settle time. Until then there is nothing
    // after the position to ask Trino for.
    trino.append('b', at(4_000));
    trino.append('c', at(4_000));
    const seen = trino.queries.length;
    const next = take(f.items, 2);
    await new Promise((r) => setTimeout(r, 20));
    expect(trino.queries.length).toBe(seen);
    f.clock.now = T0 + 6_001;
    expect((await next).map((r) => r.key)).toEqual(['b', 'c']);
    expect(trino.uppers.length).toBeGreaterThan(1);
    for (const upper of trino.uppers) expect(upper <= trinoTimestampText(T0 + 6_001 - SETTLE_MS)).toBe(true);
    await f.items.return();
  });

  it('leaves out the broker time it added to position the events', async () => {
    const { trino } = tiedTopic();
    const f = follower(trino, { select: ['key'] });
    expect(f.planner.hiddenTime).toBe(true);
    const [first] = await take(f.items, 1);
    expect(first!.row).toHaveLength(1);
    expect(first!.point).toEqual({ ts: at(0), skip: 1 });
    await f.items.return();
  });

  it('holds a query slot only while a poll runs', async () => {
    const { trino } = tiedTopic();
    const f = follower(trino);
    await take(f.items, 11);
    // The poll read to its end; between polls the caller's slot is free.
    await f.items.next(); // the horizon
    expect(f.limiter.active('alice')).toBe(0);
    await f.items.return();
  });

  it('polls no more while the client has not taken what was written', async () => {
    const trino = new TopicTrino();
    trino.append('a', at(0));
    const f = follower(trino);
    await take(f.items, 1);
    await f.items.next(); // the horizon after the poll
    f.state.drained = false;
    f.clock.now += 1_000; // more has settled
    const queries = trino.queries.length;
    const waiting = f.items.next();
    await new Promise((r) => setTimeout(r, 30));
    expect(trino.queries.length).toBe(queries);
    f.state.drained = true;
    await waiting;
    expect(trino.queries.length).toBe(queries + 1);
    await f.items.return();
  });

  it('cancels the running query when the client goes away, and frees its slot', async () => {
    const { trino } = tiedTopic();
    let open!: () => void;
    trino.gate = new Promise((r) => (open = r));
    const f = follower(trino);
    await f.items.next(); // the start
    const pending = f.items.next();
    await new Promise((r) => setTimeout(r, 10));
    expect(trino.queries).toHaveLength(1);
    f.client.abort(new Error('the client went away'));
    open();
    await expect(pending).rejects.toThrow();
    expect(trino.queries[0]!.cancelled).toBe(true);
    await new Promise((r) => setTimeout(r, 10));
    expect(f.limiter.active('alice') + f.limiter.endingCount('alice')).toBe(0);
  });

  it('waits for the next interval when the caller has no free query slot', async () => {
    const { trino } = tiedTopic();
    const f = follower(trino);
    const busy = await f.limiter.acquire('alice');
    await f.items.next(); // the start
    const first = take(f.items, 1);
    await new Promise((r) => setTimeout(r, 30));
    expect(trino.queries).toHaveLength(0);
    expect(f.state.busy).toBeGreaterThan(0);
    busy();
    expect((await first)[0]!.key).toBe('a');
    await f.items.return();
  });
});
