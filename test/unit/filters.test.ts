/**
 * The request grammars (PostgREST GET parameters and the POST `where` tree) read into predicate nodes, and every
 * way they refuse input: the error code, the column named, the parameter named.
 */
import { describe, expect, it } from 'vitest';
import { compilePredicate } from '../../src/query/sql/compile.js';
import { buildPredicate, parseColumnFilter, parseLogic, splitList, unquote } from '../../src/query/request/filters.js';
import type { ColumnNode, PredicateNode } from '../../src/query/tree/nodes.js';
import { resolver } from '../../src/query/request/resolver.js';
import type { TopicModel } from '../../src/query/tree/topic-model.js';
import {
  parseOrderParam,
  readRequestFromBody,
  readRequestFromQuery,
  whereFromJson,
} from '../../src/query/request/parse-read-request.js';
import type { Where } from '../../src/query/request/where-schema.js';
import { table, topicOf } from '../cases/columns.js';
import { apiError } from '../cases/api-error.js';

const COLUMNS = [
  table('key', 'varbinary'),
  table('value', 'varbinary'),
  table('timestamp_broker', 'timestamp(3)'),
  table('headers', 'array(row(key varchar, value varbinary))'),
  table('id', 'bigint'),
  table('price', 'decimal(12,2)'),
  table('name', 'varchar'),
  table('qty', 'smallint'),
  table('active', 'boolean'),
  table('day', 'date'),
  table('ratio', 'double'),
  table('tags', 'array(varchar)'),
  {
    kind: 'column',
    name: 'status',
    type: 'varchar',
    source: { kind: 'json', from: 'value', path: ['status'] },
  } as ColumnNode,
];
const topic: TopicModel = topicOf(COLUMNS.slice(0, -1), 'mixed', { expanded: COLUMNS.slice(-1) });
const resolve = resolver(topic);
const col = (name: string) => resolve(name);

/** Runs `f` and returns the ApiError it throws (fails the test if it throws anything else or nothing). */
const sqlOf = (p: PredicateNode | null) => (p ? compilePredicate(p) : null);

describe('splitList', () => {
  const CASES: [string, string[]][] = [
    ['a,b,c', ['a', 'b', 'c']],
    [' a , b ,c ', ['a', 'b', 'c']],
    ['"c,d",e', ['c,d', 'e']],
    ['"a\\"b"', ['a"b']],
    ['"back\\\\slash"', ['back\\slash']],
    ['" padded "', [' padded ']],
    ['""', ['']],
    ['', ['']],
    ['x(1,2),y', ['x(1,2)', 'y']],
    ['"(",")"', ['(', ')']],
    ["\"it's\",'q'", ["it's", "'q'"]],
    ['a,,b', ['a', '', 'b']],
    ['é,🚀', ['é', '🚀']],
  ];
  it.each(CASES)('%j -> %j', (text, items) => {
    expect(splitList(text, 'in').map(unquote)).toEqual(items);
  });

  it.each(['"abc', 'a(b', 'a)', '"a","'])('%j is unbalanced: TG_BAD_REQUEST', (text) => {
    const e = apiError(() => splitList(text, 'name'));
    expect([e.code, e.message]).toEqual(['TG_BAD_REQUEST', 'name: unbalanced quotes or parentheses']);
  });
});

