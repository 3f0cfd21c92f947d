/**
 * The pushdown classifier (explain's `pushed` / `residual`) against the VAST connector's rules
 * (VAST_TOPIC_TABLES.md "What the VAST connector pushes down"): one row per rule, with the exact SQL of each
 * top-level conjunct in the list it belongs to.
 */
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/core/errors.js';
import type { PredicateNode } from '../../src/query/tree/nodes.js';
import { resolver } from '../../src/query/request/resolver.js';
import type { TopicModel } from '../../src/query/tree/topic-model.js';
import { classifyPushdown, type PushdownReport } from '../../src/query/passes/pushdown.js';
import { readRequestFromQuery } from '../../src/query/request/parse-read-request.js';
import { table, json, topicOf } from '../cases/columns.js';

const COLUMNS = [
  table('key', 'varbinary'),
  table('value', 'varbinary'),
  table('timestamp_broker', 'timestamp(3)'),
  table('headers', 'array(row(key varchar, value varbinary))'),
  table('id', 'bigint'),
  table('price', 'decimal(12,2)'),
  table('name', 'varchar'),
  table('active', 'boolean'),
  table('day', 'date'),
  table('ratio', 'double'),
  table('tags', 'map(varchar, varchar)'),
  json('status', 'varchar'),
  json('order_id', 'bigint'),
];
const topic: TopicModel = topicOf(COLUMNS.slice(0, 11), 'mixed', { expanded: COLUMNS.slice(11) });
const where = (params: Record<string, string | string[]>): PredicateNode | null =>
  readRequestFromQuery(params, resolver(topic)).where;
const V = `CASE WHEN to_utf8(from_utf8("value")) = "value" THEN from_utf8("value") END`;
const OFF = { complexPredicates: false };
const ON = { complexPredicates: true };

