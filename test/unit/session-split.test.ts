/**
 * A read session's split (query/passes/session-split.ts): cuts at whole, strictly increasing milliseconds that
 * tile the window, balanced by the counted rows; a millisecond holding many rows is never cut; the count query.
 */
import { describe, expect, it } from 'vitest';
import {
  COUNT_BUCKETS,
  bucketCountTree,
  countBucketMs,
  defaultStreams,
  splitWindow,
  type BucketCount,
  type StreamRange,
} from '../../src/query/passes/session-split.js';
import { compileQuery } from '../../src/query/sql/compile-query.js';
import type { ColumnNode, QueryNode } from '../../src/query/tree/nodes.js';

/** Every range is whole ms, half-open and adjacent, from lo to hi. */
function expectTiles(ranges: StreamRange[], lo: number, hi: number) {
  expect(ranges[0]!.since).toBe(lo);
  expect(ranges.at(-1)!.until).toBe(hi);
  for (const [i, r] of ranges.entries()) {
    expect(Number.isInteger(r.since) && Number.isInteger(r.until) && r.until > r.since).toBe(true);
    if (i > 0) expect(r.since).toBe(ranges[i - 1]!.until);
  }
}

/** Which range holds instant t: exactly one. */
const holding = (ranges: StreamRange[], t: number) => ranges.filter((r) => r.since <= t && t < r.until);

describe('splitWindow', () => {
  it('uniform counts: equal widths, equal estimates', () => {
    const counts = Array.from({ length: 10 }, (_, i) => ({ startMs: i * 100, rows: 50 }));
    const ranges = splitWindow({ lo: 0, hi: 1000 }, 100, counts, 4);
    expectTiles(ranges, 0, 1000);
    expect(ranges.map((r) => [r.since, r.until, r.estimatedRows])).toEqual([
      [0, 250, 125],
      [250, 500, 125],
      [500, 750, 125],
      [750, 1000, 125],
    ]);
  });

  it('skewed counts: cuts where the rows are, so the estimates balance', () => {
    // Nine tenths of the rows in the last tenth of the window.
    const counts: BucketCount[] = [
      { startMs: 0, rows: 100 },
      { startMs: 900, rows: 900 },
    ];
    const ranges = splitWindow({ lo: 0, hi: 1000 }, 100, counts, 4);
    expectTiles(ranges, 0, 1000);
    // Within one millisecond's rows (9 there) of an equal share: cuts are whole milliseconds.
    for (const r of ranges) expect(Math.abs(r.estimatedRows - 250)).toBeLessThanOrEqual(9);
    expect(ranges[1]!.since).toBeGreaterThan(900);
  });

  it('buckets outside the window, epoch-aligned before lo, are clipped', () => {
    const ranges = splitWindow(
      { lo: 50, hi: 250 },
      100,
      [
        { startMs: 0, rows: 10 },
        { startMs: 200, rows: 10 },
      ],
      2,
    );
    expectTiles(ranges, 50, 250);
    expect(ranges.reduce((a, r) => a + r.estimatedRows, 0)).toBe(20);
  });

  it('no rows counted: equal widths', () => {
    const ranges = splitWindow({ lo: 1000, hi: 2000 }, 1, [], 3);
    expect(ranges.map((r) => [r.since, r.until, r.estimatedRows])).toEqual([
      [1000, 1333, 0],
      [1333, 1666, 0],
      [1666, 2000, 0],
    ]);
  });

  it('never more streams than milliseconds; a tied millisecond is held by exactly one stream', () => {
    // All rows at one millisecond: every cut would like to be there.
    const ranges = splitWindow({ lo: 10, hi: 15 }, 1, [{ startMs: 12, rows: 1000 }], 16);
    expect(ranges).toHaveLength(5);
    expectTiles(ranges, 10, 15);
    expect(holding(ranges, 12)).toHaveLength(1);
    expect(holding(ranges, 12)[0]!.estimatedRows).toBe(1000);
  });

  it('a dense millisecond among sparse ones: strictly increasing cuts, each row counted once', () => {
    const counts = [
      { startMs: 0, rows: 1 },
      { startMs: 500, rows: 10_000 },
      { startMs: 999, rows: 1 },
    ];
    const ranges = splitWindow({ lo: 0, hi: 1000 }, 1, counts, 8);
    expectTiles(ranges, 0, 1000);
    expect(ranges.reduce((a, r) => a + r.estimatedRows, 0)).toBe(10_002);
    expect(holding(ranges, 500)).toHaveLength(1);
  });

  it('refuses an empty window (a planner defect, never a request)', () => {
    expect(() => splitWindow({ lo: 5, hi: 5 }, 1, [], 1)).toThrow();
  });
});

describe('counts and defaults', () => {
  it('bucket width: at most COUNT_BUCKETS buckets, at least 1 ms', () => {
    expect(countBucketMs(0, 10)).toBe(1);
    expect(countBucketMs(0, 86_400_000)).toBe(Math.ceil(86_400_000 / COUNT_BUCKETS));
  });

  it('default streams: one per million rows, at least one, at most the cap', () => {
    expect([defaultStreams(0, 64), defaultStreams(999_999, 64), defaultStreams(2_000_001, 64)]).toEqual([1, 1, 3]);
    expect(defaultStreams(10 ** 9, 64)).toBe(64);
  });

  it('the count query: the read tree grouped by epoch-aligned buckets, nothing else', () => {
    const time: ColumnNode = {
      kind: 'column',
      name: 'timestamp_broker',
      type: 'timestamp(3)',
      source: { kind: 'table' },
    };
    const key: ColumnNode = { kind: 'column', name: 'key', type: 'varbinary', source: { kind: 'table' } };
    const q: QueryNode = {
      kind: 'query',
      source: { kind: 'source', catalog: 'vast', schema: 's', table: 't', topicKind: 'topic', columns: [key, time] },
      select: [{ kind: 'select-column', column: key, as: 'key' }],
      where: { kind: 'is', column: key, what: 'not_null' },
      groupBy: [],
      order: [{ name: 'timestamp_broker', dir: 'asc' }],
      limit: Infinity,
      offset: 0,
      dedupe: null,
      totalOrder: true,
    };
    expect(compileQuery(bucketCountTree(q, time, 250))).toBe(
      `SELECT date_add('millisecond', -mod(to_milliseconds("timestamp_broker" - TIMESTAMP '1970-01-01 00:00:00.000'), 250), "timestamp_broker") AS "bucket", count(*) AS "n" FROM "vast"."s"."t" WHERE "key" IS NOT NULL GROUP BY 1`,
    );
  });
});