describe('column filters (GET): op.value and not.op.value', () => {
  // [column, filter expression, the predicate as SQL]
  const CASES: [string, string, string][] = [
    ['id', 'eq.5', `"id" = BIGINT '5'`],
    ['id', 'eq.-0', `"id" = BIGINT '0'`],
    ['id', 'lte.-9223372036854775808', `"id" <= BIGINT '-9223372036854775808'`],
    ['qty', 'gt.32767', `"qty" > SMALLINT '32767'`],
    ['name', 'eq.', `"name" = ''`],
    ['name', 'eq.a.b.c', `"name" = 'a.b.c'`],
    ['name', 'eq.not.x', `"name" = 'not.x'`],
    ['name', 'eq.(x)', `"name" = '(x)'`],
    ['name', 'in.(a,"b,c","d\\"e","x)y")', `"name" IN ('a', 'b,c', 'd"e', 'x)y')`],
    ['name', 'in.("")', `"name" IN ('')`],
    ['name', 'not.in.(a)', `NOT ("name" IN ('a'))`],
    ['name', 'like.*', `"name" LIKE '%'`],
    ['name', 'like.a*b', `"name" LIKE 'a%b'`],
    ['name', 'ilike.Ab*', `lower("name") LIKE 'ab%'`],
    ['name', 'is.null', `"name" IS NULL`],
    ['name', 'not.is.null', `"name" IS NOT NULL`],
    ['active', 'is.true', `"active" = TRUE`],
    ['active', 'is.false', `"active" = FALSE`],
    ['active', 'neq.true', `"active" <> TRUE`],
    ['ratio', 'gt.1.5', `"ratio" > DOUBLE '1.5'`],
    ['ratio', 'eq.NaN', `"ratio" = nan()`],
    ['ratio', 'lt.-Infinity', `"ratio" < -infinity()`],
    ['ratio', 'gte.2', `"ratio" >= DOUBLE '2.0'`],
    ['price', 'in.(0,-1.5)', `"price" IN (DECIMAL '0.00', DECIMAL '-1.50')`],
    ['day', 'neq.2024-02-29', `"day" <> DATE '2024-02-29'`],
    ['key', 'eq.\\x00', `"key" = X'00'`],
    ['key', 'like.*a*', `from_utf8("key") LIKE '%a%'`],
    ['timestamp_broker', 'gte.2026-11-30T08:00:00Z', `"timestamp_broker" >= TIMESTAMP '2026-11-30 08:00:00.000'`],
    [
      'status',
      'eq.paid',
      `json_extract_scalar(CASE WHEN to_utf8(from_utf8("value")) = "value" THEN from_utf8("value") END, '$["status"]') = 'paid'`,
    ],
    ['headers', 'is.null', `"headers" IS NULL`],
    // The rest of PostgREST's operators and modifiers.
    ['name', 'is.NULL', `"name" IS NULL`],
    ['name', 'is.Not_Null', `"name" IS NOT NULL`],
    ['name', 'not.is.not_null', `"name" IS NULL`],
    ['active', 'is.UNKNOWN', `"active" IS NULL`],
    ['active', 'not.is.unknown', `"active" IS NOT NULL`],
    ['active', 'is.True', `"active" = TRUE`],
    ['active', 'not.is.false', `"active" IS DISTINCT FROM FALSE`],
    ['id', 'in.()', 'FALSE'],
    ['id', 'not.in.()', 'NOT (FALSE)'],
    ['name', 'in.( )', 'FALSE'],
    ['id', 'isdistinct.5', `"id" IS DISTINCT FROM BIGINT '5'`],
    ['active', 'not.isdistinct.true', `NOT ("active" IS DISTINCT FROM TRUE)`],
    ['name', 'match.^a.c$', `try(regexp_like("name", '^a.c$'))`],
    ['name', 'imatch.ab|cd', `try(regexp_like("name", '(?i)ab|cd'))`],
    ['key', 'match.^order-1', `try(regexp_like(from_utf8("key"), '^order-1'))`],
    ['name', 'not.match.x', `NOT (try(regexp_like("name", 'x')))`],
    // Trino's regex engine takes these; JavaScript's parser would not.
    ['name', 'match.(?i)abc', `try(regexp_like("name", '(?i)abc'))`],
    ['name', 'match.a++', `try(regexp_like("name", 'a++'))`],
    ['name', 'match.(?>ab)', `try(regexp_like("name", '(?>ab)'))`],
    ['name', 'match.[(]\\)', `try(regexp_like("name", '[(]\\)'))`],
    ['id', 'eq(any).{1,2}', `"id" IN (BIGINT '1', BIGINT '2')`],
    ['id', 'eq(all).{1,2}', `("id" = BIGINT '1' AND "id" = BIGINT '2')`],
    ['id', 'gt(any).{1,2}', `("id" > BIGINT '1' OR "id" > BIGINT '2')`],
    ['id', 'lte(all).{3}', `"id" <= BIGINT '3'`],
    ['id', 'eq(any).{}', 'FALSE'],
    ['id', 'gte(all).{}', 'NOT (FALSE)'],
    ['name', 'like(any).{a*,"*,*"}', `("name" LIKE 'a%' OR "name" LIKE '%,%')`],
    ['name', 'ilike(all).{*A*,*b*}', `(lower("name") LIKE '%a%' AND lower("name") LIKE '%b%')`],
    ['name', 'match(any).{^a,b$}', `(try(regexp_like("name", '^a')) OR try(regexp_like("name", 'b$')))`],
    ['name', 'imatch(all).{a}', `try(regexp_like("name", '(?i)a'))`],
    ['name', 'not.eq(any).{a,b}', `NOT ("name" IN ('a', 'b'))`],
    ['tags', 'cs.{a,"b,c"}', `cardinality(array_except(ARRAY['a', 'b,c'], "tags")) = 0`],
    ['tags', 'cd.{a,b}', `cardinality(array_except("tags", ARRAY['a', 'b'])) = 0`],
    ['tags', 'ov.{a}', `arrays_overlap("tags", ARRAY['a'])`],
    ['tags', 'cs.{}', `"tags" IS NOT NULL`],
    ['tags', 'cd.{}', `cardinality("tags") = 0`],
    ['tags', 'ov.{}', 'FALSE'],
    ['headers', 'cs.{trace}', `cardinality(array_except(ARRAY['trace'], transform("headers", e -> e."key"))) = 0`],
    ['headers', 'not.ov.{a,b}', `NOT (arrays_overlap(transform("headers", e -> e."key"), ARRAY['a', 'b']))`],
  ];
  it.each(CASES)('%s=%s', (name, expr, sql) => {
    expect(compilePredicate(parseColumnFilter(col(name), expr))).toBe(sql);
  });

  it('builds the node tree exactly', () => {
    // PostgREST: %, _ and * are wildcards; a backslash escapes the next character.
    expect(parseColumnFilter(col('name'), 'not.like.50%_*')).toEqual({
      kind: 'not',
      inner: { kind: 'like', column: col('name'), pattern: '50%_%', escape: false, caseInsensitive: false },
    });
    expect(parseColumnFilter(col('name'), 'like.50\\%\\_\\*')).toEqual({
      kind: 'like',
      column: col('name'),
      pattern: '50\\%\\_\\%',
      escape: true,
      caseInsensitive: false,
    });
    expect(parseColumnFilter(col('qty'), 'in.(1,2)')).toEqual({
      kind: 'in',
      column: col('qty'),
      values: [
        { kind: 'literal', type: 'smallint', value: { t: 'integer', v: '1' } },
        { kind: 'literal', type: 'smallint', value: { t: 'integer', v: '2' } },
      ],
    });
  });

  // [column, expression, code, message]
  const BAD_OPERATORS: [string, string, string][] = [
    [
      'id',
      'foo.5',
      'id: unknown operator "foo"; use one of eq, neq, gt, gte, lt, lte, isdistinct, in, like, ilike, match, imatch, is, cs, cd, ov (optionally after not.)',
    ],
    [
      'id',
      'EQ.5',
      'id: unknown operator "EQ"; use one of eq, neq, gt, gte, lt, lte, isdistinct, in, like, ilike, match, imatch, is, cs, cd, ov (optionally after not.)',
    ],
    [
      'id',
      'not.between.1',
      'id: unknown operator "between"; use one of eq, neq, gt, gte, lt, lte, isdistinct, in, like, ilike, match, imatch, is, cs, cd, ov (optionally after not.)',
    ],
    [
      'id',
      '5',
      'id: unknown operator "5"; use one of eq, neq, gt, gte, lt, lte, isdistinct, in, like, ilike, match, imatch, is, cs, cd, ov (optionally after not.)',
    ],
    ['id', 'like.*1*', 'id (bigint) does not support like; it matches text'],
    ['day', 'ilike.*', 'day (date) does not support ilike; it matches text'],
    ['active', 'gt.true', 'active (boolean) does not support gt'],
    ['active', 'lte.false', 'active (boolean) does not support lte'],
    ['headers', 'eq.x', 'headers (array(row(key varchar, value varbinary))) does not support eq'],
    ['headers', 'in.(x)', 'headers (array(row(key varchar, value varbinary))) does not support in'],
    ['name', 'is.true', 'name (varchar) is not boolean; use is.null or is.not_null'],
    ['name', 'is.unknown', 'name (varchar) is not boolean; use is.null or is.not_null'],
    ['id', 'match.1', 'id (bigint) does not support match; it matches text'],
    ['day', 'imatch.x', 'day (date) does not support imatch; it matches text'],
    ['id', 'cs.{1}', 'id (bigint) does not support cs; it applies to arrays of scalars and to headers'],
    ['name', 'ov.{a}', 'name (varchar) does not support ov; it applies to arrays of scalars and to headers'],
    [
      'id',
      'in(any).{1}',
      'id: in takes no (any) modifier; it applies to eq, like, ilike, gt, gte, lt, lte, match, imatch',
    ],
    [
      'id',
      'neq(all).{1}',
      'id: neq takes no (all) modifier; it applies to eq, like, ilike, gt, gte, lt, lte, match, imatch',
    ],
    [
      'id',
      'eq(some).{1}',
      `id: unknown operator "eq(some)"; use one of eq, neq, gt, gte, lt, lte, isdistinct, in, like, ilike, match, imatch, is, cs, cd, ov (optionally after not.)`,
    ],
    [
      'name',
      'fts.word',
      'name: fts is full-text search (PostgreSQL tsvector/tsquery), which has no Trino counterpart here; use like, ilike or match for text',
    ],
    [
      'name',
      'plfts(english).a b',
      'name: plfts is full-text search (PostgreSQL tsvector/tsquery), which has no Trino counterpart here; use like, ilike or match for text',
    ],
    [
      'name',
      'not.phfts.a',
      'name: phfts is full-text search (PostgreSQL tsvector/tsquery), which has no Trino counterpart here; use like, ilike or match for text',
    ],
    [
      'name',
      'wfts.a',
      'name: wfts is full-text search (PostgreSQL tsvector/tsquery), which has no Trino counterpart here; use like, ilike or match for text',
    ],
    [
      'id',
      'sl.(1,10)',
      'id: sl is a range operator (PostgreSQL range types), which has no Trino counterpart here; use like, ilike or match for text',
    ],
    [
      'id',
      'sr.(1,10)',
      'id: sr is a range operator (PostgreSQL range types), which has no Trino counterpart here; use like, ilike or match for text',
    ],
    [
      'id',
      'nxl.(1,10)',
      'id: nxl is a range operator (PostgreSQL range types), which has no Trino counterpart here; use like, ilike or match for text',
    ],
    [
      'id',
      'nxr.(1,10)',
      'id: nxr is a range operator (PostgreSQL range types), which has no Trino counterpart here; use like, ilike or match for text',
    ],
    [
      'id',
      'adj.(1,10)',
      'id: adj is a range operator (PostgreSQL range types), which has no Trino counterpart here; use like, ilike or match for text',
    ],
  ];
  it.each(BAD_OPERATORS)('%s=%s -> TG_BAD_OPERATOR', (name, expr, message) => {
    const e = apiError(() => parseColumnFilter(col(name), expr));
    expect([e.code, e.status, e.message]).toEqual(['TG_BAD_OPERATOR', 400, message]);
    expect(e.details).toMatchObject({ column: name });
  });

  // Every bad value names its column at the start of the message.
  const BAD_VALUES: [string, string, string][] = [
    ['id', 'eq', 'id: eq needs a value (eq.<value>)'],
    ['id', 'eq.abc', 'id: "abc" is not an integer'],
    ['id', 'eq.1.0', 'id: "1.0" is not an integer'],
    ['id', 'eq. 5', 'id: " 5" is not an integer'],
    ['id', 'gt.9223372036854775808', 'id: "9223372036854775808" is out of range for bigint'],
    ['qty', 'eq.40000', 'qty: "40000" is out of range for smallint'],
    ['price', 'eq.1.234', 'price: "1.234" has more than 2 decimal places'],
    ['price', 'eq.12345678901', 'price: "12345678901" does not fit decimal(12,2)'],
    ['price', 'eq.1e3', 'price: "1e3" is not a decimal number'],
    ['price', 'eq.-', 'price: "-" is not a decimal number'],
    ['price', 'eq.', 'price: "" is not a decimal number'],
    ['ratio', 'eq.abc', 'ratio: "abc" is not a number'],
    ['ratio', 'eq.', 'ratio: "" is not a number'],
    ['active', 'eq.yes', 'active: "yes" is not true or false'],
    ['active', 'eq.TRUE', 'active: "TRUE" is not true or false'],
    ['day', 'eq.2026-1-5', 'day: "2026-1-5" is not a date (YYYY-MM-DD)'],
    ['day', 'eq.2026-13-01', 'day: "2026-13-01" is not a date (YYYY-MM-DD)'],
    ['key', 'eq.\\xabc', 'key: "\\\\xabc" is not valid \\x hex bytes'],
    ['key', 'eq.\\xzz', 'key: "\\\\xzz" is not valid \\x hex bytes'],
    ['name', 'eq.a\u0000b', 'name: "a\\u0000b" contains a NUL or an unpaired surrogate'],
    ['name', 'eq.\ud800', 'name: "\\ud800" contains a NUL or an unpaired surrogate'],
    ['name', 'like.\u0000', 'name: the pattern contains a NUL or an unpaired surrogate'],
    ['name', 'is.maybe', 'name: is takes null, not_null, true, false, unknown, not "maybe"'],
    ['name', 'like.abc\\', 'name: the pattern ends with the escape character \\'],
    ['name', 'match.(', 'name: "(" is not a regular expression'],
    ['name', 'match.a[', 'name: "a[" is not a regular expression'],
    ['name', 'match.a)', 'name: "a)" is not a regular expression'],
    ['name', 'match.a\\', 'name: "a\\\\" is not a regular expression'],
    ['name', `match.${'a'.repeat(1001)}`, 'name: the regular expression is longer than 1000'],
    ['id', 'eq(any).1,2', 'id: eq(any) takes a list in braces, like eq(any).{a,b,"c,d"}'],
    ['id', 'eq(any).{1,x}', 'id: "x" is not an integer'],
    ['active', 'isdistinct.x', 'active: "x" is not true or false'],
    ['id', 'in.1,2', 'id: in takes a list in parentheses, like in.(a,b,"c,d")'],
    ['id', 'in.(1,x)', 'id: "x" is not an integer'],
  ];
  it.each(BAD_VALUES)('%s=%s -> TG_BAD_VALUE', (name, expr, message) => {
    const e = apiError(() => parseColumnFilter(col(name), expr));
    expect([e.code, e.status, e.message]).toEqual(['TG_BAD_VALUE', 400, message]);
  });

  it('a bad value carries the column and its type in details', () => {
    expect(apiError(() => parseColumnFilter(col('qty'), 'eq.x')).details).toEqual({ column: 'qty', type: 'smallint' });
  });

  it('an in list over 100000 values (the ceiling of limits.maxInValues) is TG_TOO_EXPENSIVE (422)', () => {
    const ok = `in.(${Array.from({ length: 100_000 }, (_, i) => i).join(',')})`;
    expect(parseColumnFilter(col('id'), ok)).toMatchObject({ kind: 'in', values: { length: 100_000 } });
    const e = apiError(() =>
      parseColumnFilter(col('id'), `in.(${Array.from({ length: 100_001 }, (_, i) => i).join(',')})`),
    );
    expect([e.code, e.status, e.message]).toEqual(['TG_TOO_EXPENSIVE', 422, 'id: in takes at most 100000 values']);
  });

  it('a time without a zone is read as UTC', () => {
    expect(compilePredicate(parseColumnFilter(col('timestamp_broker'), 'gt.2026-11-30T08:00:00'))).toBe(
      `"timestamp_broker" > TIMESTAMP '2026-11-30 08:00:00.000'`,
    );
  });

  // Regression (values.ts parseValue 'date'): Date.parse rolls 2026-02-30 over to March 2, so the value passes the check
  // and only sql-text's dateLiteral refuses it later, as a LiteralError without the column's name.
  it('an impossible calendar date is TG_BAD_VALUE naming the column', () => {
    const e = apiError(() => parseColumnFilter(col('day'), 'eq.2026-02-30'));
    expect([e.code, e.message]).toEqual(['TG_BAD_VALUE', 'day: "2026-02-30" is not a date (YYYY-MM-DD)']);
  });
});

