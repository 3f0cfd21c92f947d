/**
 * The compiler (STYLE.md habit 15): the full SQL text a request becomes, written out by hand, for a topic table
 * (`vast."demo|kafka_topics".orders` with expanded JSON fields) and for a plain table. Each case goes the whole
 * way: GET parameters or a POST body -> planReadTree (passes included, `now` pinned) -> compileQuery.
 */
import { describe, expect, it } from 'vitest';
import { compileCount, compileQuery, compileTailSummary } from '../../src/query/sql/compile-query.js';
import type { ColumnNode } from '../../src/query/tree/nodes.js';
import type { PagePosition } from '../../src/query/tree/page-position.js';
import { planReadTree } from '../../src/query/plan-read-tree.js';
import { resolver } from '../../src/query/request/resolver.js';
import type { ReadRequest } from '../../src/query/tree/read-request.js';
import type { TopicModel } from '../../src/query/tree/topic-model.js';
import { readRequestFromBody, readRequestFromQuery } from '../../src/query/request/parse-read-request.js';
import type { QueryBody } from '../../src/query/request/read-schema.js';
import { table, topicOf } from '../cases/columns.js';

const field = (name: string, type: string, path: (string | number)[]): ColumnNode => ({
  kind: 'column',
  name,
  type,
  source: { kind: 'json', from: 'value', path },
});

const TOPIC_COLUMNS = [
  table('key', 'varbinary'),
  table('value', 'varbinary'),
  table('timestamp_broker', 'timestamp(3)'),
  table('timestamp_producer', 'timestamp(3)'),
  table('headers', 'array(row(key varchar, value varbinary))'),
];
const EXPANDED = [
  field('order_id', 'bigint', ['order_id']),
  field('amount', 'decimal(12,2)', ['amount']),
  field('customer__name', 'varchar', ['customer', 'name']),
  field('created_at', 'timestamp(3)', ['created_at']),
  field('paid', 'boolean', ['paid']),
  field('items', 'array(varchar)', ['items']),
  // A key with a double quote, a backslash and a single quote, then an array index: JSONPath first, then SQL.
  field('odd', 'varchar', ['a"b\\c', "it's", 0]),
];
const orders: TopicModel = topicOf(TOPIC_COLUMNS, 'orders', { expanded: EXPANDED, schema: 'demo|kafka_topics' });

const ITEM_COLUMNS = [
  table('id', 'bigint'),
  table('price', 'decimal(12,2)'),
  table('name', 'varchar'),
  table('qty', 'smallint'),
  table('active', 'boolean'),
  table('day', 'date'),
  table('updated_at', 'timestamp(6)'),
];
const items: TopicModel = topicOf(ITEM_COLUMNS, 'items', { schema: 'demo|kafka_topics', kind: 'table' });

const NOW = Date.parse('2026-11-30T08:00:00.000Z');
const POLICY = { defaultLimit: 100, maxLimit: 1000 };

/** The payload as text, or NULL when it is not UTF-8 (every expanded field reads through this). */
const V = `CASE WHEN to_utf8(from_utf8("value")) = "value" THEN from_utf8("value") END`;
const ORDERS = `"vast"."demo|kafka_topics"."orders"`;
const ITEMS = `"vast"."demo|kafka_topics"."items"`;
/** `until` defaults to the pinned now: every topic read is bounded above. */
const HI = `"timestamp_broker" < TIMESTAMP '2026-11-30 08:00:00.000'`;
/** The total order: broker time, then every other table column. */
const TOPIC_ORDER = `ORDER BY "timestamp_broker" ASC, "key", "value", "timestamp_producer", "headers"`;
const ITEMS_ORDER = `ORDER BY "id", "price", "name", "qty", "active", "day", "updated_at"`;
const ALL_TOPIC = `"key", "value", "timestamp_broker", "timestamp_producer", "headers"`;

function get(topic: TopicModel, params: Record<string, string | string[]>, token: PagePosition | null = null): string {
  const req = readRequestFromQuery(params, resolver(topic));
  return compileQuery(planReadTree(topic, req, POLICY, token && ((h) => ({ ...token, h })), NOW).tree);
}
function post(topic: TopicModel, body: QueryBody): string {
  return compileQuery(planReadTree(topic, readRequestFromBody(body, resolver(topic)), POLICY, null, NOW).tree);
}