// [rule, GET parameters, rules, expected report]
const CASES: [string, Record<string, string | string[]>, typeof OFF, PushdownReport][] = [
  // Bare scalar columns compared with literals of their type.
  ['equality on bigint', { id: 'eq.5' }, OFF, { pushed: [`"id" = BIGINT '5'`], residual: [] }],
  ['range on decimal', { price: 'gte.1' }, OFF, { pushed: [`"price" >= DECIMAL '1.00'`], residual: [] }],
  [
    'range on timestamp',
    { timestamp_broker: 'lt.2026-11-30T08:00:00Z' },
    OFF,
    { pushed: [`"timestamp_broker" < TIMESTAMP '2026-11-30 08:00:00.000'`], residual: [] },
  ],
  ['equality on varbinary', { key: 'eq.k1' }, OFF, { pushed: [`"key" = X'6b31'`], residual: [] }],
  ['equality on varchar', { name: 'neq.x' }, OFF, { pushed: [`"name" <> 'x'`], residual: [] }],
  ['boolean is.true', { active: 'is.true' }, OFF, { pushed: [`"active" = TRUE`], residual: [] }],
  ['date', { day: 'gt.2026-01-01' }, OFF, { pushed: [`"day" > DATE '2026-01-01'`], residual: [] }],
  ['double', { ratio: 'lt.0.5' }, OFF, { pushed: [`"ratio" < DOUBLE '0.5'`], residual: [] }],
  ['IN list', { key: 'in.(a,b)' }, OFF, { pushed: [`"key" IN (X'61', X'62')`], residual: [] }],
  ['IS NULL', { key: 'is.null' }, OFF, { pushed: [`"key" IS NULL`], residual: [] }],
  ['IS NOT NULL', { key: 'not.is.null' }, OFF, { pushed: [`"key" IS NOT NULL`], residual: [] }],
  [
    'NOT of an equality is still a domain',
    { id: 'not.eq.5' },
    OFF,
    { pushed: [`NOT ("id" = BIGINT '5')`], residual: [] },
  ],
  ['NOT IN', { id: 'not.in.(1,2)' }, OFF, { pushed: [`NOT ("id" IN (BIGINT '1', BIGINT '2'))`], residual: [] }],
  [
    'ANDed across columns: each conjunct on its own',
    { id: 'gt.1', name: 'eq.x', key: 'is.null' },
    OFF,
    {
      pushed: [`"id" > BIGINT '1'`, `"name" = 'x'`, `"key" IS NULL`],
      residual: [],
    },
  ],
  [
    'and= across columns',
    { and: '(id.gt.1,name.eq.x)' },
    OFF,
    { pushed: [`"id" > BIGINT '1'`, `"name" = 'x'`], residual: [] },
  ],
  // LIKE: only '%text%' on varchar.
  ['LIKE %text% on varchar', { name: 'like.*abc*' }, OFF, { pushed: [`"name" LIKE '%abc%'`], residual: [] }],
  [
    'LIKE with a space and a quote in the text',
    { name: "like.*a b'c*" },
    OFF,
    { pushed: [`"name" LIKE '%a b''c%'`], residual: [] },
  ],
  ['LIKE prefix', { name: 'like.abc*' }, OFF, { pushed: [], residual: [`"name" LIKE 'abc%'`] }],
  ['LIKE suffix', { name: 'like.*abc' }, OFF, { pushed: [], residual: [`"name" LIKE '%abc'`] }],
  ['LIKE with an inner wildcard', { name: 'like.*a*c*' }, OFF, { pushed: [], residual: [`"name" LIKE '%a%c%'`] }],
  ['LIKE of only wildcards', { name: 'like.**' }, OFF, { pushed: [], residual: [`"name" LIKE '%%'`] }],
  [
    'LIKE with an escaped %',
    { name: 'like.*50\\%*' },
    OFF,
    { pushed: [], residual: [`"name" LIKE '%50\\%%' ESCAPE '\\'`] },
  ],
  [
    'LIKE with an escaped _',
    { name: 'like.*a\\_b*' },
    OFF,
    { pushed: [], residual: [`"name" LIKE '%a\\_b%' ESCAPE '\\'`] },
  ],
  [
    'ILIKE (lower() on the column)',
    { name: 'ilike.*abc*' },
    OFF,
    { pushed: [], residual: [`lower("name") LIKE '%abc%'`] },
  ],
  [
    'LIKE on varbinary is a function on the column',
    { key: 'like.*abc*' },
    OFF,
    { pushed: [], residual: [`from_utf8("key") LIKE '%abc%'`] },
  ],
  ['NOT LIKE', { name: 'not.like.*abc*' }, OFF, { pushed: [], residual: [`NOT ("name" LIKE '%abc%')`] }],
  // PostgREST's wildcards: a substring written with % is the same pushed LIKE; _ is a wildcard.
  ['LIKE %text% written with %', { name: 'like.%abc%' }, OFF, { pushed: [`"name" LIKE '%abc%'`], residual: [] }],
  ['LIKE with a _ wildcard', { name: 'like.*a_b*' }, OFF, { pushed: [], residual: [`"name" LIKE '%a_b%'`] }],
  [
    'like(any) of substrings is an OR on one column',
    { name: 'like(any).{*a*,*b*}' },
    OFF,
    {
      pushed: [`("name" LIKE '%a%' OR "name" LIKE '%b%')`],
      residual: [],
    },
  ],
  [
    'eq(any) is an IN list',
    { id: 'eq(any).{1,2}' },
    OFF,
    { pushed: [`"id" IN (BIGINT '1', BIGINT '2')`], residual: [] },
  ],
  [
    'IS DISTINCT FROM is a domain',
    { id: 'isdistinct.5' },
    OFF,
    { pushed: [`"id" IS DISTINCT FROM BIGINT '5'`], residual: [] },
  ],
  ['is.not_null', { key: 'is.not_null' }, OFF, { pushed: [`"key" IS NOT NULL`], residual: [] }],
  ['is.unknown on a boolean', { active: 'is.unknown' }, OFF, { pushed: [`"active" IS NULL`], residual: [] }],
  ['an empty in list is FALSE, read by nobody', { id: 'in.()' }, OFF, { pushed: ['FALSE'], residual: [] }],
  ['not.in.() is TRUE', { id: 'not.in.()' }, OFF, { pushed: ['NOT (FALSE)'], residual: [] }],
  ['a regular expression', { name: 'match.^a' }, OFF, { pushed: [], residual: [`try(regexp_like("name", '^a'))`] }],
  [
    'an array operator on headers',
    { headers: 'cs.{trace}' },
    OFF,
    { pushed: [], residual: [`cardinality(array_except(ARRAY['trace'], transform("headers", e -> e."key"))) = 0`] },
  ],
  // JSON fields of the payload are evaluated by Trino after the scan.
  [
    'a JSON field equality',
    { status: 'eq.paid' },
    OFF,
    { pushed: [], residual: [`json_extract_scalar(${V}, '$["status"]') = 'paid'`] },
  ],
  [
    'a JSON field IS NULL',
    { order_id: 'is.null' },
    OFF,
    { pushed: [], residual: [`try_cast(json_extract_scalar(${V}, '$["order_id"]') AS bigint) IS NULL`] },
  ],
  [
    'a JSON field beside a column: split per conjunct',
    { id: 'eq.1', status: 'eq.paid' },
    OFF,
    {
      pushed: [`"id" = BIGINT '1'`],
      residual: [`json_extract_scalar(${V}, '$["status"]') = 'paid'`],
    },
  ],
  // Non-scalar columns.
  ['IS NULL on an array column', { headers: 'is.null' }, OFF, { pushed: [], residual: [`"headers" IS NULL`] }],
  ['IS NULL on a map column', { tags: 'is.null' }, OFF, { pushed: [], residual: [`"tags" IS NULL`] }],
  // OR: on one column always; across columns only with vast.complex_predicate_pushdown.
  [
    'OR on one column',
    { or: '(id.eq.1,id.gt.9)' },
    OFF,
    { pushed: [`("id" = BIGINT '1' OR "id" > BIGINT '9')`], residual: [] },
  ],
  [
    'OR on one column with IN and IS NULL',
    { or: '(key.in.(a,b),key.is.null)' },
    OFF,
    { pushed: [`("key" IN (X'61', X'62') OR "key" IS NULL)`], residual: [] },
  ],
  [
    'OR across columns, complex pushdown off',
    { or: '(id.eq.1,name.eq.x)' },
    OFF,
    { pushed: [], residual: [`("id" = BIGINT '1' OR "name" = 'x')`] },
  ],
  [
    'OR across columns, complex pushdown on',
    { or: '(id.eq.1,name.eq.x)' },
    ON,
    { pushed: [`("id" = BIGINT '1' OR "name" = 'x')`], residual: [] },
  ],
  [
    'OR of ANDs across columns, off',
    { or: '(and(id.eq.1,name.eq.x),id.eq.2)' },
    OFF,
    { pushed: [], residual: [`(("id" = BIGINT '1' AND "name" = 'x') OR "id" = BIGINT '2')`] },
  ],
  [
    'OR of ANDs across columns, on',
    { or: '(and(id.eq.1,name.eq.x),id.eq.2)' },
    ON,
    { pushed: [`(("id" = BIGINT '1' AND "name" = 'x') OR "id" = BIGINT '2')`], residual: [] },
  ],
  [
    'OR with a JSON field is residual even when complex pushdown is on',
    { or: '(id.eq.1,status.eq.x)' },
    ON,
    {
      pushed: [],
      residual: [`("id" = BIGINT '1' OR json_extract_scalar(${V}, '$["status"]') = 'x')`],
    },
  ],
  [
    'OR on one column with a LIKE %text%',
    { or: '(name.like.*a*,name.is.null)' },
    OFF,
    { pushed: [`("name" LIKE '%a%' OR "name" IS NULL)`], residual: [] },
  ],
  [
    'OR on one column with a NOT LIKE',
    { or: '(name.not.like.*a*,name.is.null)' },
    ON,
    { pushed: [], residual: [`(NOT ("name" LIKE '%a%') OR "name" IS NULL)`] },
  ],
  [
    'NOT of an OR on one column',
    { 'not.or': '(id.eq.1,id.eq.2)' },
    OFF,
    { pushed: [`NOT (("id" = BIGINT '1' OR "id" = BIGINT '2'))`], residual: [] },
  ],
];

