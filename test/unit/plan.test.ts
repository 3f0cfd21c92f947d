/**
 * The planner and its policy passes (STYLE.md habit 4): each pass is a pure (tree) -> tree function tested alone
 * on a hand-built tree; then planReadTree's refusals and the page position it chooses.
 */
import { describe, expect, it } from 'vitest';
import type { ColumnNode, LiteralNode, PredicateNode, QueryNode } from '../../src/query/tree/nodes.js';
import type { PagePosition } from '../../src/query/tree/page-position.js';
import { applyLimit } from '../../src/query/passes/limit.js';
import { applyPaging } from '../../src/query/passes/page-anchor.js';
import { applyTimeWindow } from '../../src/query/passes/time-window.js';
import { planReadTree } from '../../src/query/plan-read-tree.js';
import type { ReadRequest } from '../../src/query/tree/read-request.js';
import type { TopicModel } from '../../src/query/tree/topic-model.js';
import { table, topicOf } from '../cases/columns.js';
import { apiError } from '../cases/api-error.js';

const TOPIC_COLUMNS = [
  table('key', 'varbinary'),
  table('value', 'varbinary'),
  table('timestamp_broker', 'timestamp(3)'),
  table('timestamp_producer', 'timestamp(3)'),
  table('headers', 'array(row(key varchar, value varbinary))'),
];
const AMOUNT: ColumnNode = {
  kind: 'column',
  name: 'amount',
  type: 'decimal(12,2)',
  source: { kind: 'json', from: 'value', path: ['amount'] },
};
const NAME: ColumnNode = {
  kind: 'column',
  name: 'name',
  type: 'varchar',
  source: { kind: 'json', from: 'value', path: ['name'] },
};
const orders: TopicModel = topicOf(TOPIC_COLUMNS, 'orders', { expanded: [AMOUNT, NAME], schema: 'demo|kafka_topics' });
const ITEM_COLUMNS = [table('id', 'bigint'), table('price', 'decimal(12,2)')];
const items: TopicModel = topicOf(ITEM_COLUMNS, 'items', { kind: 'table' });
const TIME = orders.time!;
const POLICY = { defaultLimit: 100, maxLimit: 1000 };
const NOW = Date.parse('2026-11-30T08:00:00.000Z');

const ts = (epochMs: number, subMs = '', column = TIME): LiteralNode => ({
  kind: 'literal',
  type: column.type,
  value: { t: 'timestamp', epochMs, subMs },
});
const KEY_NULL: PredicateNode = { kind: 'is', column: TOPIC_COLUMNS[0]!, what: 'null' };
const KEY_NOT_NULL: PredicateNode = { kind: 'not', inner: KEY_NULL };

/** A tree as planReadTree builds it before the passes, frozen so a pass that mutates its input throws. */
function tree(over: Partial<QueryNode> = {}): QueryNode {
  return Object.freeze({
    kind: 'query',
    source: orders.source,
    select: [{ kind: 'select-column', column: TIME, as: 'timestamp_broker' }],
    where: null,
    groupBy: [],
    order: [{ name: 'timestamp_broker', dir: 'asc', column: TIME }],
    limit: 0,
    offset: 0,
    dedupe: null,
    totalOrder: true,
    ...over,
  } satisfies QueryNode);
}

describe('applyLimit', () => {
  const OK: [number | undefined, number][] = [
    [undefined, 100],
    [1, 1],
    [999, 999],
    [1000, 1000],
  ];
  it.each(OK)('requested %j -> limit %j, nothing else changes', (requested, limit) => {
    const q = tree();
    expect(applyLimit(q, POLICY, requested)).toEqual({ ...q, limit });
  });

  it('more than the maximum is TG_TOO_EXPENSIVE (422), naming the maximum', () => {
    const e = apiError(() => applyLimit(tree(), POLICY, 1001));
    expect([e.code, e.status, e.message, e.details]).toEqual([
      'TG_TOO_EXPENSIVE',
      422,
      'limit 1001 is above the maximum 1000; page with cursors',
      { parameter: 'limit', max: 1000 },
    ]);
  });

  it('a default above the maximum is refused too (the policy is checked, not trusted)', () => {
    expect(apiError(() => applyLimit(tree(), { defaultLimit: 50, maxLimit: 10 })).code).toBe('TG_TOO_EXPENSIVE');
  });

  it.each([0, -1, 1.5, Number.NaN, Infinity])('limit %j is TG_BAD_VALUE', (requested) => {
    const e = apiError(() => applyLimit(tree(), POLICY, requested));
    expect([e.code, e.status, e.details]).toEqual(['TG_BAD_VALUE', 400, { parameter: 'limit' }]);
    expect(e.message).toBe(`limit must be a positive integer, not ${JSON.stringify(requested)}`);
  });
});