describe('compileQuery: select and order', () => {
  it('a bare read selects every column and expanded field, in the total order, limit + 1', () => {
    expect(get(orders, {})).toBe(
      `SELECT ${ALL_TOPIC}, ` +
        `try_cast(json_extract_scalar(${V}, '$["order_id"]') AS bigint) AS "order_id", ` +
        `try_cast(json_extract_scalar(${V}, '$["amount"]') AS decimal(12,2)) AS "amount", ` +
        `json_extract_scalar(${V}, '$["customer"]["name"]') AS "customer__name", ` +
        `try(CAST(from_iso8601_timestamp(json_extract_scalar(${V}, '$["created_at"]')) AT TIME ZONE 'UTC' AS timestamp(3))) AS "created_at", ` +
        `try_cast(json_extract_scalar(${V}, '$["paid"]') AS boolean) AS "paid", ` +
        `try_cast(json_extract(${V}, '$["items"]') AS array(varchar)) AS "items", ` +
        `json_extract_scalar(${V}, '$["a\\"b\\\\c"]["it''s"][0]') AS "odd" ` +
        `FROM ${ORDERS} WHERE ${HI} ${TOPIC_ORDER} LIMIT 101`,
    );
  });

  const CASES: [string, TopicModel, Record<string, string>, string][] = [
    [
      'a subset, in the order asked',
      orders,
      { select: 'timestamp_broker,key' },
      `SELECT "timestamp_broker", "key" FROM ${ORDERS} WHERE ${HI} ${TOPIC_ORDER} LIMIT 101`,
    ],
    [
      'descending: the tie-breakers follow the first direction',
      orders,
      { select: 'key', order: 'timestamp_broker.desc', limit: '10' },
      `SELECT "key" FROM ${ORDERS} WHERE ${HI} ORDER BY "timestamp_broker" DESC, "key" DESC, "value" DESC, "timestamp_producer" DESC, "headers" DESC LIMIT 11`,
    ],
    [
      'an order column that is not selected is written as the column; nulls placement kept',
      orders,
      { select: 'key', order: 'timestamp_producer.desc.nullsfirst,key' },
      `SELECT "key" FROM ${ORDERS} WHERE ${HI} ORDER BY "timestamp_producer" DESC NULLS FIRST, "key" ASC, "value" DESC, "timestamp_broker" DESC, "headers" DESC LIMIT 101`,
    ],
    [
      'ordering by an expanded field that is selected uses its output name',
      orders,
      { select: 'order_id', order: 'order_id.asc.nullslast' },
      `SELECT try_cast(json_extract_scalar(${V}, '$["order_id"]') AS bigint) AS "order_id" FROM ${ORDERS} WHERE ${HI} ORDER BY "order_id" ASC NULLS LAST, "key", "value", "timestamp_broker", "timestamp_producer", "headers" LIMIT 101`,
    ],
    [
      'ordering by an expanded field that is not selected repeats its expression',
      orders,
      { select: 'key', order: 'customer__name' },
      `SELECT "key" FROM ${ORDERS} WHERE ${HI} ORDER BY json_extract_scalar(${V}, '$["customer"]["name"]') ASC, "key", "value", "timestamp_broker", "timestamp_producer", "headers" LIMIT 101`,
    ],
    [
      'a plain table: no window, ordered by all its columns',
      items,
      { select: 'id,name' },
      `SELECT "id", "name" FROM ${ITEMS} ${ITEMS_ORDER} LIMIT 101`,
    ],
  ];
  it.each(CASES)('%s', (_label, topic, params, sql) => {
    expect(get(topic, params)).toBe(sql);
  });
});

