/**
 * Ad-hoc JSON arrow paths: the reference grammar with its caps, the column nodes the resolver builds,
 * the exact SQL they compile to, the type a literal gives a comparison, and select/order/groupBy/aggregates.
 */
import { describe, expect, it } from 'vitest';
import { compileColumn, compilePredicate } from '../../src/query/sql/compile.js';
import { compileQuery } from '../../src/query/sql/compile-query.js';
import { parseColumnRef, refText, splitAlias } from '../../src/query/request/column-ref.js';
import type { ColumnNode } from '../../src/query/tree/nodes.js';
import { planReadTree } from '../../src/query/plan-read-tree.js';
import { resolver } from '../../src/query/request/resolver.js';
import type { TopicModel } from '../../src/query/tree/topic-model.js';
import { readRequestFromBody, readRequestFromQuery } from '../../src/query/request/parse-read-request.js';
import { classifyPushdown } from '../../src/query/passes/pushdown.js';
import { table, topicOf } from '../cases/columns.js';
import { apiError } from '../cases/api-error.js';

const COLUMNS = [
  table('key', 'varbinary'),
  table('value', 'varbinary'),
  table('timestamp_broker', 'timestamp(3)'),
  table('headers', 'array(row(key varchar, value varbinary))'),
  table('note', 'varchar'),
  table('n', 'bigint'),
];
const DOC: ColumnNode = {
  kind: 'column',
  name: 'doc',
  type: 'json',
  source: { kind: 'json', from: 'value', path: ['doc'] },
};
const topic: TopicModel = topicOf(COLUMNS, 't', { expanded: [DOC] });
const resolve = resolver(topic);
const V = `CASE WHEN to_utf8(from_utf8("value")) = "value" THEN from_utf8("value") END`;
const text = (doc: string, path: string) =>
  `COALESCE(json_extract_scalar(${doc}, '${path}'), NULLIF(json_format(json_extract(${doc}, '${path}')), 'null'))`;

describe('parseColumnRef', () => {
  const CASES: [string, ReturnType<typeof parseColumnRef>, string][] = [
    ['value', { name: 'value', path: [], text: false }, 'value'],
    ['"value"', { name: 'value', path: [], text: false }, 'value'],
    ['"odd name.x"', { name: 'odd name.x', path: [], text: false }, '"odd name.x"'],
    ['value->>status', { name: 'value', path: ['status'], text: true }, 'value->>status'],
    ['value->status', { name: 'value', path: ['status'], text: false }, 'value->status'],
    [
      'value->customer->address->>country',
      { name: 'value', path: ['customer', 'address', 'country'], text: true },
      'value->customer->address->>country',
    ],
    ['value->items->0->>sku', { name: 'value', path: ['items', 0, 'sku'], text: true }, 'value->items->0->>sku'],
    ['value->"0"', { name: 'value', path: ['0'], text: false }, 'value->"0"'],
    ['"value"->"a b"->>"x\\"y"', { name: 'value', path: ['a b', 'x"y'], text: true }, 'value->"a b"->>"x\\"y"'],
    ['value->>été', { name: 'value', path: ['été'], text: true }, 'value->>été'],
    ['value->>trace-id', { name: 'value', path: ['trace-id'], text: true }, 'value->>"trace-id"'],
    ['value->>a.b', { name: 'value', path: ['a.b'], text: true }, 'value->>"a.b"'],
  ];
  it.each(CASES)('%s', (input, ref, canonical) => {
    expect(parseColumnRef(input)).toEqual(ref);
    expect(refText(ref)).toBe(canonical);
  });

  const BAD: [string, string][] = [
    ['value->', 'value->: a key or an index is missing after -> at 7'],
    ['value->>a->b', 'value->>a->b: ->> gives text, so it can only be the last step'],
    ['value->-1', 'value->-1: -1: negative array indexes have no Trino counterpart here'],
    ['value->"a', 'value->"a: unbalanced double quotes'],
    ['"value"x->a', '"value"x->a: expected -> or ->> at 7'],
    ['->a', '->a: the column name is missing'],
    [`value${'->a'.repeat(17)}`, `value${'->a'.repeat(17)}: a JSON path may have at most 16 steps`],
  ];
  it.each(BAD)('%s -> TG_BAD_REQUEST', (input, message) => {
    const e = apiError(() => parseColumnRef(input));
    expect([e.code, e.status, e.message]).toEqual(['TG_BAD_REQUEST', 400, message]);
  });

  it('caps the reference length at 512 characters, naming the cap', () => {
    expect(parseColumnRef(`value->>${'a'.repeat(504)}`).path).toEqual(['a'.repeat(504)]);
    const e = apiError(() => parseColumnRef(`value->>${'a'.repeat(505)}`));
    expect([e.code, e.details]).toEqual(['TG_BAD_REQUEST', { column: `value->>${'a'.repeat(32)}...`, maxLength: 512 }]);
    expect(e.message).toContain('at most 512 characters');
  });

  it('splitAlias: alias:ref, and :: (a cast) refused', () => {
    expect(splitAlias('country:value->>c')).toEqual({ alias: 'country', ref: 'value->>c' });
    expect(splitAlias('value->>"a:b"')).toEqual({ alias: null, ref: 'value->>"a:b"' });
    expect(apiError(() => splitAlias('key::text')).message).toBe(
      'key::text: casts (::) have no counterpart here; select the column as it is',
    );
  });
});

