/**
 * The time-bound guardrail on ordering, grouping and aggregating by a JSON field (passes/residual-scan.ts
 * checkResidualScan): to sort, group or aggregate, Trino reads the field from every event of the window, as it does
 * for a filter on one, so an unbounded (or too wide) window is refused naming the field; a bounded one, a table
 * column, a selective filter or a plain table passes.
 */
import { describe, expect, it } from 'vitest';
import type { ColumnNode, PredicateNode, QueryNode } from '../../src/query/tree/nodes.js';
import { checkResidualScan, jsonSortKeys } from '../../src/query/passes/residual-scan.js';
import { plan } from '../../src/query/planner.js';
import { json, table, topicOf } from '../cases/columns.js';
import { testPolicy } from '../cases/read-policy.js';
import { apiError, refusal } from '../cases/api-error.js';

const COLUMNS = [table('key', 'varbinary'), table('value', 'varbinary'), table('timestamp_broker', 'timestamp(3)')];
const STATUS = json('status', 'varchar');
const PATH: ColumnNode = {
  kind: 'column',
  name: 'value->a',
  type: 'json',
  source: { kind: 'json-path', base: COLUMNS[1]!, path: ['a'], text: false },
};
const POLICY = testPolicy().guardrail;
const HOUR = 3_600_000;
const NOW = Date.parse('2026-11-30T08:00:00.000Z');

function query(over: Partial<QueryNode> = {}, topicKind: 'topic' | 'table' = 'topic'): QueryNode {
  return {
    kind: 'query',
    source: { kind: 'source', catalog: 'vast', schema: 's', table: 'orders', topicKind, columns: COLUMNS },
    select: [],
    where: null,
    groupBy: [],
    order: [],
    limit: 100,
    offset: 0,
    dedupe: null,
    totalOrder: true,
    ...over,
  };
}
const byStatus = query({ order: [{ name: 'status', column: STATUS, dir: 'desc' }] });
const KEY_EQ: PredicateNode = {
  kind: 'compare',
  op: 'eq',
  column: COLUMNS[0]!,
  value: { kind: 'literal', type: 'varbinary', value: { t: 'varbinary', v: Buffer.from('k1') } },
};

describe('ordering or grouping by a JSON field needs a bounded window', () => {
  it('order by an expanded field over an unbounded window is refused, naming the field', () => {
    const err = apiError(() => checkResidualScan(byStatus, null, { hi: NOW }, POLICY));
    expect(err.code).toBe('TG_TIME_BOUND_REQUIRED');
    expect(err.message).toMatch(
      /^ordering, grouping or aggregating by the JSON field status reads it from every event .*add since=/,
    );
    expect(err.details).toMatchObject({ fields: ['status'], add: 'since' });
  });

  it('order by an arrow path, and a selected one ordered by name, are refused too', () => {
    const path = query({ order: [{ name: 'value->a', column: PATH, dir: 'asc' }] });
    expect(refusal(() => checkResidualScan(path, null, { hi: NOW }, POLICY))[0]).toBe('TG_TIME_BOUND_REQUIRED');
    const named = query({
      select: [{ kind: 'select-column', column: STATUS, as: 'status' }],
      order: [{ name: 'status', dir: 'asc' }],
    });
    expect(jsonSortKeys(named)).toEqual(['status']);
  });

  it('group by a JSON field is refused too (Trino reads it from every event to form the groups)', () => {
    const grouped = query({
      select: [
        { kind: 'select-column', column: STATUS, as: 'status' },
        { kind: 'aggregate', fn: 'count', column: null, as: 'n', time: null },
      ],
      groupBy: ['status'],
    });
    expect(jsonSortKeys(grouped)).toEqual(['status']);
    expect(refusal(() => checkResidualScan(grouped, null, { hi: NOW }, POLICY))[0]).toBe('TG_TIME_BOUND_REQUIRED');
  });

  it('an aggregate over a JSON field is refused too; count(*) is not', () => {
    const sum = query({ select: [{ kind: 'aggregate', fn: 'sum', column: STATUS, as: 's', time: null }] });
    expect(jsonSortKeys(sum)).toEqual(['status']);
    expect(refusal(() => checkResidualScan(sum, null, { hi: NOW }, POLICY))[0]).toBe('TG_TIME_BOUND_REQUIRED');
    const count = query({ select: [{ kind: 'aggregate', fn: 'count', column: null, as: 'n', time: null }] });
    expect(checkResidualScan(count, null, { hi: NOW }, POLICY)).toBe(count);
  });

  it('a window wider than the limit is refused; one within it passes', () => {
    const wide = { lo: NOW - POLICY.maxWindowMs - HOUR, hi: NOW };
    expect(refusal(() => checkResidualScan(byStatus, null, wide, POLICY))[2]).toMatch(/narrow since\/until/);
    expect(checkResidualScan(byStatus, null, { lo: NOW - HOUR, hi: NOW }, POLICY)).toBe(byStatus);
  });

  it('a table column, a selective filter, a plain table or a topic allowing full scans pass', () => {
    const byKey = query({ order: [{ name: 'key', column: COLUMNS[0]!, dir: 'asc' }] });
    expect(checkResidualScan(byKey, null, { hi: NOW }, POLICY)).toBe(byKey);
    expect(checkResidualScan(byStatus, KEY_EQ, { hi: NOW }, POLICY)).toBe(byStatus);
    const plain = { ...byStatus, source: { ...byStatus.source, topicKind: 'table' as const } };
    expect(checkResidualScan(plain, null, {}, POLICY)).toBe(plain);
    expect(checkResidualScan(byStatus, null, {}, { ...POLICY, allowFullScan: true })).toBe(byStatus);
  });

  it('the planner runs it for every read', () => {
    const orders = topicOf(COLUMNS, 'orders', { expanded: [STATUS] });
    const read = (since?: string) =>
      plan(
        { kind: 'read', topic: orders, read: { where: null, since, order: [{ field: 'status' }] }, token: null },
        testPolicy(),
        NOW,
      );
    expect(refusal(() => read())[0]).toBe('TG_TIME_BOUND_REQUIRED');
    expect(read('-1h').tree.order[0]).toMatchObject({ name: 'status', dir: 'asc' });
  });
});
