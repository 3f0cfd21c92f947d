/**
 * Row policies that follow the events, without services: a topic's policy applies to
 * its native expansion table (by name or by `topics.<t>.expansionTable`) unless that table has policies of its own;
 * claims compare as text unless a placeholder says `|number`; under `rowPolicies.default: deny` a caller holding
 * none of a topic's policy roles sees nothing there, so a token with fewer roles never sees more.
 */
import { describe, expect, it } from 'vitest';
import { compilePredicate } from '../../src/query/sql/compile.js';
import type { PredicateNode } from '../../src/query/tree/nodes.js';
import { resolver } from '../../src/query/request/resolver.js';
import type { TopicModel } from '../../src/query/tree/topic-model.js';
import { bindRowFilter, parseRowFilter } from '../../src/access/row-filter.js';
import { RowPolicies, matchNothing } from '../../src/access/row-policy.js';
import type { Principal } from '../../src/access/principal.js';
import { renderTopicDocs } from '../../src/routes/topic-docs.js';
import { table, json, topicOf } from '../cases/columns.js';

const orders: TopicModel = topicOf(
  [table('key', 'varbinary'), table('value', 'varbinary'), table('timestamp_broker', 'timestamp(3)')],
  'orders',
  { expanded: [json('country', 'varchar')] },
);
/** The native expansion table: typed columns, no payload, no broker time. */
const expanded = (id: string): TopicModel =>
  topicOf([table('order_id', 'bigint'), table('country', 'varchar')], id, { kind: 'table' });
const sql = (p: PredicateNode | null) => (p ? compilePredicate(p) : null);
const who = (roles: string[], claims: Record<string, unknown> = {}): Principal => ({
  id: 'jwt:https://idp.test/:p',
  name: 'p',
  roles,
  claims,
  via: 'jwt',
});
const EU = [{ roles: ['eu'], filter: 'country=in.(DE,FR)' }];

describe('a policy follows its topic to the native expansion table (finding 1)', () => {
  it('by name: <topic>_expanded gets the topic policy, bound to its own columns', () => {
    const policies = new RowPolicies({ orders: EU }, { default: 'allow' });
    expect(sql(policies.filterFor(expanded('orders_expanded'), who(['eu'])))).toBe(`"country" IN ('DE', 'FR')`);
    // A caller without the policy role keeps the topic's default (allow here): unrestricted on both.
    expect(policies.filterFor(expanded('orders_expanded'), who(['analyst']))).toBeNull();
    expect(policies.filterFor(expanded('clicks_expanded'), who(['eu']))).toBeNull();
  });

  it('with several schemas served, by `<schema>:<topic>_expanded`', () => {
    const policies = new RowPolicies({ 's:orders': EU });
    expect(sql(policies.filterFor(expanded('s:orders_expanded'), who(['eu'])))).toBe(`"country" IN ('DE', 'FR')`);
    expect(policies.filterFor(expanded('t:orders_expanded'), who(['eu']))).toBeNull();
  });

  it('by configuration: the table topics.<t>.expansionTable names', () => {
    const policies = new RowPolicies({ orders: EU }, { topics: { orders: { expansionTable: 'orders_wide' } } });
    expect(sql(policies.filterFor(expanded('orders_wide'), who(['eu'])))).toBe(`"country" IN ('DE', 'FR')`);
  });

  it('policies of its own replace the inherited ones', () => {
    const policies = new RowPolicies({ orders: EU, orders_expanded: [{ roles: ['eu'], filter: 'order_id=lt.10' }] });
    expect(sql(policies.filterFor(expanded('orders_expanded'), who(['eu'])))).toBe(`"order_id" < BIGINT '10'`);
  });

  it('an inherited policy that does not fit the table fails closed (403), never unrestricted', () => {
    const policies = new RowPolicies({ orders: [{ roles: ['eu'], filter: 'value->>region=eq.eu' }] });
    expect(() => policies.filterFor(expanded('orders_expanded'), who(['eu']))).toThrow(/row policy/);
  });
});