describe('boolean groups (or=, and=, not.or=, not.and=)', () => {
  const CASES: [string, string, string][] = [
    ['or', '(id.eq.1,name.eq.x)', `("id" = BIGINT '1' OR "name" = 'x')`],
    ['and', '(id.eq.1,name.eq.x)', `("id" = BIGINT '1' AND "name" = 'x')`],
    ['or', '(id.eq.1)', `"id" = BIGINT '1'`],
    ['or', '( id.eq.1 , name.eq.x )', `("id" = BIGINT '1' OR "name" = 'x')`],
    [
      'or',
      ' (id.eq.1,and (qty.eq.1,not.or  (qty.eq.2,qty.eq.3)))',
      `("id" = BIGINT '1' OR ("qty" = SMALLINT '1' AND NOT (("qty" = SMALLINT '2' OR "qty" = SMALLINT '3'))))`,
    ],
    ['or', '(name.eq(any).{a,b},id.in.())', `("name" IN ('a', 'b') OR FALSE)`],
    ['or', '(name.like."*a,b*",name.match."^(a|b)$")', `("name" LIKE '%a,b%' OR try(regexp_like("name", '^(a|b)$')))`],
    [
      'or',
      '(and(id.gt.1,id.lt.5),not.and(qty.eq.1,qty.eq.2))',
      `(("id" > BIGINT '1' AND "id" < BIGINT '5') OR NOT (("qty" = SMALLINT '1' AND "qty" = SMALLINT '2')))`,
    ],
    [
      'and',
      '(or(name.is.null,name.like.*a*),id.not.in.(1,2))',
      `(("name" IS NULL OR "name" LIKE '%a%') AND NOT ("id" IN (BIGINT '1', BIGINT '2')))`,
    ],
    ['or', '(name.in.("a,b",c),id.eq.1)', `("name" IN ('a,b', 'c') OR "id" = BIGINT '1')`],
    ['or', '("name".eq.x,"id".gt.2)', `("name" = 'x' OR "id" > BIGINT '2')`],
    [
      'or',
      '(status.eq.paid,status.eq.shipped)',
      `(json_extract_scalar(CASE WHEN to_utf8(from_utf8("value")) = "value" THEN from_utf8("value") END, '$["status"]') = 'paid' OR json_extract_scalar(CASE WHEN to_utf8(from_utf8("value")) = "value" THEN from_utf8("value") END, '$["status"]') = 'shipped')`,
    ],
  ];
  it.each(CASES)('%s=%s', (kind, body, sql) => {
    expect(compilePredicate(parseLogic(kind as 'or' | 'and', body, resolve))).toBe(sql);
  });

  const BAD: [string, string, string][] = [
    ['id.eq.1', 'TG_BAD_REQUEST', 'or: the group must be in parentheses, like or=(a.eq.1,b.lt.2)'],
    ['()', 'TG_BAD_REQUEST', 'bad filter "": expected column.operator.value'],
    ['(id)', 'TG_BAD_REQUEST', 'bad filter "id": expected column.operator.value'],
    ['(.eq.1)', 'TG_BAD_REQUEST', 'bad filter ".eq.1": expected column.operator.value'],
    ['("id.eq.1)', 'TG_BAD_REQUEST', 'or: unbalanced quotes or parentheses'],
    ['(id.eq.1,nope.eq.2)', 'TG_UNKNOWN_COLUMN', 'mixed has no column "nope"'],
    [
      '(id.nope.1)',
      'TG_BAD_OPERATOR',
      'id: unknown operator "nope"; use one of eq, neq, gt, gte, lt, lte, isdistinct, in, like, ilike, match, imatch, is, cs, cd, ov (optionally after not.)',
    ],
    ['(id.eq.x)', 'TG_BAD_VALUE', 'id: "x" is not an integer'],
    ['(id.eq.1', 'TG_BAD_REQUEST', 'or: the group must be in parentheses, like or=(a.eq.1,b.lt.2)'],
    [`${'(or'.repeat(9)}(id.eq.1)${')'.repeat(9)}`, 'TG_BAD_REQUEST', 'boolean groups nest deeper than 8 levels'],
  ];
  it.each(BAD)('or=%s -> %s', (body, code, message) => {
    const e = apiError(() => parseLogic('or', body, resolve));
    expect([e.code, e.message]).toEqual([code, message]);
  });

  it('eight levels of nesting are accepted', () => {
    const body = `${'(or'.repeat(8)}(id.eq.1)${')'.repeat(8)}`;
    expect(compilePredicate(parseLogic('or', body, resolve))).toBe(`"id" = BIGINT '1'`);
  });

  // Regression (filters.ts splitList): PostgREST lets a value inside a group be double-quoted to carry reserved characters
  // (`or=(name.eq."a,b",...)`), but a quote is only recognised at the start of an item, so the comma splits the item.
  it('a quoted value inside a group keeps its comma', () => {
    expect(compilePredicate(parseLogic('or', '(name.eq."a,b",id.eq.1)', resolve))).toBe(
      `("name" = 'a,b' OR "id" = BIGINT '1')`,
    );
  });
  // Same cause: a parenthesis inside a quoted in-list value inside a group unbalances the outer split, though the
  // same list is fine as a column filter (name=in.("c)d")).
  it('a quoted in-list value with a parenthesis inside a group', () => {
    expect(compilePredicate(parseLogic('or', '(name.in.("c)d"),id.eq.1)', resolve))).toBe(
      `("name" IN ('c)d') OR "id" = BIGINT '1')`,
    );
  });
});