describe('classifyPushdown', () => {
  it.each(CASES)('%s', (_rule, params, rules, report) => {
    expect(classifyPushdown(where(params), rules)).toEqual(report);
  });

  it('no WHERE: nothing either way', () => {
    expect(classifyPushdown(null, OFF)).toEqual({ pushed: [], residual: [] });
  });

  it('the anchor and the time window of a page are pushed', () => {
    const t = topic.time!;
    const lit = { kind: 'literal' as const, type: t.type, value: { t: 'timestamp' as const, epochMs: 0, subMs: '' } };
    const w: PredicateNode = {
      kind: 'and',
      items: [
        { kind: 'anchor', column: t, dir: 'desc', value: lit },
        { kind: 'compare', op: 'lt', column: t, value: lit },
      ],
    };
    expect(classifyPushdown(w, OFF)).toEqual({
      pushed: [
        `"timestamp_broker" <= TIMESTAMP '1970-01-01 00:00:00.000'`,
        `"timestamp_broker" < TIMESTAMP '1970-01-01 00:00:00.000'`,
      ],
      residual: [],
    });
  });

  it('an unknown column never reaches the classifier', () => {
    expect(() => where({ nope: 'eq.1' })).toThrow(ApiError);
  });

  // BUG (pushdown.ts 'not'), both directions of De Morgan's law: NOT (a AND b) over two columns is (NOT a) OR (NOT b), an OR across columns, which the
  // connector pushes only with complex_predicate_pushdown. The classifier recurses into the AND and calls it pushed.
  // And NOT (a OR b) over two columns is (NOT a) AND (NOT b), a conjunction of domains Trino hands to the connector
  // as such, but the classifier recurses into the OR and calls it residual.
  // Fix: for `not` over `and`/`or`, classify the inner group as if its kind were flipped.
  it('NOT of an OR across columns is an AND of domains: pushed', () => {
    expect(classifyPushdown(where({ 'not.or': '(id.eq.1,name.eq.x)' }), OFF)).toEqual({
      pushed: [`NOT (("id" = BIGINT '1' OR "name" = 'x'))`],
      residual: [],
    });
  });

  it('NOT of an AND across columns is an OR across columns: residual when complex pushdown is off', () => {
    expect(classifyPushdown(where({ 'not.and': '(id.eq.1,name.eq.x)' }), OFF)).toEqual({
      pushed: [],
      residual: [`NOT (("id" = BIGINT '1' AND "name" = 'x'))`],
    });
  });
});