describe('applyTimeWindow', () => {
  const lo = Date.parse('2026-11-30T07:00:00Z');
  const hi = Date.parse('2026-11-30T08:00:00Z');
  const GTE: PredicateNode = { kind: 'compare', op: 'gte', column: TIME, value: ts(lo) };
  const LT: PredicateNode = { kind: 'compare', op: 'lt', column: TIME, value: ts(hi) };
  const CASES: [string, PredicateNode | null, number | undefined, number | undefined, PredicateNode | null][] = [
    ['both bounds, no filter', null, lo, hi, { kind: 'and', items: [GTE, LT] }],
    ['only since', null, lo, undefined, GTE],
    ['only until', null, undefined, hi, LT],
    ['no bounds, no filter', null, undefined, undefined, null],
    ['no bounds keeps the filter as it is', KEY_NULL, undefined, undefined, KEY_NULL],
    ['bounds come first, then the filter', KEY_NULL, lo, hi, { kind: 'and', items: [GTE, LT, KEY_NULL] }],
    [
      'a top-level AND is flattened',
      { kind: 'and', items: [KEY_NULL, KEY_NOT_NULL] },
      lo,
      undefined,
      { kind: 'and', items: [GTE, KEY_NULL, KEY_NOT_NULL] },
    ],
    [
      'an OR stays one conjunct',
      { kind: 'or', items: [KEY_NULL, KEY_NOT_NULL] },
      undefined,
      hi,
      { kind: 'and', items: [LT, { kind: 'or', items: [KEY_NULL, KEY_NOT_NULL] }] },
    ],
  ];
  it.each(CASES)('%s', (_label, where, from, to, expected) => {
    const q = tree({ where });
    expect(applyTimeWindow(q, TIME, from, to)).toEqual({ ...q, where: expected });
  });

  it('literals take the time column type (timestamp(6) stays timestamp(6))', () => {
    const t6 = table('timestamp_broker', 'timestamp(6)');
    expect(applyTimeWindow(tree(), t6, 0).where).toEqual({
      kind: 'compare',
      op: 'gte',
      column: t6,
      value: { kind: 'literal', type: 'timestamp(6)', value: { t: 'timestamp', epochMs: 0, subMs: '' } },
    });
  });
});

describe('applyPaging', () => {
  const A = '2026-11-30 07:59:00.123';
  const aMs = Date.parse('2026-11-30T07:59:00.123Z');
  const pos = (p: Partial<PagePosition>): PagePosition => ({ h: 'h', m: 'anchor', s: 0, ...p });
  const CASES: [string, QueryNode, PagePosition, ColumnNode | null, PredicateNode | null, number][] = [
    [
      'anchor, ascending: >= the anchor, first',
      tree({ where: KEY_NULL }),
      pos({ a: A, s: 3 }),
      TIME,
      { kind: 'and', items: [{ kind: 'anchor', column: TIME, dir: 'asc', value: ts(aMs) }, KEY_NULL] },
      3,
    ],
    [
      'anchor, descending: <= the anchor',
      tree({ order: [{ name: 'timestamp_broker', dir: 'desc', column: TIME }] }),
      pos({ a: A, s: 0 }),
      TIME,
      { kind: 'anchor', column: TIME, dir: 'desc', value: ts(aMs) },
      0,
    ],
    [
      'anchor mode, first page (no anchor yet): only the skip',
      tree({ where: KEY_NULL }),
      pos({ s: 0 }),
      TIME,
      KEY_NULL,
      0,
    ],
    [
      'offset mode: the skip is a plain offset; an anchor in it is ignored',
      tree(),
      pos({ m: 'offset', a: A, s: 250 }),
      TIME,
      null,
      250,
    ],
    ['no time column: no anchor', tree(), pos({ a: A, s: 7 }), null, null, 7],
  ];
  it.each(CASES)('%s', (_label, q, p, time, where, offset) => {
    expect(applyPaging(q, p, time)).toEqual({ ...q, where, offset });
  });

  it('a timestamp(3) anchor with trailing text keeps only the millisecond part', () => {
    expect(applyPaging(tree(), pos({ a: '2026-11-30 07:59:00.123' }), TIME).where).toMatchObject({
      value: { value: { epochMs: aMs, subMs: '' } },
    });
  });

  // Regression (passes/page-anchor.ts applyPaging): the sub-millisecond digits of the anchor are read with p.a.slice(24), but
  // `YYYY-MM-DD HH:MM:SS.fff` is 23 characters, so the first of them is dropped: .123456 becomes .12356.
  // Fix: p.a.slice(23). Only tables whose broker time is finer than timestamp(3) are hit.
  it('a timestamp(6) anchor keeps every microsecond digit', () => {
    const t6 = table('timestamp_broker', 'timestamp(6)');
    const q = tree({ order: [{ name: 'timestamp_broker', dir: 'asc', column: t6 }] });
    expect(applyPaging(q, pos({ a: '2026-11-30 07:59:00.123456' }), t6).where).toEqual({
      kind: 'anchor',
      column: t6,
      dir: 'asc',
      value: ts(aMs, '456', t6),
    });
  });
});