describe('compileQuery: every filter operator, with literals of the column type', () => {
  // [GET parameters on `items` (a plain table), the WHERE text]
  const ITEM_FILTERS: [Record<string, string>, string][] = [
    [{ id: 'eq.5' }, `"id" = BIGINT '5'`],
    [{ id: 'neq.-7' }, `"id" <> BIGINT '-7'`],
    [{ id: 'gt.9223372036854775807' }, `"id" > BIGINT '9223372036854775807'`],
    [{ id: 'gte.007' }, `"id" >= BIGINT '7'`],
    [{ qty: 'lt.5' }, `"qty" < SMALLINT '5'`],
    [{ qty: 'lte.-32768' }, `"qty" <= SMALLINT '-32768'`],
    [{ id: 'in.(1,2,3)' }, `"id" IN (BIGINT '1', BIGINT '2', BIGINT '3')`],
    [{ name: 'in.(a,"b,c","d\\"e",it\'s)' }, `"name" IN ('a', 'b,c', 'd"e', 'it''s')`],
    [{ name: "eq.it's" }, `"name" = 'it''s'`],
    [{ name: 'eq.Zoë 🚀' }, `"name" = U&'Zo\\00eb \\+01f680'`],
    [{ name: 'like.*abc*' }, `"name" LIKE '%abc%'`],
    // PostgREST's LIKE: %, _ and * are wildcards, a backslash escapes the next character.
    [{ name: 'like.50%*' }, `"name" LIKE '50%%'`],
    [{ name: 'like.a_b' }, `"name" LIKE 'a_b'`],
    [{ name: 'like.50\\%*' }, `"name" LIKE '50\\%%' ESCAPE '\\'`],
    [{ name: 'like.a\\_b' }, `"name" LIKE 'a\\_b' ESCAPE '\\'`],
    [{ name: 'like.back\\\\slash*' }, `"name" LIKE 'back\\\\slash%' ESCAPE '\\'`],
    [{ name: 'like.back\\slash*' }, `"name" LIKE 'backslash%'`],
    [{ name: 'ilike.*ABC*' }, `lower("name") LIKE '%abc%'`],
    [{ name: 'is.null' }, `"name" IS NULL`],
    [{ active: 'is.true' }, `"active" = TRUE`],
    [{ active: 'is.false' }, `"active" = FALSE`],
    [{ active: 'eq.true' }, `"active" = TRUE`],
    [{ active: 'neq.false' }, `"active" <> FALSE`],
    [{ name: 'not.is.null' }, `"name" IS NOT NULL`],
    [{ id: 'not.eq.5' }, `NOT ("id" = BIGINT '5')`],
    [{ id: 'not.in.(1,2)' }, `NOT ("id" IN (BIGINT '1', BIGINT '2'))`],
    [{ name: 'not.like.*x*' }, `NOT ("name" LIKE '%x%')`],
    [{ name: 'not.ilike.*X*' }, `NOT (lower("name") LIKE '%x%')`],
    [{ id: 'not.not.eq.1' }, `NOT (NOT ("id" = BIGINT '1'))`],
    // Decimals are padded to the column's scale, so no cast lands on the column.
    [{ price: 'eq.5' }, `"price" = DECIMAL '5.00'`],
    [{ price: 'gte.-0.5' }, `"price" >= DECIMAL '-0.50'`],
    [{ price: 'lt.12.3' }, `"price" < DECIMAL '12.30'`],
    [{ price: 'eq..5' }, `"price" = DECIMAL '0.50'`],
    [{ price: 'eq.1.230' }, `"price" = DECIMAL '1.23'`],
    [{ price: 'eq.0012.5' }, `"price" = DECIMAL '12.50'`],
    [{ price: 'in.(1,2.5)' }, `"price" IN (DECIMAL '1.00', DECIMAL '2.50')`],
    [{ day: 'eq.2026-11-30' }, `"day" = DATE '2026-11-30'`],
    // timestamp(6): microseconds kept; a seventh digit rounds in the direction that keeps the comparison exact.
    [{ updated_at: 'gte.2026-11-30T10:00:00+02:00' }, `"updated_at" >= TIMESTAMP '2026-11-30 08:00:00.000000'`],
    [{ updated_at: 'eq.2026-11-30T08:00:00.123456Z' }, `"updated_at" = TIMESTAMP '2026-11-30 08:00:00.123456'`],
    [{ updated_at: 'gt.2026-11-30T08:00:00.1234567Z' }, `"updated_at" > TIMESTAMP '2026-11-30 08:00:00.123456'`],
    [{ updated_at: 'gte.2026-11-30T08:00:00.1234567Z' }, `"updated_at" >= TIMESTAMP '2026-11-30 08:00:00.123457'`],
    [{ updated_at: 'lt.2026-11-30T08:00:00.1234567Z' }, `"updated_at" < TIMESTAMP '2026-11-30 08:00:00.123457'`],
    [{ updated_at: 'lte.2026-11-30T08:00:00.1234567Z' }, `"updated_at" <= TIMESTAMP '2026-11-30 08:00:00.123456'`],
    [{ updated_at: 'gte.2026-11-30T08:00:00.9999991Z' }, `"updated_at" >= TIMESTAMP '2026-11-30 08:00:01.000000'`],
    [{ updated_at: 'gte.2026-11-30T08:00:00.123456000Z' }, `"updated_at" >= TIMESTAMP '2026-11-30 08:00:00.123456'`],
  ];
  it.each(ITEM_FILTERS)('items %j', (params, where) => {
    expect(get(items, { select: 'id', ...params })).toBe(
      `SELECT "id" FROM ${ITEMS} WHERE ${where} ${ITEMS_ORDER} LIMIT 101`,
    );
  });

  // [GET parameters on `orders` (a topic table), the user's part of the WHERE text]
  const TOPIC_FILTERS: [Record<string, string>, string][] = [
    // Bytes from UTF-8 text, or from `\x` hex (any case), always as X'..'.
    [{ key: 'eq.k1' }, `"key" = X'6b31'`],
    [{ key: 'eq.\\xDEADbeef' }, `"key" = X'deadbeef'`],
    [{ key: 'eq.\\x' }, `"key" = X''`],
    [{ key: "eq.it's" }, `"key" = X'69742773'`],
    [{ key: 'in.(a,\\x00ff)' }, `"key" IN (X'61', X'00ff')`],
    [{ key: 'neq.é' }, `"key" <> X'c3a9'`],
    [{ key: 'is.null' }, `"key" IS NULL`],
    [{ key: 'like.*abc*' }, `from_utf8("key") LIKE '%abc%'`],
    [{ value: 'ilike.*ABC*' }, `lower(from_utf8("value")) LIKE '%abc%'`],
    // timestamp(3): sub-millisecond digits round down for > and <=, up for >= and <.
    [{ timestamp_broker: 'gt.2026-11-30T07:00:00.0005Z' }, `"timestamp_broker" > TIMESTAMP '2026-11-30 07:00:00.000'`],
    [
      { timestamp_broker: 'gte.2026-11-30T07:00:00.0005Z' },
      `"timestamp_broker" >= TIMESTAMP '2026-11-30 07:00:00.001'`,
    ],
    [{ timestamp_broker: 'lt.2026-11-30T07:00:00.0005Z' }, `"timestamp_broker" < TIMESTAMP '2026-11-30 07:00:00.001'`],
    [
      { timestamp_broker: 'lte.2026-11-30T07:00:00.0005Z' },
      `"timestamp_broker" <= TIMESTAMP '2026-11-30 07:00:00.000'`,
    ],
    [
      { timestamp_broker: 'gte.2026-11-30T07:59:59.9991Z' },
      `"timestamp_broker" >= TIMESTAMP '2026-11-30 08:00:00.000'`,
    ],
    [
      { timestamp_broker: 'lte.2026-11-30T07:59:59.9999Z' },
      `"timestamp_broker" <= TIMESTAMP '2026-11-30 07:59:59.999'`,
    ],
    [
      { timestamp_broker: 'gte.2026-11-30T07:00:00.500000Z' },
      `"timestamp_broker" >= TIMESTAMP '2026-11-30 07:00:00.500'`,
    ],
    [{ timestamp_producer: 'lt.2026-11-30' }, `"timestamp_producer" < TIMESTAMP '2026-11-30 00:00:00.000'`],
    // Expanded fields: the JSON expression is compared with a literal of the field's type.
    [{ order_id: 'eq.1000000' }, `try_cast(json_extract_scalar(${V}, '$["order_id"]') AS bigint) = BIGINT '1000000'`],
    [{ amount: 'gte.10' }, `try_cast(json_extract_scalar(${V}, '$["amount"]') AS decimal(12,2)) >= DECIMAL '10.00'`],
    [{ customer__name: 'eq.Zoë' }, `json_extract_scalar(${V}, '$["customer"]["name"]') = U&'Zo\\00eb'`],
    [{ customer__name: 'like.*Silva*' }, `json_extract_scalar(${V}, '$["customer"]["name"]') LIKE '%Silva%'`],
    [{ customer__name: 'not.is.null' }, `json_extract_scalar(${V}, '$["customer"]["name"]') IS NOT NULL`],
    [
      { created_at: 'gte.2026-11-30T09:00:00+01:00' },
      `try(CAST(from_iso8601_timestamp(json_extract_scalar(${V}, '$["created_at"]')) AT TIME ZONE 'UTC' AS timestamp(3))) >= TIMESTAMP '2026-11-30 08:00:00.000'`,
    ],
    [{ paid: 'is.true' }, `try_cast(json_extract_scalar(${V}, '$["paid"]') AS boolean) = TRUE`],
    [{ items: 'is.null' }, `try_cast(json_extract(${V}, '$["items"]') AS array(varchar)) IS NULL`],
    [{ odd: 'eq.x' }, `json_extract_scalar(${V}, '$["a\\"b\\\\c"]["it''s"][0]') = 'x'`],
  ];
  it.each(TOPIC_FILTERS)('orders %j', (params, where) => {
    expect(get(orders, { select: 'key', ...params })).toBe(
      `SELECT "key" FROM ${ORDERS} WHERE ${HI} AND ${where} ${TOPIC_ORDER} LIMIT 101`,
    );
  });

  it('several parameters are ANDed at the top level, without parentheses (each conjunct on its own for the storage)', () => {
    expect(get(items, { select: 'id', id: 'gt.1', name: ['neq.a', 'neq.b'] })).toBe(
      `SELECT "id" FROM ${ITEMS} WHERE "id" > BIGINT '1' AND "name" <> 'a' AND "name" <> 'b' ${ITEMS_ORDER} LIMIT 101`,
    );
  });

  const LOGIC: [Record<string, string>, string][] = [
    [{ or: '(id.eq.1,name.eq.x)' }, `("id" = BIGINT '1' OR "name" = 'x')`],
    [{ and: '(id.gt.1,id.lt.9)' }, `"id" > BIGINT '1' AND "id" < BIGINT '9'`],
    [{ or: '(id.eq.1)' }, `"id" = BIGINT '1'`],
    [
      { or: '(id.eq.1,and(name.eq.x,not.or(qty.lt.1,qty.gt.9)))' },
      `("id" = BIGINT '1' OR ("name" = 'x' AND NOT (("qty" < SMALLINT '1' OR "qty" > SMALLINT '9'))))`,
    ],
    [{ 'not.or': '(id.eq.1,id.eq.2)' }, `NOT (("id" = BIGINT '1' OR "id" = BIGINT '2'))`],
    [{ 'not.and': '(id.eq.1,name.is.null)' }, `NOT (("id" = BIGINT '1' AND "name" IS NULL))`],
    [
      { or: '(id.in.(1,2),name.not.in.("a,b",c))' },
      `("id" IN (BIGINT '1', BIGINT '2') OR NOT ("name" IN ('a,b', 'c')))`,
    ],
    [{ or: '("name".eq.x,"qty".is.null)' }, `("name" = 'x' OR "qty" IS NULL)`],
    [{ id: 'gt.0', or: '(qty.eq.1,qty.eq.2)' }, `"id" > BIGINT '0' AND ("qty" = SMALLINT '1' OR "qty" = SMALLINT '2')`],
  ];
  it.each(LOGIC)('logic %j', (params, where) => {
    expect(get(items, { select: 'id', ...params })).toBe(
      `SELECT "id" FROM ${ITEMS} WHERE ${where} ${ITEMS_ORDER} LIMIT 101`,
    );
  });

  it('a POST where tree compiles like its GET spelling', () => {
    expect(
      post(items, {
        select: ['id'],
        where: {
          or: [
            { field: 'id', op: 'in', value: [1, '2'] },
            { not: { field: 'name', op: 'is', value: null } },
            { field: 'price', op: 'gt', value: 1.5 },
          ],
        },
      }),
    ).toBe(
      `SELECT "id" FROM ${ITEMS} WHERE ("id" IN (BIGINT '1', BIGINT '2') OR "name" IS NOT NULL OR "price" > DECIMAL '1.50') ${ITEMS_ORDER} LIMIT 101`,
    );
  });
});

