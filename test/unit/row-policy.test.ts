/**
 * Row policies: the filter text is parsed once, claims are substituted as VALUES after parsing
 * (never spliced into the text), several policies of one caller are ORed, and a missing claim matches nothing.
 */
import { describe, expect, it } from 'vitest';
import { compileWhere } from '../../src/query/sql/compile.js';
import { ApiError } from '../../src/core/errors.js';
import { compilePredicate } from '../../src/query/sql/compile.js';
import { readRequestFromQuery } from '../../src/query/request/parse-read-request.js';
import type { PredicateNode } from '../../src/query/tree/nodes.js';
import { resolver } from '../../src/query/request/resolver.js';
import type { TopicModel } from '../../src/query/tree/topic-model.js';
import { bindRowFilter, claimValue, parseRowFilter, templateProblems } from '../../src/access/row-filter.js';
import { RowPolicies, matchNothing } from '../../src/access/row-policy.js';
import type { Principal } from '../../src/access/principal.js';
import { table, json, topicOf } from '../cases/columns.js';

const COLUMNS = [
  table('key', 'varbinary'),
  table('value', 'varbinary'),
  table('timestamp_broker', 'timestamp(3)'),
  table('tenant', 'varchar'),
  table('region_id', 'bigint'),
];
const orders: TopicModel = topicOf(COLUMNS, 'orders', { expanded: [json('country', 'varchar')] });
const resolve = resolver(orders);
const sql = (p: PredicateNode | null) => (p ? compilePredicate(p) : null);
const who = (roles: string[], claims: Record<string, unknown> = {}): Principal => ({
  id: 'jwt:https://idp.test/:p',
  name: 'p',
  roles,
  claims,
  via: 'jwt',
});
const bound = (filter: string, claims: Record<string, unknown>) =>
  sql(bindRowFilter(parseRowFilter(filter), claims, resolve));
/** The same filter as a request would give it (GET parameters), to compare against. */
const asRequest = (params: Record<string, string>) => sql(readRequestFromQuery(params, resolve).where);

describe('parseRowFilter + bindRowFilter without claims: the request grammar', () => {
  it.each<[string, Record<string, string>]>([
    ['country=in.(DE,FR)', { country: 'in.(DE,FR)' }],
    ['tenant=eq.acme', { tenant: 'eq.acme' }],
    ['tenant=not.eq.acme', { tenant: 'not.eq.acme' }],
    ['region_id=gte.3&tenant=like.a*', { region_id: 'gte.3', tenant: 'like.a*' }],
    ['or=(tenant.eq.a,region_id.lt.2)', { or: '(tenant.eq.a,region_id.lt.2)' }],
    [
      'not.or=(tenant.eq.a,and(region_id.gt.1,region_id.lt.9))',
      { 'not.or': '(tenant.eq.a,and(region_id.gt.1,region_id.lt.9))' },
    ],
    ['or=(tenant.eq."a,b",tenant.eq."x)y")', { or: '(tenant.eq."a,b",tenant.eq."x)y")' }],
    ['tenant=in.("a,b",c)', { tenant: 'in.("a,b",c)' }],
    ['key=eq.\\xff00', { key: 'eq.\\xff00' }],
  ])('%s builds what the same request filter builds', (filter, params) => {
    expect(bound(filter, {})).toBe(asRequest(params));
  });

  it('exact SQL of the API.md example', () => {
    expect(bound('country=in.(DE,FR)', {})).toBe(
      `json_extract_scalar(CASE WHEN to_utf8(from_utf8("value")) = "value" THEN from_utf8("value") END, '$["country"]') IN ('DE', 'FR')`,
    );
  });
});