describe('path columns compile through sql-text with the UTF-8 and JSON safety of declared fields', () => {
  const CASES: [string, string][] = [
    ['value->status', `json_extract(${V}, '$["status"]')`],
    ['value->>status', text(V, '$["status"]')],
    ['value->items->0->>sku', text(V, '$["items"][0]["sku"]')],
    ["value->>it's", text(V, `$["it''s"]`)],
    ['value->>"a\\"b\\\\c"', text(V, '$["a\\"b\\\\c"]')],
    ['note->>a', text('"note"', '$["a"]')],
    ['key->>a', text(`CASE WHEN to_utf8(from_utf8("key")) = "key" THEN from_utf8("key") END`, '$["a"]')],
    ['doc->x', `json_extract(try_cast(json_extract(${V}, '$["doc"]') AS json), '$["x"]')`],
  ];
  it.each(CASES)('%s', (ref, sql) => {
    expect(compileColumn(resolve(ref))).toBe(sql);
  });

  it('a unicode key is written with U& escapes', () => {
    expect(compileColumn(resolve('value->été'))).toBe(`json_extract(${V}, U&'$["\\00e9t\\00e9"]')`);
  });

  it('a column that holds no JSON text is refused, naming it', () => {
    for (const ref of ['n->>a', 'headers->0', 'timestamp_broker->>a']) {
      const e = apiError(() => resolve(ref));
      expect([e.code, e.message]).toEqual([
        'TG_BAD_REQUEST',
        `${ref}: ${ref.split('-')[0]} (${topic.columns.get(ref.split('-')[0]!)!.type}) holds no JSON text; arrow paths apply to varbinary (value, key), varchar and json columns`,
      ]);
    }
    expect(apiError(() => resolve('nope->>a')).code).toBe('TG_UNKNOWN_COLUMN');
  });
});

