/**
 * A sliced page read on (sliced-result.ts): its first slice asks for ten pages (a bounded top-N in Trino
 * however dense the slice) and the slices after it for all their rows; a first slice that returns every row it
 * asked for may hold more, so the result stops there and says so (reach.sure), while the window's end is sure.
 */
import { describe, expect, it } from 'vitest';
import { plan } from '../../src/query/planner.js';
import { HELD_PAGES, slicedResult } from '../../src/read/sliced-result.js';
import { table, topicOf } from '../cases/columns.js';
import { testPolicy } from '../cases/read-policy.js';
import { FakeTrinoPort } from '../fakes/fake-trino-port.js';
import { batchLength } from '../../src/core/text-rows.js';

const COLUMNS = [table('key', 'varbinary'), table('timestamp_broker', 'timestamp(3)')];
const topic = topicOf(COLUMNS);
const NOW = Date.parse('2026-11-30T08:00:00.000Z');
const page = plan(
  {
    kind: 'read',
    topic,
    read: { where: null, since: '2026-11-30T00:00:00Z', until: '2026-11-30T04:00:00Z', limit: 9 },
    token: null,
  },
  testPolicy(),
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
  for await (const b of result.batches) n += batchLength(b);
  const limits = trino.queries.map((q) => Number(LIMIT.exec(q.sql)?.[1]));
  return { n, reach: result.reach, limits, stats };
}

describe('a sliced page read on', () => {
  it('asks its first slice for ten pages and the slices after it for all their rows, to the window end', async () => {
    expect(page.slices).toBeTruthy();
    // The first slice holds half of what it asks for, the others 30 rows each: read to the window's end.
    const r = await drain(port((limit) => (limit === Infinity ? 30 : Math.floor(limit / 2))));
    expect(r.limits[0]).toBe(HELD_PAGES * 10);
    expect(r.limits.length).toBeGreaterThan(2);
    expect(r.limits.slice(1).every(Number.isNaN)).toBe(true); // no LIMIT
    expect(r.n).toBe(HELD_PAGES * 5 + 30 * (r.limits.length - 1));
    expect(r.reach).toEqual({ yielded: r.n, sure: Infinity });
    expect(r.stats.queries).toBe(r.limits.length);
  });

  it('stops after a first slice that returned all it asked for: its end is not sure', async () => {
    const r = await drain(port((limit) => (limit === Infinity ? 30 : limit)));
    expect(r.limits).toHaveLength(1);
    expect(r.reach).toEqual({ yielded: HELD_PAGES * 10, sure: HELD_PAGES * 10 });
  });

  it('while the first slice is read, its end is sure only up to what it asked for', async () => {
    const stats = { queries: 0, widthMs: 0, endMs: 0 };
    const trino = port((limit) => limit);
    const result = await slicedResult({ trino, opts: {}, stats }, { ...page, slices: page.slices! }, true);
    expect(result.reach).toEqual({ yielded: 0, sure: HELD_PAGES * 10 });
  });
});