describe('claims are values, never grammar', () => {
  const HOSTILE = [
    'a,b',
    'x)',
    'acme),or=(tenant.neq.zzz',
    '*',
    'a"b',
    "o'brien",
    '\\x41',
    'eq.acme',
    '{claims.other}',
    ' spaced ',
    '🙂‮',
  ];

  it.each(HOSTILE)('tenant=eq.{claims.t} with t=%j compares with exactly that text', (t) => {
    const p = bindRowFilter(parseRowFilter('tenant=eq.{claims.t}'), { t, other: 'OTHER' }, resolve);
    expect(p).toEqual({
      kind: 'compare',
      op: 'eq',
      column: orders.columns.get('tenant'),
      value: { kind: 'literal', type: 'varchar', value: { t: 'varchar', v: t } },
    });
  });

  it.each(HOSTILE)('tenant=in.({claims.t}) with t=%j is a one-item list', (t) => {
    const p = bindRowFilter(parseRowFilter('tenant=in.({claims.t})'), { t }, resolve);
    expect(p).toMatchObject({ kind: 'in', values: [{ value: { t: 'varchar', v: t } }] });
  });

  it('inside an or= group, a claim holding `,`, `)` and `or=(` stays one value', () => {
    const t = 'a),tenant.neq.(zzz';
    expect(bound('or=(tenant.eq.{claims.t},region_id.eq.1)', { t })).toBe(
      `("tenant" = 'a),tenant.neq.(zzz' OR "region_id" = BIGINT '1')`,
    );
  });

  it('an array claim fills an in list item by item', () => {
    expect(bound('tenant=in.({claims.ts},z)', { ts: ['a,b', 'c'] })).toBe(`"tenant" IN ('a,b', 'c', 'z')`);
  });

  it('numbers and booleans are values of the column type', () => {
    expect(bound('region_id=eq.{claims.r}', { r: 7 })).toBe(`"region_id" = BIGINT '7'`);
    expect(bound('region_id=eq.{claims.r}', { r: '7' })).toBe(`"region_id" = BIGINT '7'`);
  });

  it('dotted claim names reach nested claims', () => {
    expect(claimValue({ a: { b: { c: 1 } } }, 'a.b.c')).toBe(1);
    expect(claimValue({ a: [1] }, 'a.0')).toBeUndefined();
    expect(claimValue({}, 'constructor')).toBeUndefined();
    expect(bound('tenant=eq.{claims.org.id}', { org: { id: 'acme' } })).toBe(`"tenant" = 'acme'`);
  });

  it('a quoted placeholder in a group is literal text', () => {
    expect(bound('or=(tenant.eq."{claims.t}",tenant.eq.b)', { t: 'x' })).toBe(
      `("tenant" = '{claims.t}' OR "tenant" = 'b')`,
    );
  });
});

describe('a claim that cannot be used makes the policy match nothing (null), never wider', () => {
  it.each<[string, string, Record<string, unknown>]>([
    ['missing', 'tenant=eq.{claims.t}', {}],
    ['null', 'tenant=eq.{claims.t}', { t: null }],
    ['an object', 'tenant=eq.{claims.t}', { t: { a: 1 } }],
    ['an array outside in', 'tenant=eq.{claims.t}', { t: ['a'] }],
    ['an array of objects', 'tenant=in.({claims.t})', { t: [{}] }],
    ['not a number for a bigint', 'region_id=eq.{claims.r}', { r: 'seven' }],
    ['NaN', 'region_id=eq.{claims.r}', { r: Number.NaN }],
    ['missing under not.', 'tenant=not.eq.{claims.t}', {}],
    ['missing in one branch of an or', 'or=(tenant.eq.{claims.t},region_id.eq.1)', {}],
    ['missing under not.or', 'not.or=(tenant.eq.{claims.t},region_id.eq.1)', {}],
    ['a nested step missing', 'tenant=eq.{claims.org.id}', { org: 'acme' }],
  ])('%s', (_label, filter, claims) => {
    expect(bindRowFilter(parseRowFilter(filter), claims, resolve)).toBeNull();
  });

  it('an empty array in a list is an empty IN, which matches nothing (PostgREST semantics)', () => {
    const bound = bindRowFilter(parseRowFilter('tenant=in.({claims.t})'), { t: [] }, resolve);
    expect(bound === null || compileWhere(bound) === 'FALSE').toBe(true);
    // Written empty, as in a request: the one grammar reads `in.()` as the empty IN.
    expect(compileWhere(bindRowFilter(parseRowFilter('tenant=in.()'), {}, resolve))).toBe('FALSE');
  });
});