describe('compileQuery: the time window', () => {
  const CASES: [string, Record<string, string>, string][] = [
    [
      'since inclusive, until exclusive, until rounded up to the next ms',
      { since: '2026-11-30T07:00:00Z', until: '2026-11-30T07:30:00.0005Z' },
      `"timestamp_broker" >= TIMESTAMP '2026-11-30 07:00:00.000' AND "timestamp_broker" < TIMESTAMP '2026-11-30 07:30:00.001'`,
    ],
    [
      'since rounded up to the next ms (>= keeps its meaning)',
      { since: '2026-11-30T07:00:00.0001+00:00' },
      `"timestamp_broker" >= TIMESTAMP '2026-11-30 07:00:00.001' AND ${HI}`,
    ],
    [
      'relative since; until defaults to the pinned now',
      { since: '-15m' },
      `"timestamp_broker" >= TIMESTAMP '2026-11-30 07:45:00.000' AND ${HI}`,
    ],
    [
      'relative since and until',
      { since: '-2h', until: '-500ms' },
      `"timestamp_broker" >= TIMESTAMP '2026-11-30 06:00:00.000' AND "timestamp_broker" < TIMESTAMP '2026-11-30 07:59:59.500'`,
    ],
    [
      'a date is midnight UTC',
      { since: '2026-11-23', until: 'now' },
      `"timestamp_broker" >= TIMESTAMP '2026-11-23 00:00:00.000' AND ${HI}`,
    ],
    [
      'the window comes first, the filters after',
      { since: '-7d', key: 'eq.k' },
      `"timestamp_broker" >= TIMESTAMP '2026-11-23 08:00:00.000' AND ${HI} AND "key" = X'6b'`,
    ],
  ];
  it.each(CASES)('%s', (_label, params, where) => {
    expect(get(orders, { select: 'key', ...params })).toBe(
      `SELECT "key" FROM ${ORDERS} WHERE ${where} ${TOPIC_ORDER} LIMIT 101`,
    );
  });
});