describe('readRequestFromQuery', () => {
  it('reads every part of a GET', () => {
    const req = readRequestFromQuery(
      {
        select: 'id, name,,',
        order: 'id.desc',
        limit: '25',
        since: '-1h',
        until: 'now',
        cursor: 'x',
        format: 'csv',
        explain: 'true',
        id: 'gt.1',
      },
      resolve,
    );
    expect(req).toEqual({
      select: ['id', 'name'],
      where: parseColumnFilter(col('id'), 'gt.1'),
      since: '-1h',
      until: 'now',
      order: [{ field: 'id', dir: 'desc' }],
      limit: 25,
    });
  });

  it('no parameters: everything undefined, no filter', () => {
    expect(readRequestFromQuery({}, resolve)).toEqual({
      select: undefined,
      where: null,
      since: undefined,
      until: undefined,
      order: undefined,
      limit: undefined,
    });
  });

  it('filters are ANDed: a repeated column filter, several groups, not.or and not.and', () => {
    const req = readRequestFromQuery(
      {
        id: ['gt.1', 'lt.9'],
        or: ['(name.eq.a,name.eq.b)', '(qty.eq.1,qty.eq.2)'],
        'not.or': '(day.eq.2026-01-01)',
        'not.and': '(active.is.true,active.is.false)',
      },
      resolve,
    );
    expect(sqlOf(req.where)).toBe(
      `("id" > BIGINT '1' AND "id" < BIGINT '9' AND ("name" = 'a' OR "name" = 'b') AND ("qty" = SMALLINT '1' OR "qty" = SMALLINT '2') AND ` +
        `NOT ("day" = DATE '2026-01-01') AND NOT (("active" = TRUE AND "active" = FALSE)))`,
    );
  });

  it('and= flattens into the top-level conjunction', () => {
    expect(readRequestFromQuery({ and: '(id.gt.1,id.lt.9)', name: 'eq.x' }, resolve).where).toEqual({
      kind: 'and',
      items: [
        parseColumnFilter(col('id'), 'gt.1'),
        parseColumnFilter(col('id'), 'lt.9'),
        parseColumnFilter(col('name'), 'eq.x'),
      ],
    });
  });

  it('an unknown column is TG_UNKNOWN_COLUMN listing the columns', () => {
    for (const q of [{ nope: 'eq.1' }, { or: '(id.eq.1,nope.eq.1)' }, { 'not.and': '(nope.is.null)' }]) {
      const e = apiError(() => readRequestFromQuery(q, resolve));
      expect([e.code, e.status, e.message]).toEqual(['TG_UNKNOWN_COLUMN', 400, 'mixed has no column "nope"']);
      expect(e.details).toEqual({ column: 'nope', available: [...topic.columns.keys()] });
    }
  });

  it('a column named like a reserved parameter is not a filter (select, order, limit, ...)', () => {
    expect(readRequestFromQuery({ explain: 'eq.1', format: 'eq.1', cursor: 'eq.1' }, resolve).where).toBeNull();
  });

  const DUPLICATES = ['select', 'order', 'limit', 'since', 'until'];
  it.each(DUPLICATES)('%s given twice -> TG_BAD_REQUEST', (name) => {
    const e = apiError(() => readRequestFromQuery({ [name]: ['1', '2'] }, resolve));
    expect([e.code, e.message, e.details]).toEqual([
      'TG_BAD_REQUEST',
      `${name} is given more than once`,
      { parameter: name },
    ]);
  });

  it.each(['abc', '-1', '1.5', '1e3', '', '1234567890'])('limit=%j -> TG_BAD_VALUE', (limit) => {
    const e = apiError(() => readRequestFromQuery({ limit }, resolve));
    expect([e.code, e.message]).toEqual([
      'TG_BAD_VALUE',
      `limit=${JSON.stringify(limit)} is not a positive integer or all`,
    ]);
  });
});

