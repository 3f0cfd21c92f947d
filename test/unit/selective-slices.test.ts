/**
 * Selective reads answer in one query: a key equality (which VAST evaluates in the scan) reads the rest of the window
 * as one slice instead of a widening series, the latest events (descending) are one query, and a read whose slice
 * returned far fewer rows than missing aims its next slice at them (page-slicing.ts, sliced-result.ts). Queries are
 * counted through a fake Trino port that answers each slice with the rows its range holds.
 */
import { describe, expect, it } from 'vitest';
import type { ColumnNode, PredicateNode } from '../../src/query/tree/nodes.js';
import type { OrderSpec } from '../../src/query/tree/read-specs.js';
import { plan, type PlannedRead } from '../../src/query/planner.js';
import { nextSliceWidth, selectiveFilter } from '../../src/query/passes/page-slicing.js';
import type { SlicePlan } from '../../src/query/tree/plan.js';
import { openResult } from '../../src/read/sliced-result.js';
import { batchLength } from '../../src/core/text-rows.js';
import { json, table, topicOf } from '../cases/columns.js';
import { testPolicy } from '../cases/read-policy.js';
import { FakeTrinoPort } from '../fakes/fake-trino-port.js';

const KEY = table('key', 'varbinary');
const TIME = table('timestamp_broker', 'timestamp(3)');
const STATUS = json('status', 'varchar');
const topic = topicOf([KEY, table('value', 'varbinary'), TIME], 'clicks', { expanded: [STATUS] });
const NOW = Date.parse('2026-12-01T00:00:00.000Z');
const MONTH = { since: '2026-11-01T00:00:00Z', until: '2026-12-01T00:00:00Z' };
const LO = Date.parse(MONTH.since);
const HI = Date.parse(MONTH.until);

const bytes = (s: string) => ({
  kind: 'literal' as const,
  type: 'varbinary',
  value: { t: 'varbinary' as const, v: Buffer.from(s) },
});
const eq = (column: ColumnNode, v: string): PredicateNode => ({ kind: 'compare', op: 'eq', column, value: bytes(v) });
const KEY_EQ = eq(KEY, 'u17');
const KEY_NEQ: PredicateNode = { kind: 'compare', op: 'neq', column: KEY, value: bytes('u17') };
const RESIDUAL: PredicateNode = {
  kind: 'compare',
  op: 'eq',
  column: STATUS,
  value: { kind: 'literal', type: 'varchar', value: { t: 'varchar', v: 'paid' } },
};

const BOUND = /"timestamp_broker" (>=|<) TIMESTAMP '([^']+)'/g;
const LIMIT = /LIMIT (\d+)\s*$/;
const ms = (text: string) => Date.parse(`${text.replace(' ', 'T')}Z`);

/**
 * A port whose topic holds `events` rows spread evenly over the month: each query gets the rows its range holds (a
 * first slice bounded by the anchor's `>=` alone starts at the window's start), at most its LIMIT.
 */
function evenPort(events: number): FakeTrinoPort {
  const trino = new FakeTrinoPort();
  const query = trino.query.bind(trino);
  trino.query = async (sql, opts) => {
    // The slice's range is the narrowest of its bounds and the window's.
    const bounds = [...sql.matchAll(BOUND)];
    const from = Math.max(LO, ...bounds.filter((b) => b[1] === '>=').map((b) => ms(b[2]!)));
    const to = Math.min(HI, ...bounds.filter((b) => b[1] === '<').map((b) => ms(b[2]!)));
    const held = Math.floor(((to - LO) / (HI - LO)) * events) - Math.floor(((from - LO) / (HI - LO)) * events);
    const n = Math.min(held, Number(LIMIT.exec(sql)?.[1] ?? Infinity));
    const rows = Array.from({ length: n }, (_, i) => [
      'u17',
      `2026-11-01 00:00:00.${String(i % 1000).padStart(3, '0')}`,
    ]);
    trino.answer(sql, { columns: [], batches: n > 0 ? [rows] : [] });
    return query(sql, opts);
  };
  return trino;
}

function read(where: PredicateNode | null, extra: { order?: OrderSpec[] } = {}): PlannedRead {
  const r = { where, ...MONTH, limit: 100, select: ['key', 'timestamp_broker'], ...extra };
  return plan({ kind: 'read', topic, read: r, token: null }, testPolicy(), NOW);
}

/** Reads the page's rows (limit + 1) as open-page.ts does, held or not; returns rows and the queries run. */
async function page(p: PlannedRead, events: number, holding: boolean) {
  const trino = evenPort(events);
  const stats = { queries: 0, widthMs: 0, endMs: 0 };
  const result = await openResult({ trino, opts: {}, stats }, p, holding);
  let rows = 0;
  for await (const b of result.batches) {
    rows += batchLength(b);
    if (rows >= p.tree.limit + 1) break;
  }
  return { rows, queries: trino.queries.length, stats };
}

