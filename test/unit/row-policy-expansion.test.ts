/**
 * A topic and its native expansion table hold the same events, so a row policy on either restricts both, without
 * services: a policy set only on the expansion table restricts reads of the topic (bound to the topic's expanded
 * fields of the same names), one that the topic cannot take is refused at start-up and refuses the read (403), and
 * `topics.<t>.expansionTable` may name a table of any served schema (`<schema>:<table>`).
 */
import { describe, expect, it } from 'vitest';
import { compilePredicate } from '../../src/query/sql/compile.js';
import type { PredicateNode } from '../../src/query/tree/nodes.js';
import type { TableInfo, TopicModel } from '../../src/query/tree/topic-model.js';
import { RowPolicies } from '../../src/access/row-policy.js';
import { rowPolicyProblems } from '../../src/access/policy-check.js';
import type { Principal } from '../../src/access/principal.js';
import { expansionOf, expansionTableId, nativeExpansionOf } from '../../src/blob/json/native-expansion.js';
import { json, table, topicOf } from '../cases/columns.js';

const COUNTRY = 'customer__address__country';
const topicColumns = () => [
  table('key', 'varbinary'),
  table('value', 'varbinary'),
  table('timestamp_broker', 'timestamp(3)'),
];
const topic = (id: string, expanded = [json(COUNTRY, 'varchar')]): TopicModel => ({
  ...topicOf(topicColumns(), id, { expanded }),
  id,
});
const expandedTable = (id: string): TopicModel => ({
  ...topicOf([table('order_id', 'bigint'), table(COUNTRY, 'varchar')], id, { kind: 'table' }),
  id,
});
const sql = (p: PredicateNode | null) => (p ? compilePredicate(p) : null);
const who = (roles: string[]): Principal => ({ id: 'key:p', name: 'p', roles, claims: {}, via: 'api-key' });
const EU = [{ roles: ['eu'], filter: `${COUNTRY}=in.(DE,FR)` }];
const EU_SQL = `json_extract_scalar(CASE WHEN to_utf8(from_utf8("value")) = "value" THEN from_utf8("value") END, '$["${COUNTRY}"]') IN ('DE', 'FR')`;

describe('a policy only on the expansion table restricts its topic too', () => {
  it('by name: a policy on orders_expanded restricts orders, bound to its expanded field', () => {
    const policies = new RowPolicies({ orders_expanded: EU });
    expect(sql(policies.filterFor(expandedTable('orders_expanded'), who(['eu'])))).toBe(`"${COUNTRY}" IN ('DE', 'FR')`);
    expect(sql(policies.filterFor(topic('orders'), who(['eu'])))).toBe(EU_SQL);
    expect(policies.filterFor(topic('clicks'), who(['eu']))).toBeNull();
  });

  it('by configuration, in another served schema', () => {
    const topics = { 'a:orders': { expansionTable: 'b:orders_wide' } };
    const policies = new RowPolicies({ 'b:orders_wide': EU }, { topics });
    expect(sql(policies.filterFor(topic('a:orders'), who(['eu'])))).toBe(EU_SQL);
    const back = new RowPolicies({ 'a:orders': EU }, { topics });
    expect(sql(back.filterFor(expandedTable('b:orders_wide'), who(['eu'])))).toBe(`"${COUNTRY}" IN ('DE', 'FR')`);
    expect(back.filterFor(expandedTable('a:orders_wide'), who(['eu']))).toBeNull();
  });

  it('both spellings of the expansion table: a policy on one covers the topic and the other', () => {
    const policies = new RowPolicies({ orders_wide: EU }, { topics: { orders: { expansionTable: 'orders_wide' } } });
    expect(sql(policies.filterFor(topic('orders'), who(['eu'])))).toBe(EU_SQL);
    expect(sql(policies.filterFor(expandedTable('orders_expanded'), who(['eu'])))).toBe(`"${COUNTRY}" IN ('DE', 'FR')`);
    expect(policies.filterFor(expandedTable('clicks_expanded'), who(['eu']))).toBeNull();
  });

  it('a policy the topic cannot take refuses the read (403) and is refused at start-up, naming why', () => {
    const policies = new RowPolicies({ orders_expanded: [{ roles: ['eu'], filter: 'order_id=lt.10' }] });
    expect(() => policies.filterFor(topic('orders'), who(['eu']))).toThrow(/row policy of orders does not fit/);
    const info = (id: string, kind: 'topic' | 'table', names: string[]): TableInfo => ({
      id,
      schema: 's',
      table: id,
      kind,
      columns: names.map((name) => ({ name, type: name === 'order_id' ? 'bigint' : 'varbinary' })),
    });
    const tables = new Map([
      ['orders', info('orders', 'topic', ['key', 'value', 'timestamp_broker'])],
      ['orders_expanded', info('orders_expanded', 'table', ['order_id'])],
    ]);
    expect(rowPolicyProblems(policies, tables, { catalog: 'vast', topics: {} })).toEqual([
      'rowPolicies.orders_expanded[0].filter applies to orders too (the same events): orders has no column "order_id"; give orders row policies of its own (rowPolicies.orders)',
    ]);
  });

  it('under allow, the topic own policies must restrict every role the expansion table restricts', () => {
    const policies = new RowPolicies(
      { orders: [{ roles: ['a'], filter: 'key=eq.x' }], orders_expanded: EU },
      { default: 'allow' },
    );
    expect(policies.uncovered('orders')).toEqual([
      'rowPolicies.orders: role eu is restricted on orders_expanded (the same events) but has no policy here; give it one, or set rowPolicies.default: deny',
    ]);
  });
});

describe('expansionTable may name a table of any served schema', () => {
  it('resolves to a topic id', () => {
    expect(expansionTableId('orders', undefined)).toBe('orders_expanded');
    expect(expansionTableId('orders', { expansionTable: 'wide' })).toBe('wide');
    expect(expansionTableId('a:orders', { expansionTable: 'wide' })).toBe('a:wide');
    expect(expansionTableId('a:orders', { expansionTable: 'b:wide' })).toBe('b:wide');
  });

  it('the topic names it, and it names its topic', () => {
    const orders: TableInfo = { id: 'a:orders', schema: 'a', table: 'orders', kind: 'topic', columns: [] };
    const wide: TableInfo = {
      id: 'b:wide',
      schema: 'b',
      table: 'wide',
      kind: 'table',
      columns: [{ name: 'order_id', type: 'bigint' }],
    };
    const tables = new Map([
      [orders.id, orders],
      [wide.id, wide],
    ]);
    const topics = { 'a:orders': { expansionTable: 'b:wide' } };
    expect(nativeExpansionOf(orders, tables, topics['a:orders'])).toMatchObject({ name: 'b:wide', found: true });
    expect(expansionOf(wide, tables, topics)).toBe('a:orders');
  });
});