describe('compileQuery: aggregation', () => {
  const CASES: [string, TopicModel, QueryBody, string][] = [
    [
      'every aggregate, grouped by a column, ordered by an aggregate; the group column breaks ties',
      orders,
      {
        select: [
          'key',
          { fn: 'count' },
          { fn: 'count_distinct', field: 'value', as: 'n' },
          { fn: 'approx_distinct', field: 'value' },
          { fn: 'sum', field: 'amount' },
          { fn: 'avg', field: 'order_id' },
          { fn: 'min', field: 'timestamp_producer' },
          { fn: 'max', field: 'created_at' },
          { fn: 'count', field: 'order_id' },
        ],
        groupBy: ['key'],
        order: [{ field: 'count', dir: 'desc' }],
        limit: 10,
      },
      `SELECT "key", count(*) AS "count", count(DISTINCT "value") AS "n", approx_distinct("value") AS "approx_distinct_value", ` +
        `sum(try_cast(json_extract_scalar(${V}, '$["amount"]') AS decimal(12,2))) AS "sum_amount", ` +
        `avg(try_cast(json_extract_scalar(${V}, '$["order_id"]') AS bigint)) AS "avg_order_id", ` +
        `min("timestamp_producer") AS "min_timestamp_producer", ` +
        `max(try(CAST(from_iso8601_timestamp(json_extract_scalar(${V}, '$["created_at"]')) AT TIME ZONE 'UTC' AS timestamp(3)))) AS "max_created_at", ` +
        `count(try_cast(json_extract_scalar(${V}, '$["order_id"]') AS bigint)) AS "count_order_id" ` +
        `FROM ${ORDERS} WHERE ${HI} GROUP BY 1 ORDER BY "count" DESC, "key" DESC LIMIT 11`,
    ],
    [
      'time buckets aligned to the epoch; latest/earliest are max_by/min_by on broker time',
      orders,
      {
        select: [
          { fn: 'latest', field: 'value' },
          { fn: 'earliest', field: 'key', as: 'first_key' },
        ],
        groupBy: [{ bucket: '1h', as: 'hour' }],
        since: '-1d',
      },
      `SELECT date_add('millisecond', -mod(to_milliseconds("timestamp_broker" - TIMESTAMP '1970-01-01 00:00:00.000'), 3600000), "timestamp_broker") AS "hour", ` +
        `max_by("value", "timestamp_broker") AS "latest_value", min_by("key", "timestamp_broker") AS "first_key" ` +
        `FROM ${ORDERS} WHERE "timestamp_broker" >= TIMESTAMP '2026-11-29 08:00:00.000' AND ${HI} GROUP BY 1 ORDER BY "hour" LIMIT 101`,
    ],
    [
      'group columns not selected are added in front, in groupBy order; GROUP BY names them by ordinal',
      orders,
      {
        select: [{ fn: 'approx_percentile', field: 'order_id', p: 0.99 }],
        groupBy: ['customer__name', { bucket: '5m' }],
      },
      `SELECT json_extract_scalar(${V}, '$["customer"]["name"]') AS "customer__name", ` +
        `date_add('millisecond', -mod(to_milliseconds("timestamp_broker" - TIMESTAMP '1970-01-01 00:00:00.000'), 300000), "timestamp_broker") AS "bucket", ` +
        `approx_percentile(try_cast(json_extract_scalar(${V}, '$["order_id"]') AS bigint), DOUBLE '0.99') AS "approx_percentile_order_id" ` +
        `FROM ${ORDERS} WHERE ${HI} GROUP BY 1, 2 ORDER BY "customer__name", "bucket" LIMIT 101`,
    ],
    [
      'a whole-table aggregate has no GROUP BY and no ORDER BY',
      items,
      {
        select: [
          { fn: 'count' },
          { fn: 'sum', field: 'price', as: 'total' },
          { fn: 'approx_percentile', field: 'qty', p: 0.5 },
        ],
        where: { field: 'active', op: 'is', value: 'true' },
      },
      `SELECT count(*) AS "count", sum("price") AS "total", approx_percentile("qty", DOUBLE '0.5') AS "approx_percentile_qty" FROM ${ITEMS} WHERE "active" = TRUE LIMIT 101`,
    ],
    [
      'ordering by a group column ascending; the other group column follows',
      items,
      {
        select: ['name', 'day', { fn: 'max', field: 'updated_at' }],
        groupBy: ['name', 'day'],
        order: [{ field: 'day', dir: 'asc', nulls: 'first' }],
      },
      `SELECT "name", "day", max("updated_at") AS "max_updated_at" FROM ${ITEMS} GROUP BY 1, 2 ORDER BY "day" ASC NULLS FIRST, "name" LIMIT 101`,
    ],
  ];
  it.each(CASES)('%s', (_label, topic, body, sql) => {
    expect(post(topic, body)).toBe(sql);
  });
});