describe('selective reads', () => {
  it.each([false, true])('the first 100 events of one key over a month: one query (held: %s)', async (holding) => {
    const p = read(KEY_EQ);
    expect(p.slices).toMatchObject({ fromMs: LO, hi: HI, widthMs: HI - LO });
    // 200 events of the key in the month: a slice of 1/64 of it held 3, and the doubling series ran 4 queries.
    const r = await page(p, 200, holding);
    expect(r.rows).toBeGreaterThanOrEqual(101);
    expect(r.queries).toBe(1);
  });

  it('the latest 100 events of one key (descending broker time): one query over the window', async () => {
    const p = read(KEY_EQ, { order: [{ field: 'timestamp_broker', dir: 'desc' }] });
    expect(p.slices).toBeNull();
    const r = await page(p, 200, true);
    expect(r.queries).toBe(1);
    expect(p.sql()).toMatch(/ORDER BY "timestamp_broker" DESC.*LIMIT 101$/s);
  });

  it('a sparse read that is not selective: the slice after a short one aims at the missing rows', async () => {
    // A key inequality matching 600 events of the month: the first slice (1/64) holds 9 of the 101 asked for, and
    // 1.25 x 92/9 times its width holds the rest; growing by 4 took two more.
    const r = await page(read(KEY_NEQ), 600, false);
    expect(r.rows).toBe(101);
    expect(r.queries).toBe(2);
  });

  it('a dense read keeps its slices as they were: the first holds the page', async () => {
    const r = await page(read(null), 1_000_000, true);
    expect(r.queries).toBe(1);
    expect(r.stats.widthMs).toBe(Math.ceil((HI - LO) / 64) * 5);
  });
});

describe('a cursor batch', () => {
  const batch = (where: PredicateNode | null) =>
    plan(
      { kind: 'batch', topic, read: { where }, from: { ts: '2026-11-01 00:00:00.000', skip: 0 }, untilMs: HI },
      testPolicy(),
      NOW,
    );
  it('with a key equality: the rest of its window as one slice', () => {
    expect(batch(KEY_EQ).slices).toMatchObject({ fromMs: LO, hi: HI, widthMs: HI - LO });
  });
  it('otherwise: an eighth of it, growing by 4', () => {
    expect(batch(KEY_NEQ).slices).toMatchObject({ fromMs: LO, widthMs: (HI - LO) / 8, growth: 4 });
  });
});

describe('selectiveFilter', () => {
  const list = (n: number): PredicateNode => ({
    kind: 'in',
    column: KEY,
    values: Array.from({ length: n }, (_, i) => bytes(`k${i}`)),
  });
  it.each<[string, PredicateNode | null, boolean]>([
    ['no filter', null, false],
    ['key equality', KEY_EQ, true],
    ['key equality ANDed with a residual filter', { kind: 'and', items: [RESIDUAL, KEY_EQ] }, true],
    ['key inequality', KEY_NEQ, false],
    ['a short key IN list', list(3), true],
    ['a long key IN list', list(17), false],
    ['an empty IN list', list(0), false],
    ['broker time equality', { ...KEY_EQ, column: TIME } as PredicateNode, false],
    ['a JSON field equality (evaluated after the scan)', RESIDUAL, false],
    ['an OR of key equalities', { kind: 'or', items: [KEY_EQ, eq(KEY, 'u18')] }, false],
  ])('%s: %s', (_name, where, selective) => {
    expect(selectiveFilter(where)).toBe(selective);
  });
});

describe('nextSliceWidth', () => {
  const slices: SlicePlan = { time: TIME, fromMs: 0, hi: 1e12, widthMs: 10, growth: 4 };
  it.each([
    ['nothing missing: the plan growth', { widthMs: 10, got: 5, missing: 0 }, 40],
    ['all rows wanted (a held read past its page): the plan growth', { widthMs: 10, got: 5, missing: Infinity }, 40],
    ['a slice that held most of what is missing: at least the plan growth', { widthMs: 10, got: 90, missing: 20 }, 40],
    ['a short slice: as wide as its density says, a quarter more', { widthMs: 10, got: 10, missing: 90 }, 113],
    ['an empty slice: growth squared', { widthMs: 10, got: 0, missing: 90 }, 160],
    ['a nearly empty slice: at most 64 times', { widthMs: 10, got: 1, missing: 1000 }, 640],
  ])('%s', (_name, last, width) => {
    expect(nextSliceWidth(slices, last)).toBe(width);
  });
});