describe('planReadTree refusals', () => {
  const plan = (topic: TopicModel, req: Partial<ReadRequest>) =>
    planReadTree(topic, { where: null, ...req }, POLICY, null, NOW);
  // [label, topic, request, code, message]
  const CASES: [string, TopicModel, Partial<ReadRequest>, string, string][] = [
    [
      'a column neither grouped nor aggregated',
      orders,
      { select: ['key', { fn: 'count' }] },
      'TG_BAD_REQUEST',
      'select: key must be in groupBy or inside an aggregate',
    ],
    [
      'a column selected but grouped by another',
      orders,
      { select: ['key', 'value', { fn: 'count' }], groupBy: ['key'] },
      'TG_BAD_REQUEST',
      'select: value must be in groupBy or inside an aggregate',
    ],
    [
      'approx_percentile without p',
      orders,
      { select: [{ fn: 'approx_percentile', field: 'amount' }] },
      'TG_BAD_VALUE',
      'approx_percentile: p must be between 0 and 1',
    ],
    [
      'approx_percentile with p = 1',
      orders,
      { select: [{ fn: 'approx_percentile', field: 'amount', p: 1 }] },
      'TG_BAD_VALUE',
      'approx_percentile: p must be between 0 and 1',
    ],
    [
      'approx_percentile with p = 0',
      orders,
      { select: [{ fn: 'approx_percentile', field: 'amount', p: 0 }] },
      'TG_BAD_VALUE',
      'approx_percentile: p must be between 0 and 1',
    ],
    [
      'approx_percentile of text',
      orders,
      { select: [{ fn: 'approx_percentile', field: 'name', p: 0.5 }] },
      'TG_BAD_VALUE',
      'approx_percentile: name (varchar) is not numeric',
    ],
    [
      'sum of varbinary',
      orders,
      { select: [{ fn: 'sum', field: 'value' }] },
      'TG_BAD_VALUE',
      'sum: value (varbinary) is not numeric',
    ],
    [
      'avg of a timestamp',
      orders,
      { select: [{ fn: 'avg', field: 'timestamp_broker' }] },
      'TG_BAD_VALUE',
      'avg: timestamp_broker (timestamp(3)) is not numeric',
    ],
    ['min without a field', orders, { select: [{ fn: 'min' }] }, 'TG_BAD_VALUE', 'min: needs a field'],
    ['latest without a field', orders, { select: [{ fn: 'latest' }] }, 'TG_BAD_VALUE', 'latest: needs a field'],
    [
      'an aggregate of an unknown field',
      orders,
      { select: [{ fn: 'max', field: 'nope' }] },
      'TG_UNKNOWN_COLUMN',
      'orders has no column "nope"',
    ],
    [
      'latest on a table without broker time',
      items,
      { select: [{ fn: 'latest', field: 'price' }] },
      'TG_BAD_VALUE',
      'latest: items has no timestamp_broker',
    ],
    [
      'dedupe with aggregation',
      orders,
      { select: [{ fn: 'count' }], dedupe: {} },
      'TG_BAD_REQUEST',
      'dedupe applies to event reads, not to aggregations',
    ],
    [
      'dedupe with groupBy only',
      orders,
      { groupBy: ['key'], dedupe: { by: ['key'] } },
      'TG_BAD_REQUEST',
      'dedupe applies to event reads, not to aggregations',
    ],
    ['dedupe by nothing', orders, { dedupe: { by: [] } }, 'TG_BAD_REQUEST', 'dedupe.by needs at least one column'],
    [
      'dedupe by an unknown column',
      orders,
      { dedupe: { by: ['nope'] } },
      'TG_UNKNOWN_COLUMN',
      'orders has no column "nope"',
    ],
    ['dedupe without broker time', items, { dedupe: {} }, 'TG_BAD_REQUEST', 'dedupe: items has no timestamp_broker'],
    [
      'a bucket without broker time',
      items,
      { select: [{ fn: 'count' }], groupBy: [{ bucket: '1h' }] },
      'TG_BAD_VALUE',
      'bucket: items has no timestamp_broker',
    ],
    [
      'a zero bucket',
      orders,
      { select: [{ fn: 'count' }], groupBy: [{ bucket: '0s' }] },
      'TG_BAD_VALUE',
      'bucket must be from 1ms to 366d',
    ],
    [
      'a bucket over 366 days',
      orders,
      { select: [{ fn: 'count' }], groupBy: [{ bucket: '367d' }] },
      'TG_BAD_VALUE',
      'bucket must be from 1ms to 366d',
    ],
    [
      'a bucket that is not a duration',
      orders,
      { select: [{ fn: 'count' }], groupBy: [{ bucket: '1w' }] },
      'TG_BAD_VALUE',
      'bucket="1w" is not a duration like 30s, 5m, 1h, 1d',
    ],
    [
      'an output name used twice',
      orders,
      { select: ['key', 'key'] },
      'TG_BAD_REQUEST',
      'select: the output name "key" is used twice',
    ],
    [
      'an aggregate named like a column',
      orders,
      { select: ['key', { fn: 'count', as: 'key' }], groupBy: ['key'] },
      'TG_BAD_REQUEST',
      'select: the output name "key" is used twice',
    ],
    ['an unknown select column', orders, { select: ['nope'] }, 'TG_UNKNOWN_COLUMN', 'orders has no column "nope"'],
    [
      'an unknown order column',
      orders,
      { order: [{ field: 'nope' }] },
      'TG_UNKNOWN_COLUMN',
      'orders has no column "nope"',
    ],
    [
      'ordering an aggregation by a non-output',
      orders,
      { select: [{ fn: 'count' }], groupBy: ['key'], order: [{ field: 'value' }] },
      'TG_UNKNOWN_COLUMN',
      'order: value is not an output of this aggregation',
    ],
    [
      'since on a table without broker time',
      items,
      { since: '-1h' },
      'TG_BAD_REQUEST',
      'since/until: items has no timestamp_broker',
    ],
    [
      'until before since',
      orders,
      { since: '2026-11-30T07:00:00Z', until: '2026-11-30T06:00:00Z' },
      'TG_BAD_TIME',
      'until must be after since',
    ],
    ['until equal to since', orders, { since: '-1h', until: '-60m' }, 'TG_BAD_TIME', 'until must be after since'],
    [
      'since that is not a time',
      orders,
      { since: 'yesterday' },
      'TG_BAD_TIME',
      'since="yesterday" is not a time: use ISO-8601 (2026-11-30T08:00:00Z; UTC when no zone is given) or relative (now, -15m, -2h, -7d)',
    ],
    [
      'a limit over the maximum',
      orders,
      { limit: 5000 },
      'TG_TOO_EXPENSIVE',
      'limit 5000 is above the maximum 1000; page with cursors',
    ],
  ];
  it.each(CASES)('%s', (_label, topic, req, code, message) => {
    const e = apiError(() => plan(topic, req));
    expect([e.code, e.message]).toEqual([code, message]);
  });
});