describe('compileQuery: dedupe', () => {
  it('keeps one row per key (latest): a row_number window ordered by broker time, then every column', () => {
    expect(post(orders, { select: ['key', 'order_id'], dedupe: {}, limit: 5 })).toBe(
      `SELECT "key", try_cast(json_extract_scalar(${V}, '$["order_id"]') AS bigint) AS "order_id" ` +
        `FROM (SELECT *, row_number() OVER (PARTITION BY "key" ORDER BY "timestamp_broker" DESC, "key" DESC, "value" DESC, "timestamp_producer" DESC, "headers" DESC) AS "__topicgate_rn" ` +
        `FROM ${ORDERS} WHERE ${HI}) WHERE "__topicgate_rn" = 1 ${TOPIC_ORDER} LIMIT 6`,
    );
  });

  it('earliest, by an expanded field and a column; the filters apply before the dedupe', () => {
    expect(
      post(orders, {
        select: ['key'],
        where: { field: 'key', op: 'is', value: null },
        dedupe: { by: ['customer__name', 'key'], keep: 'earliest' },
      }),
    ).toBe(
      `SELECT "key" FROM (SELECT *, row_number() OVER (PARTITION BY json_extract_scalar(${V}, '$["customer"]["name"]'), "key" ` +
        `ORDER BY "timestamp_broker" ASC, "key" ASC, "value" ASC, "timestamp_producer" ASC, "headers" ASC) AS "__topicgate_rn" ` +
        `FROM ${ORDERS} WHERE ${HI} AND "key" IS NULL) WHERE "__topicgate_rn" = 1 ${TOPIC_ORDER} LIMIT 101`,
    );
  });
});