describe('claims compare as text unless the policy says |number (finding 3)', () => {
  const resolve = resolver(orders);
  const bound = (filter: string, claims: Record<string, unknown>) =>
    sql(bindRowFilter(parseRowFilter(filter), claims, resolve));
  const TENANT = 'value->>tenant=eq.{claims.tenant}';

  it.each<[string, unknown, string]>([
    ['a long id', '12345678901234567891', `'12345678901234567891'`],
    ['"7"', '7', `'7'`],
    ['"07"', '07', `'07'`],
    ['a number claim, by its digits', 7, `'7'`],
  ])('%s compares as exactly that text', (_label, tenant, literal) => {
    const text = bound(TENANT, { tenant })!;
    expect(text).toMatch(new RegExp(`= ${literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
    expect(text).not.toMatch(/double/i);
  });

  it('an in list of claims compares as text too', () => {
    const text = bound('value->>tenant=in.({claims.tenants})', { tenants: ['7', 8] })!;
    expect(text).toMatch(/IN \('7', '8'\)$/);
    expect(text).not.toMatch(/double/i);
  });

  it('a number claim that may have lost digits when the token was read matches nothing', () => {
    expect(bound(TENANT, { tenant: 12345678901234567000 })).toBeNull();
    expect(bound(TENANT, { tenant: 7.5 })).toBeNull();
  });

  it('{claims.x|number} compares as a number, as a request filter would', () => {
    expect(bound('value->>level=lte.{claims.level|number}', { level: '7' })).toMatch(/AS double\) <= DOUBLE '7.0'$/);
    expect(bound('value->>level=lte.{claims.level|number}', { level: 'seven' })).toBeNull();
  });

  it('|number is refused on a column that is not a JSON arrow path', () => {
    expect(() => parseRowFilter('country=eq.{claims.c|number}')).not.toThrow();
    const policies = new RowPolicies({ orders: [{ roles: ['r'], filter: 'country=eq.{claims.c|number}' }] });
    expect(policies.check(orders)).toEqual([
      'rowPolicies.orders[0].filter: country: |number applies to JSON arrow paths (value->field); country is varchar',
    ]);
  });
});

describe('rowPolicies.default: deny (finding 4)', () => {
  const deny = new RowPolicies({ orders: EU }, { default: 'deny' });

  it('a caller holding none of the topic policy roles sees nothing there, and on its expansion table', () => {
    expect(deny.filterFor(orders, who(['analyst']))).toEqual(matchNothing(orders));
    const t = expanded('orders_expanded');
    expect(deny.filterFor(t, who(['analyst']))).toEqual(matchNothing(t));
  });

  it('a topic without policies stays unrestricted', () => {
    expect(deny.filterFor({ ...orders, id: 'clicks' }, who(['analyst']))).toBeNull();
  });

  it('fewer roles (a narrowed scope) never widen: every subset of roles is at most as wide', () => {
    const policies = new RowPolicies(
      { orders: [...EU, { roles: ['paid'], filter: 'value->>status=eq.paid' }] },
      { default: 'deny' },
    );
    const full = sql(policies.filterFor(orders, who(['read', 'eu', 'paid'])));
    expect(full).toMatch(/ OR /);
    expect(sql(policies.filterFor(orders, who(['read', 'eu'])))).toBe(full!.slice(1).split(' OR ')[0]);
    expect(policies.filterFor(orders, who(['read']))).toEqual(matchNothing(orders));
  });
});

describe('the other table of a topic is named only to a caller who sees it (finding 1)', () => {
  const info = { id: 'orders', schema: 's', table: 'orders', kind: 'topic' as const, columns: [] };
  const config = { catalog: 'vast', topics: { orders: { expansionTable: 'orders_wide' } } };

  it('/docs/topics names a configured expansion table only when the caller sees it', () => {
    const tables = new Map([['orders', info]]);
    expect(renderTopicDocs(tables, config, (id) => id !== 'orders_wide')).not.toContain('orders_wide');
    expect(renderTopicDocs(tables, config, () => true)).toContain('orders_wide');
  });
});