describe('filters on paths: the literal gives the comparison its type', () => {
  const S = (path: string) => `json_extract_scalar(${V}, '${path}')`;
  const CASES: [Record<string, string>, string][] = [
    [{ 'value->>status': 'eq.paid' }, `${text(V, '$["status"]')} = 'paid'`],
    [{ 'value->status': 'eq.paid' }, `${text(V, '$["status"]')} = 'paid'`],
    [{ 'value->>amount': 'gt.400' }, `try_cast(${S('$["amount"]')} AS double) > DOUBLE '400.0'`],
    [{ 'value->amount': 'lte.-1.5e2' }, `try_cast(${S('$["amount"]')} AS double) <= DOUBLE '-150.0'`],
    [
      { 'value->>created_at': 'lt.2026-11-01T01:00:00Z' },
      `try(CAST(from_iso8601_timestamp(${S('$["created_at"]')}) AT TIME ZONE 'UTC' AS timestamp(3))) < TIMESTAMP '2026-11-01 01:00:00.000'`,
    ],
    [
      { 'value->customer->address->>country': 'in.(DE,FR)' },
      `${text(V, '$["customer"]["address"]["country"]')} IN ('DE', 'FR')`,
    ],
    [{ 'value->>n': 'in.(1,2)' }, `try_cast(${S('$["n"]')} AS double) IN (DOUBLE '1.0', DOUBLE '2.0')`],
    [{ 'value->>n': 'in.(1,x)' }, `${text(V, '$["n"]')} IN ('1', 'x')`],
    [{ 'value->>status': 'like.p*' }, `${text(V, '$["status"]')} LIKE 'p%'`],
    [{ 'value->status': 'imatch.^P' }, `try(regexp_like(${text(V, '$["status"]')}, '(?i)^P'))`],
    [{ 'value->>status': 'is.null' }, `${text(V, '$["status"]')} IS NULL`],
    [{ 'value->ref': 'is.not_null' }, `json_extract(${V}, '$["ref"]') IS NOT NULL`],
    [{ 'value->>ok': 'is.true' }, `try_cast(${S('$["ok"]')} AS boolean) = TRUE`],
    [
      { 'value->>amount': 'gt(all).{1,2}' },
      `(try_cast(${S('$["amount"]')} AS double) > DOUBLE '1.0' AND try_cast(${S('$["amount"]')} AS double) > DOUBLE '2.0')`,
    ],
    [
      { 'value->tags': 'cs.{a,b}' },
      `cardinality(array_except(ARRAY['a', 'b'], try_cast(json_extract(${V}, '$["tags"]') AS array(varchar)))) = 0`,
    ],
    [
      { 'value->ids': 'ov.{1,2}' },
      `arrays_overlap(try_cast(json_extract(${V}, '$["ids"]') AS array(double)), ARRAY[DOUBLE '1.0', DOUBLE '2.0'])`,
    ],
    [
      { or: '(value->>status.eq.paid,value->>"a.b".eq.x)' },
      `(${text(V, '$["status"]')} = 'paid' OR ${text(V, '$["a.b"]')} = 'x')`,
    ],
    [{ '"value"->>"status"': 'eq.paid' }, `${text(V, '$["status"]')} = 'paid'`],
  ];
  it.each(CASES)('%j', (params, sql) => {
    const where = readRequestFromQuery(params, resolve).where!;
    expect(compilePredicate(where)).toBe(sql);
    // Every path filter is evaluated after the scan.
    expect(classifyPushdown(where, { complexPredicates: true }).pushed).toEqual([]);
  });

  it('a value the literal type cannot hold is a 400 naming the path', () => {
    const e = apiError(() => readRequestFromQuery({ 'value->>t': 'gt.2026-13-45T00:00:00Z' }, resolve));
    expect([e.code, e.message.startsWith('value->>t')]).toEqual(['TG_BAD_TIME', true]);
  });
});