describe('compileQuery: page positions', () => {
  it('offset mode: OFFSET before LIMIT + 1', () => {
    expect(get(items, { select: 'id', limit: '20' }, { h: '', m: 'offset', s: 40 })).toBe(
      `SELECT "id" FROM ${ITEMS} ${ITEMS_ORDER} OFFSET 40 LIMIT 21`,
    );
  });

  it('anchor mode: a >= predicate on broker time first, the pinned window, then the skip within the anchor ms', () => {
    const token: PagePosition = {
      h: '',
      m: 'anchor',
      a: '2026-11-30 07:59:00.123',
      s: 3,
      lo: Date.parse('2026-11-30T07:00:00Z'),
      hi: NOW - 1000,
    };
    expect(get(orders, { select: 'timestamp_broker,key', since: '-1h', key: 'neq.k' }, token)).toBe(
      `SELECT "timestamp_broker", "key" FROM ${ORDERS} WHERE "timestamp_broker" >= TIMESTAMP '2026-11-30 07:59:00.123' ` +
        `AND "timestamp_broker" >= TIMESTAMP '2026-11-30 07:00:00.000' AND "timestamp_broker" < TIMESTAMP '2026-11-30 07:59:59.000' ` +
        `AND "key" <> X'6b' ${TOPIC_ORDER} OFFSET 3 LIMIT 101`,
    );
  });

  it('anchor mode, descending: the anchor is <=', () => {
    const token: PagePosition = { h: '', m: 'anchor', a: '2026-11-30 07:59:00.123', s: 0, hi: NOW };
    expect(get(orders, { select: 'timestamp_broker', order: 'timestamp_broker.desc' }, token)).toBe(
      `SELECT "timestamp_broker" FROM ${ORDERS} WHERE "timestamp_broker" <= TIMESTAMP '2026-11-30 07:59:00.123' AND ${HI} ` +
        `ORDER BY "timestamp_broker" DESC, "key" DESC, "value" DESC, "timestamp_producer" DESC, "headers" DESC LIMIT 101`,
    );
  });
});