describe('parseOrderParam', () => {
  const CASES: [string, unknown][] = [
    ['id', [{ field: 'id' }]],
    ['id.asc', [{ field: 'id', dir: 'asc' }]],
    ['id.desc.nullsfirst', [{ field: 'id', dir: 'desc', nulls: 'first' }]],
    ['id.nullslast', [{ field: 'id', nulls: 'last' }]],
    [
      'id.desc,name, qty.asc.nullsfirst',
      [{ field: 'id', dir: 'desc' }, { field: 'name' }, { field: 'qty', dir: 'asc', nulls: 'first' }],
    ],
  ];
  it.each(CASES)('%j', (text, specs) => {
    expect(parseOrderParam(text)).toEqual(specs);
  });

  const BAD: [string, string][] = [
    ['id.up', 'order: "id.up": use col.asc|desc[.nullsfirst|.nullslast]'],
    ['id.DESC', 'order: "id.DESC": use col.asc|desc[.nullsfirst|.nullslast]'],
    ['id.', 'order: "id.": use col.asc|desc[.nullsfirst|.nullslast]'],
    ['', 'order: empty column name'],
    ['id,', 'order: empty column name'],
    ['.desc', 'order: empty column name'],
  ];
  it.each(BAD)('%j -> TG_BAD_REQUEST', (text, message) => {
    const e = apiError(() => parseOrderParam(text));
    expect([e.code, e.message, e.details]).toEqual(['TG_BAD_REQUEST', message, { parameter: 'order' }]);
  });
});