describe('select, order, groupBy and aggregates with paths', () => {
  const POLICY = { defaultLimit: 10, maxLimit: 100 };
  const NOW = Date.parse('2026-11-02T00:00:00Z');
  const plan = (req: Parameters<typeof planReadTree>[1]) => planReadTree(topic, req, POLICY, null, NOW);

  it('GET select with aliases, order by a path (offset paging), the path in the page-token hash', () => {
    const req = readRequestFromQuery(
      {
        select: 'key,country:value->customer->address->>country,value->items->0->>sku',
        order: 'value->>status.desc.nullslast',
      },
      resolve,
    );
    const p = plan(req);
    expect(p.tree.select.map((s) => s.as)).toEqual(['key', 'country', 'sku']);
    expect(compileQuery(p.tree)).toBe(
      `SELECT "key", ${text(V, '$["customer"]["address"]["country"]')} AS "country", ${text(V, '$["items"][0]["sku"]')} AS "sku" ` +
        `FROM "vast"."s"."t" WHERE "timestamp_broker" < TIMESTAMP '2026-11-02 00:00:00.000' ` +
        `ORDER BY ${text(V, '$["status"]')} DESC NULLS LAST, "key" DESC, "value" DESC, "timestamp_broker" DESC, "headers" DESC, "note" DESC, "n" DESC LIMIT 11`,
    );
    expect(p.position.m).toBe('offset');
    const other = plan(
      readRequestFromQuery(
        {
          select: 'key,country:value->customer->>country,value->items->0->>sku',
          order: 'value->>status.desc.nullslast',
        },
        resolve,
      ),
    );
    expect(other.position.h).not.toBe(p.position.h);
  });

  it('POST groupBy a path and aggregates over paths (numeric functions read a number)', () => {
    const req = readRequestFromBody(
      {
        select: [
          'value->>status',
          { fn: 'count', as: 'n' },
          { fn: 'sum', field: 'value->>amount', as: 'total' },
          { fn: 'max', field: 'value->customer' },
        ],
        groupBy: ['value->>status'],
      },
      resolve,
    );
    const p = plan(req);
    expect(p.tree.groupBy).toEqual(['status']);
    expect(compileQuery(p.tree)).toBe(
      `SELECT ${text(V, '$["status"]')} AS "status", count(*) AS "n", sum(try_cast(json_extract_scalar(${V}, '$["amount"]') AS double)) AS "total", ` +
        `max(${text(V, '$["customer"]')}) AS "max_customer" FROM "vast"."s"."t" WHERE "timestamp_broker" < TIMESTAMP '2026-11-02 00:00:00.000' ` +
        `GROUP BY 1 ORDER BY "status" LIMIT 11`,
    );
  });

  it('select=* is every column (PostgREST; supabase-js sends it), and may be followed by paths', () => {
    const names = (select: string) => plan(readRequestFromQuery({ select }, resolve)).tree.select.map((s) => s.as);
    const all = ['key', 'value', 'timestamp_broker', 'headers', 'note', 'n', 'doc'];
    expect(names('*')).toEqual(all);
    expect(plan(readRequestFromQuery({}, resolve)).tree.select.map((s) => s.as)).toEqual(all);
    expect(names('*,country:value->>country')).toEqual([...all, 'country']);
  });

  it('quoted names in order, and dedupe by a path', () => {
    const ordered = plan(
      readRequestFromQuery({ select: 'key', order: '"key".desc,value->>"a.b".asc.nullsfirst' }, resolve),
    );
    expect(ordered.tree.order.map((o) => [o.name, o.dir, o.nulls ?? null])).toEqual([
      ['key', 'desc', null],
      ['value->>"a.b"', 'asc', 'first'],
    ]);
    expect(compileQuery(ordered.tree)).toContain(
      `ORDER BY "key" DESC, ${text(V, '$["a.b"]')} ASC NULLS FIRST, "value" DESC, "timestamp_broker" DESC, "headers" DESC`,
    );
    const anchored = plan(
      readRequestFromQuery({ select: 'key,timestamp_broker', order: '"timestamp_broker"' }, resolve),
    );
    expect(anchored.position.m).toBe('anchor');
    const deduped = plan({ select: ['key'], where: null, dedupe: { by: ['value->>order_id'], keep: 'latest' } });
    expect(compileQuery(deduped.tree)).toContain(
      `row_number() OVER (PARTITION BY ${text(V, '$["order_id"]')} ORDER BY`,
    );
  });

  it('a bad alias and ordering by JSON are 400s', () => {
    expect(apiError(() => plan(readRequestFromQuery({ select: '1x:value->>a' }, resolve))).message).toBe(
      'select: the alias "1x" must match ^[A-Za-z_][A-Za-z0-9_]{0,127}$',
    );
    expect(apiError(() => plan(readRequestFromQuery({ order: 'value->a' }, resolve))).message).toBe(
      'order: value->a (json) cannot be sorted',
    );
  });
});