describe('parseRowFilter refuses what it cannot keep safe', () => {
  it.each<[string, RegExp]>([
    ['', /empty filter/],
    ['tenant', /expected column=operator.value/],
    ['tenant=zz.1', /unknown operator "zz"/],
    ['tenant=eq', /eq needs a value/],
    ['tenant=eq.x{claims.t}', /must be the whole value/],
    ['tenant=eq.{claims.t}x', /must be the whole value/],
    ['tenant=like.{claims.t}', /not like/],
    ['tenant=ilike.{claims.t}', /not ilike/],
    ['tenant=is.{claims.t}', /not is/],
    ['tenant=in.(a,x{claims.t})', /must be the whole value/],
    ['tenant=in.a,b', /in takes a list in parentheses/],
    ['or=(tenant.eq.a', /parentheses/],
    ['or=(tenant.eq.a,(b)', /unbalanced/],
    ['or=(x)', /expected column.operator.value/],
    ['tenant=eq.{claims.}', /must be the whole value/],
    ['tenant=eq.{claims.a b}', /must be the whole value/],
  ])('%j', (filter, why) => {
    expect(() => parseRowFilter(filter)).toThrow(why);
  });
});

describe('templateProblems (the start-up check against a topic)', () => {
  it.each<[string, string[]]>([
    ['country=in.(DE,FR)', []],
    ['tenant=eq.{claims.t}', []],
    ['nope=eq.1', ['orders has no column "nope"']],
    ['region_id=eq.abc', ['region_id: "abc" is not an integer']],
    ['or=(nope.eq.1,region_id.eq.{claims.r})', ['orders has no column "nope"']],
  ])('%s', (filter, problems) => {
    expect(templateProblems(parseRowFilter(filter), resolve)).toEqual(problems);
  });
});

describe('RowPolicies: per topic and role, ORed across the caller roles', () => {
  const policies = new RowPolicies({
    orders: [
      { roles: ['eu'], filter: 'country=in.(DE,FR)' },
      { roles: ['tenant'], filter: 'tenant=eq.{claims.tenant}' },
      { roles: ['eu-admin', 'eu'], filter: 'region_id=eq.1' },
    ],
  });

  it('a caller with no policy role on the topic reads nothing, unless rowPolicies.default is allow', () => {
    expect(policies.filterFor(orders, who(['analyst']))).toEqual(matchNothing(orders));
    const allow = new RowPolicies({ orders: [{ roles: ['eu'], filter: 'country=in.(DE,FR)' }] }, { default: 'allow' });
    expect(allow.filterFor(orders, who(['analyst']))).toBeNull();
    expect(policies.filterFor({ ...orders, id: 'clicks' }, who(['eu']))).toBeNull();
  });

  it('one matching policy', () => {
    expect(sql(policies.filterFor(orders, who(['tenant'], { tenant: 'acme' })))).toBe(`"tenant" = 'acme'`);
  });

  it('several matching policies are ORed (a role listed twice counts once per policy)', () => {
    expect(sql(policies.filterFor(orders, who(['eu', 'tenant', 'analyst'], { tenant: 'acme' })))).toBe(
      `(json_extract_scalar(CASE WHEN to_utf8(from_utf8("value")) = "value" THEN from_utf8("value") END, '$["country"]') IN ('DE', 'FR') OR "tenant" = 'acme' OR "region_id" = BIGINT '1')`,
    );
  });

  it('a policy whose claim is missing drops out of the OR; the others still apply', () => {
    expect(sql(policies.filterFor(orders, who(['eu-admin', 'tenant'])))).toBe(`"region_id" = BIGINT '1'`);
  });

  it('when every matching policy lacks its claim, the filter matches nothing', () => {
    const p = policies.filterFor(orders, who(['tenant']));
    expect(p).toEqual(matchNothing(orders));
    expect(sql(p)).toBe(`("timestamp_broker" IS NULL AND "timestamp_broker" IS NOT NULL)`);
  });

  it('a policy naming a column the topic lacks fails closed (403), without showing the policy', () => {
    const broken = new RowPolicies({ orders: [{ roles: ['r'], filter: 'gone=eq.1' }] });
    let err: unknown;
    try {
      broken.filterFor(orders, who(['r']));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe('TG_FORBIDDEN');
    expect((err as ApiError).message).not.toContain('gone');
    expect(broken.check(orders)).toEqual(['rowPolicies.orders[0].filter: orders has no column "gone"']);
  });

  it('a topic without a time column matches nothing through its first column', () => {
    const t: TopicModel = { ...orders, time: null };
    expect(sql(matchNothing(t))).toBe(`("key" IS NULL AND "key" IS NOT NULL)`);
  });
});