describe('the POST where tree', () => {
  const CASES: [Where, string][] = [
    [{ field: 'id', op: 'eq', value: 5 }, `"id" = BIGINT '5'`],
    [{ field: 'id', op: 'eq', value: '9223372036854775807' }, `"id" = BIGINT '9223372036854775807'`],
    [{ field: 'name', op: 'in', value: ['a,b', 'c"d', "e'f"] }, `"name" IN ('a,b', 'c"d', 'e''f')`],
    [{ field: 'name', op: 'is', value: null }, `"name" IS NULL`],
    [{ field: 'name', op: 'is' }, `"name" IS NULL`],
    [{ field: 'active', op: 'is', value: true }, `"active" = TRUE`],
    [{ field: 'active', op: 'eq', value: false }, `"active" = FALSE`],
    [{ field: 'price', op: 'gte', value: 10.5 }, `"price" >= DECIMAL '10.50'`],
    [{ field: 'ratio', op: 'lt', value: 0.25 }, `"ratio" < DOUBLE '0.25'`],
    [{ field: 'name', op: 'like', value: '*x_y*' }, `"name" LIKE '%x_y%'`],
    [{ field: 'name', op: 'like', value: '*x\\_y*' }, `"name" LIKE '%x\\_y%' ESCAPE '\\'`],
    [{ field: 'id', op: 'in', value: [] }, 'FALSE'],
    [{ field: 'id', op: 'eq(any)', value: [1, 2] }, `"id" IN (BIGINT '1', BIGINT '2')`],
    [{ field: 'id', op: 'gt(all)', value: [1, 2] }, `("id" > BIGINT '1' AND "id" > BIGINT '2')`],
    [{ field: 'name', op: 'like(any)', value: ['a*', '%b'] }, `("name" LIKE 'a%' OR "name" LIKE '%b')`],
    [{ field: 'name', op: 'is', value: 'NOT_NULL' }, `"name" IS NOT NULL`],
    [{ field: 'id', op: 'isdistinct', value: 3 }, `"id" IS DISTINCT FROM BIGINT '3'`],
    [{ field: 'name', op: 'imatch', value: '^a.c$' }, `try(regexp_like("name", '(?i)^a.c$'))`],
    [
      { field: 'headers', op: 'ov', value: ['trace'] },
      `arrays_overlap(transform("headers", e -> e."key"), ARRAY['trace'])`,
    ],
    [{ not: { field: 'name', op: 'is', value: null } }, `"name" IS NOT NULL`],
    [{ and: [{ field: 'id', op: 'gt', value: 1 }] }, `"id" > BIGINT '1'`],
    [
      {
        or: [
          {
            and: [
              { field: 'id', op: 'gt', value: 1 },
              { field: 'id', op: 'lt', value: 3 },
            ],
          },
          {
            not: {
              or: [
                { field: 'qty', op: 'eq', value: 1 },
                { field: 'qty', op: 'eq', value: 2 },
              ],
            },
          },
        ],
      },
      `(("id" > BIGINT '1' AND "id" < BIGINT '3') OR NOT (("qty" = SMALLINT '1' OR "qty" = SMALLINT '2')))`,
    ],
  ];
  it.each(CASES)('%j', (where, sql) => {
    expect(compilePredicate(whereFromJson(where, resolve))).toBe(sql);
  });

  const BAD: [Where, string, string][] = [
    [
      { field: 'id', op: 'between', value: 1 },
      'TG_BAD_OPERATOR',
      'where: id: unknown operator "between"; use one of eq, neq, gt, gte, lt, lte, isdistinct, in, like, ilike, match, imatch, is, cs, cd, ov (optionally after not.)',
    ],
    [{ field: 'nope', op: 'eq', value: 1 }, 'TG_UNKNOWN_COLUMN', 'mixed has no column "nope"'],
    [
      { field: 'id', op: 'eq', value: 9007199254740993 },
      'TG_BAD_VALUE',
      'id: 9007199254740992 lost digits in JSON; send it as a string',
    ],
    [{ field: 'id', op: 'eq', value: 1.5 }, 'TG_BAD_VALUE', 'id: 1.5 is not an integer'],
    [{ field: 'id', op: 'eq' }, 'TG_BAD_VALUE', 'id: null is not a bigint value'],
    [{ field: 'id', op: 'eq', value: { a: 1 } }, 'TG_BAD_VALUE', 'id: {"a":1} is not a bigint value'],
    [{ field: 'name', op: 'like', value: 5 }, 'TG_BAD_VALUE', 'name: like needs a text pattern'],
    [
      { field: 'name', op: 'is', value: 'maybe' },
      'TG_BAD_VALUE',
      'name: is takes null, not_null, true, false, unknown, not "maybe"',
    ],
    [{ and: [] }, 'TG_BAD_REQUEST', 'where: empty and'],
    [{ or: [] }, 'TG_BAD_REQUEST', 'where: empty or'],
  ];
  it.each(BAD)('%j -> %s', (where, code, message) => {
    const e = apiError(() => whereFromJson(where, resolve));
    expect([e.code, e.message]).toEqual([code, message]);
  });

  it('nesting deeper than 8 levels is TG_BAD_REQUEST', () => {
    let w: Where = { field: 'id', op: 'eq', value: 1 };
    for (let i = 0; i < 8; i++) w = { not: w };
    expect(compilePredicate(whereFromJson(w, resolve))).toMatch(/^(NOT \(){8}"id" = BIGINT '1'\){8}$/);
    const e = apiError(() => whereFromJson({ not: w }, resolve));
    expect([e.code, e.message]).toEqual(['TG_BAD_REQUEST', 'where: nests deeper than 8 levels']);
  });

  it('readRequestFromBody carries every member and resolves the where', () => {
    expect(
      readRequestFromBody(
        {
          select: ['id', { fn: 'count' }],
          where: { field: 'id', op: 'gt', value: 1 },
          since: '-1d',
          until: 'now',
          groupBy: ['id'],
          order: [{ field: 'count', dir: 'desc' }],
          limit: 5,
          dedupe: { keep: 'earliest' },
          cursor: 'ignored here',
        },
        resolve,
      ),
    ).toEqual({
      select: ['id', { fn: 'count' }],
      where: buildPredicate(col('id'), 'gt', 1),
      since: '-1d',
      until: 'now',
      groupBy: ['id'],
      order: [{ field: 'count', dir: 'desc' }],
      limit: 5,
      dedupe: { keep: 'earliest' },
    });
  });
});