describe('compileTailSummary and compileCount', () => {
  const plan = (req: Partial<ReadRequest>, token: PagePosition) =>
    planReadTree(orders, { where: null, ...req }, POLICY, (h) => ({ ...token, h }), NOW).tree;

  it('compileTailSummary counts the batch, its last broker time and the rows sharing it', () => {
    const tree = plan(
      { select: ['timestamp_broker', 'key'], limit: 50 },
      { h: '', m: 'anchor', a: '2026-11-30 07:00:00.000', s: 2, hi: NOW },
    );
    expect(compileTailSummary(tree, orders.time!)).toBe(
      `WITH b AS (SELECT "timestamp_broker" AS "__topicgate_t" FROM ${ORDERS} WHERE "timestamp_broker" >= TIMESTAMP '2026-11-30 07:00:00.000' AND ${HI} ` +
        `${TOPIC_ORDER} OFFSET 2 LIMIT 50) ` +
        `SELECT count(*), max("__topicgate_t"), count_if("__topicgate_t" = (SELECT max("__topicgate_t") FROM b)) FROM b`,
    );
  });

  it('compileCount keeps the WHERE (anchor, window, filters) and drops order and paging', () => {
    const tree = plan(
      { select: ['timestamp_broker'], where: { kind: 'is', column: orders.columns.get('key')!, what: 'null' } },
      { h: '', m: 'anchor', a: '2026-11-30 07:00:00.000', s: 2, hi: NOW },
    );
    expect(compileCount(tree)).toBe(
      `SELECT count(*) FROM ${ORDERS} WHERE "timestamp_broker" >= TIMESTAMP '2026-11-30 07:00:00.000' AND ${HI} AND "key" IS NULL`,
    );
  });

  it('compileCount without a WHERE', () => {
    expect(compileCount(planReadTree(items, { where: null }, POLICY, null, NOW).tree)).toBe(
      `SELECT count(*) FROM ${ITEMS}`,
    );
  });
});

describe('fixed defects', () => {
  // Regression: `is.true` compiles to `= TRUE`, so `not.is.true` becomes `NOT ("active" = TRUE)`, which drops NULL rows.
  // PostgREST's `not.is.true` is `IS NOT TRUE` and keeps them. Trino has no IS TRUE; IS DISTINCT FROM says it and
  // still is a domain on the bare column (pushable).
  it('not.is.true keeps NULLs: IS DISTINCT FROM TRUE', () => {
    expect(get(items, { select: 'id', active: 'not.is.true' })).toBe(
      `SELECT "id" FROM ${ITEMS} WHERE "active" IS DISTINCT FROM TRUE ${ITEMS_ORDER} LIMIT 101`,
    );
  });

  // eq (and neq, in) with an instant finer than the column: no value of the column can equal it, so it is refused
  // (rounding it would match the next millisecond).
  it('eq with sub-precision digits is refused, naming the column', () => {
    expect(() => get(orders, { select: 'key', timestamp_broker: 'eq.2026-11-30T07:00:00.0005Z' })).toThrow(
      /timestamp_broker: "2026-11-30T07:00:00.0005Z" is finer than timestamp\(3\)/,
    );
  });
});
