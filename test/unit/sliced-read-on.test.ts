/**
 * A sliced page read on (sliced-result.ts, issue 12): its first slice ten pages wide, each slice asking for twice
 * the rows its width should hold (a bounded top-N in Trino however dense the slice), the slices after it as many
 * times wider as the plan grows them; a slice that returns every row it asked for may hold more, so the result
 * stops there and says so (reach.sure), while the window's end is a sure end.
 */
import { describe, expect, it } from 'vitest';
import { limitsOf } from '../../src/access/access-schema.js';
import type { TopicModel } from '../../src/query/plan.js';
import { plan, type ReadPolicy } from '../../src/query/planner.js';
import { READ_ON_PAGES } from '../../src/read/read-ahead.js';
import { slicedResult } from '../../src/read/sliced-result.js';
import { table } from '../cases/columns.js';
import { FakeTrinoPort } from '../fakes/fake-trino-port.js';

const COLUMNS = [table('key', 'varbinary'), table('timestamp_broker', 'timestamp(3)')];
const topic: TopicModel = {
  id: 't',
  source: { kind: 'source', catalog: 'vast', schema: 's', table: 't', topicKind: 'topic', columns: COLUMNS },
  columns: new Map(COLUMNS.map((c) => [c.name, c])),
  time: COLUMNS[1]!,
};
const POLICY: ReadPolicy = {
  caps: limitsOf(undefined),
  trino: { impersonate: false, session: {}, clientTags: [] },
  rows: { filter: null, principal: 'anonymous' },
  defaultLimit: 100,
  maxLimit: 1000,
  batchDefaultLimit: 1000,
  gatewayMaxRows: 1000,
  guardrail: { maxWindowMs: 7 * 86_400_000, allowFullScan: false, complexPredicates: false },
  parallel: { default: 1, max: 4 },
  infer: { defaultSample: 1000, maxSample: 5000, defaultWindowMs: 86_400_000, maxWindowMs: 86_400_000 },
};
const NOW = Date.parse('2026-11-30T08:00:00.000Z');
const page = plan(
  {
    kind: 'read',
    topic,
    read: { where: null, since: '2026-11-30T00:00:00Z', until: '2026-11-30T04:00:00Z', limit: 9 },
    token: null,
  },
  POLICY,
  NOW,
);
const rows = (n: number) => Array.from({ length: n }, (_, i) => ['k', `2026-11-30 00:00:00.${i}`]);
const LIMIT = /LIMIT (\d+)\s*$/;

/** Answers each query with `count(limit)` rows (what its slice holds, at most its LIMIT). */
function port(count: (limit: number, query: number) => number) {
  const trino = new FakeTrinoPort();
  const query = trino.query.bind(trino);
  trino.query = async (sql, opts) => {
    const limit = Number(LIMIT.exec(sql)?.[1] ?? Infinity);
    trino.answer(sql, { columns: [], batches: [rows(Math.min(limit, count(limit, trino.queries.length)))] });
    return query(sql, opts);
  };
  return trino;
}

async function drain(trino: FakeTrinoPort) {
  const stats = { queries: 0, widthMs: 0, endMs: 0 };
  const result = await slicedResult({ trino, opts: {}, stats }, { ...page, slices: page.slices! }, true);
  let n = 0;
  for await (const b of result.batches) n += b.length;
  const limits = trino.queries.map((q) => Number(LIMIT.exec(q.sql)?.[1]));
  return { n, reach: result.reach, limits, stats };
}

describe('a sliced page read on', () => {
  it('asks its first slice for twice ten pages and grows the ask with the slices', async () => {
    expect(page.slices).toBeTruthy();
    const first = 2 * READ_ON_PAGES * 10;
    const growth = page.slices!.growth;
    // Every slice holds half of what it asks for: never cut, read to the window's end.
    const r = await drain(port((limit) => Math.floor(limit / 2)));
    expect(r.limits[0]).toBe(first);
    expect(r.limits[1]).toBe(first * growth);
    expect(r.reach).toEqual({ yielded: r.n, sure: Infinity });
    expect(r.stats.queries).toBe(r.limits.length);
  });

  it('stops after a slice that returned all it asked for: its end is not sure', async () => {
    // The second slice is as dense as its ask.
    const r = await drain(port((limit, i) => (i === 1 ? limit : Math.floor(limit / 2))));
    expect(r.limits).toHaveLength(2);
    expect(r.n).toBe(r.limits[0]! / 2 + r.limits[1]!);
    expect(r.reach).toEqual({ yielded: r.n, sure: r.n });
  });

  it('while a slice is read, its end is sure only up to what it asked for', async () => {
    const stats = { queries: 0, widthMs: 0, endMs: 0 };
    const trino = port((limit) => limit);
    const result = await slicedResult({ trino, opts: {}, stats }, { ...page, slices: page.slices! }, true);
    expect(result.reach).toEqual({ yielded: 0, sure: 2 * READ_ON_PAGES * 10 });
  });
});