describe('planReadTree: the page position and where broker time sits in each row', () => {
  const plan = (topic: TopicModel, req: Partial<ReadRequest>) =>
    planReadTree(topic, { where: null, ...req }, POLICY, null, NOW);
  const CASES: [string, TopicModel, Partial<ReadRequest>, Omit<PagePosition, 'h'>, number | null][] = [
    [
      'a default read anchors on broker time (column 2); until pinned to now',
      orders,
      {},
      { m: 'anchor', s: 0, hi: NOW },
      2,
    ],
    [
      'selected first, ordered descending',
      orders,
      { select: ['timestamp_broker'], order: [{ field: 'timestamp_broker', dir: 'desc' }] },
      { m: 'anchor', s: 0, hi: NOW },
      0,
    ],
    [
      'since and until pinned',
      orders,
      { select: ['key', 'timestamp_broker'], since: '-1h', until: '-1m' },
      { m: 'anchor', s: 0, lo: NOW - 3_600_000, hi: NOW - 60_000 },
      1,
    ],
    ['broker time not selected: offset mode', orders, { select: ['key'] }, { m: 'offset', s: 0, hi: NOW }, null],
    [
      'ordered by another column first: offset mode',
      orders,
      { order: [{ field: 'key' }, { field: 'timestamp_broker' }] },
      { m: 'offset', s: 0, hi: NOW },
      null,
    ],
    ['an aggregation: offset mode', orders, { select: [{ fn: 'count' }] }, { m: 'offset', s: 0, hi: NOW }, null],
    ['dedupe: offset mode', orders, { dedupe: {} }, { m: 'offset', s: 0, hi: NOW }, null],
    ['a table without broker time: offset mode, no window', items, {}, { m: 'offset', s: 0 }, null],
  ];
  it.each(CASES)('%s', (_label, topic, req, position, timeIndex) => {
    const p = plan(topic, req);
    expect(p.position).toEqual({ h: p.position.h, ...position });
    expect(p.position.h).toMatch(/^[A-Za-z0-9_-]{16}$/);
    expect(p.timeIndex).toBe(timeIndex);
  });

  it('a token position is used as given, and is asked for with the query hash', () => {
    const seen: string[] = [];
    const token: PagePosition = { h: 'x', m: 'anchor', a: '2026-11-30 07:00:00.000', s: 4, lo: 1, hi: 2 };
    const decode = (h: string) => {
      seen.push(h);
      return token;
    };
    const p = planReadTree(orders, { where: null, since: '-1h' }, POLICY, decode, NOW);
    expect(p.position).toBe(token);
    expect(seen).toEqual([plan(orders, { since: '-1h' }).position.h]);
    expect(p.tree.offset).toBe(4);
    expect(p.tree.where).toEqual({
      kind: 'and',
      items: [
        { kind: 'anchor', column: TIME, dir: 'asc', value: ts(Date.parse('2026-11-30T07:00:00Z')) },
        { kind: 'compare', op: 'gte', column: TIME, value: ts(1) },
        { kind: 'compare', op: 'lt', column: TIME, value: ts(2) },
      ],
    });
  });

  it('the query hash changes with the meaning of the query, not with the limit or the clock', () => {
    const h = (req: Partial<ReadRequest>, now = NOW) =>
      planReadTree(orders, { where: null, ...req }, POLICY, null, now).position.h;
    const base = h({ select: ['key', 'timestamp_broker'], since: '-1h' });
    expect(h({ select: ['key', 'timestamp_broker'], since: '-1h', limit: 7 })).toBe(base);
    expect(h({ select: ['key', 'timestamp_broker'], since: '-1h' }, NOW + 60_000)).toBe(base);
    const different = [
      h({ select: ['timestamp_broker', 'key'], since: '-1h' }),
      h({ select: ['key', 'timestamp_broker'], since: '-2h' }),
      h({ select: ['key', 'timestamp_broker'], since: '-1h', until: 'now' }),
      h({ select: ['key', 'timestamp_broker'], since: '-1h', where: KEY_NULL }),
      h({ select: ['key', 'timestamp_broker'], since: '-1h', order: [{ field: 'timestamp_broker', dir: 'desc' }] }),
      h({ select: ['key', 'timestamp_broker'], since: '-1h', dedupe: {} }),
    ];
    expect(new Set([base, ...different]).size).toBe(7);
  });

  it('the plan keeps the request filters apart from the window (for explain)', () => {
    const p = plan(orders, { where: KEY_NULL, since: '-1h' });
    expect(p.userWhere).toBe(KEY_NULL);
    expect(p.tree.where).toEqual({
      kind: 'and',
      items: [
        { kind: 'compare', op: 'gte', column: TIME, value: ts(NOW - 3_600_000) },
        { kind: 'compare', op: 'lt', column: TIME, value: ts(NOW) },
        KEY_NULL,
      ],
    });
    expect(p.tree.limit).toBe(100);
    expect(p.tree.totalOrder).toBe(true);
  });
});
