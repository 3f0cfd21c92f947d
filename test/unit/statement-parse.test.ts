/**
 * The SQL subset (API.md "Flight SQL") into the `/query` body: every construct of the subset against the exact body
 * it becomes, each body valid under the QueryBody schema and planned against a topic (so its names resolve as the
 * REST API resolves them), and the SQL the gateway compiles from a statement with hostile literals.
 */
import { describe, expect, it } from 'vitest';
import { Value } from 'typebox/value';
import { parseStatement, qualifiedTopicId, type ParsedStatement } from '../../src/query/statement/parse-statement.js';
import { QueryBody } from '../../src/query/request/read-schema.js';
import { readRequestFromBody } from '../../src/query/request/parse-read-request.js';
import { resolver } from '../../src/query/request/resolver.js';
import { planReadTree } from '../../src/query/plan-read-tree.js';
import { compileQuery } from '../../src/query/sql/compile-query.js';
import type { ColumnNode } from '../../src/query/tree/nodes.js';
import { table, topicOf } from '../cases/columns.js';

const field = (name: string, type: string): ColumnNode => ({
  kind: 'column',
  name,
  type,
  source: { kind: 'json', from: 'value', path: [name] },
});
const orders = topicOf(
  [
    table('key', 'varbinary'),
    table('value', 'varbinary'),
    table('timestamp_broker', 'timestamp(3)'),
    table('id', 'bigint'),
    table('price', 'decimal(12,2)'),
    table('flag', 'boolean'),
  ],
  'orders',
  {
    expanded: [
      field('status', 'varchar'),
      field('customer.country', 'varchar'),
      field('Odd:Name', 'varchar'),
      field('a"b', 'varchar'),
    ],
  },
);
const NOW = Date.parse('2026-11-30T08:00:00.000Z');
const POLICY = { defaultLimit: 100, maxLimit: 1000 };

const T = { name: 'orders' };
const body = (b: QueryBody, probe = false): ParsedStatement => ({ topic: T, body: b, probe });

const CASES: [string, string, ParsedStatement][] = [
  ['star', 'SELECT * FROM orders', body({})],
  ['columns, any letter case, a trailing ;', 'select KEY, Status from ORDERS;', body({ select: ['key', 'status'] })],
  [
    'a quoted name keeps its case and dots',
    'SELECT "customer.country", "Odd:Name" FROM orders',
    body({ select: ['customer.country', '"Odd:Name"'] }),
  ],
  ['a quoted quote', 'SELECT "a""b" FROM orders', body({ select: ['"a\\"b"'] })],
  ['aliases, with and without AS', 'SELECT status AS s, key k FROM orders', body({ select: ['s:status', 'k:key'] })],
  [
    'a qualifier naming the table or its alias is dropped',
    'SELECT o.status, orders.key FROM orders o',
    body({ select: ['status', 'key'] }),
  ],
  [
    'schema and catalog',
    'SELECT * FROM topicgate."demo".orders',
    { topic: { schema: 'demo', name: 'orders' }, body: {}, probe: false },
  ],
  ['comments', 'SELECT -- the status\n status /* and */ FROM orders', body({ select: ['status'] })],
  [
    '= <> != < <= > >=',
    "SELECT * FROM orders WHERE status = 'a' AND status <> 'b' AND status != 'c' AND id < 1 AND id <= 2 AND id > 3 AND id >= 4",
    body({
      where: {
        and: [
          { field: 'status', op: 'eq', value: 'a' },
          { field: 'status', op: 'neq', value: 'b' },
          { field: 'status', op: 'neq', value: 'c' },
          { field: 'id', op: 'lt', value: '1' },
          { field: 'id', op: 'lte', value: '2' },
          { field: 'id', op: 'gt', value: '3' },
          { field: 'id', op: 'gte', value: '4' },
        ],
      },
    }),
  ],
  [
    'a literal on the left is turned round',
    'SELECT * FROM orders WHERE 5 < id',
    body({ where: { field: 'id', op: 'gt', value: '5' } }),
  ],
  [
    'IN and NOT IN',
    "SELECT * FROM orders WHERE status IN ('a', 'b') OR status NOT IN ('c')",
    body({
      where: {
        or: [{ field: 'status', op: 'in', value: ['a', 'b'] }, { not: { field: 'status', op: 'in', value: ['c'] } }],
      },
    }),
  ],
  [
    'LIKE, NOT LIKE, ILIKE, ESCAPE; a backslash is literal',
    "SELECT * FROM orders WHERE status LIKE 'a%_' AND status NOT LIKE 'x\\%' AND status ILIKE 'P!%%' ESCAPE '!'",
    body({
      where: {
        and: [
          { field: 'status', op: 'like', value: 'a%_' },
          { not: { field: 'status', op: 'like', value: 'x\\\\%' } },
          { field: 'status', op: 'ilike', value: 'P\\%%' },
        ],
      },
    }),
  ],
  [
    'IS [NOT] NULL, IS TRUE, a boolean column alone',
    'SELECT * FROM orders WHERE status IS NULL OR status IS NOT NULL OR flag IS TRUE OR flag',
    body({
      where: {
        or: [
          { field: 'status', op: 'is', value: null },
          { not: { field: 'status', op: 'is', value: null } },
          { field: 'flag', op: 'is', value: 'true' },
          { field: 'flag', op: 'eq', value: 'true' },
        ],
      },
    }),
  ],
  [
    'IS DISTINCT FROM',
    'SELECT * FROM orders WHERE id IS DISTINCT FROM 3',
    body({ where: { field: 'id', op: 'isdistinct', value: '3' } }),
  ],
  [
    'IS [NOT] DISTINCT FROM NULL is IS [NOT] NULL; between literals it is decided',
    'SELECT * FROM orders WHERE status IS DISTINCT FROM NULL AND NULL IS NOT DISTINCT FROM id AND 1 IS DISTINCT FROM NULL',
    body({
      where: {
        and: [{ field: 'status', op: 'is', value: 'not_null' }, { not: { field: 'id', op: 'is', value: 'not_null' } }],
      },
    }),
  ],
  [
    'NULL IS DISTINCT FROM NULL is false',
    'SELECT key FROM orders WHERE NULL IS DISTINCT FROM NULL',
    body({ select: ['key'] }, true),
  ],
  [
    'BETWEEN and NOT BETWEEN',
    'SELECT * FROM orders WHERE id BETWEEN 1 AND 5 AND NOT price BETWEEN 0.5 AND 1',
    body({
      where: {
        and: [
          { field: 'id', op: 'gte', value: '1' },
          { field: 'id', op: 'lte', value: '5' },
          {
            not: {
              and: [
                { field: 'price', op: 'gte', value: '0.5' },
                { field: 'price', op: 'lte', value: '1' },
              ],
            },
          },
        ],
      },
    }),
  ],
  [
    'NOT, parentheses, AND over OR',
    'SELECT * FROM orders WHERE NOT (id = 1 OR id = 2) AND ((id) <> 3)',
    body({
      where: {
        and: [
          {
            not: {
              or: [
                { field: 'id', op: 'eq', value: '1' },
                { field: 'id', op: 'eq', value: '2' },
              ],
            },
          },
          { field: 'id', op: 'neq', value: '3' },
        ],
      },
    }),
  ],
  [
    'exact bigints, decimals, negatives, doubles',
    'SELECT * FROM orders WHERE id = 9223372036854775807 OR id = -9007199254740993 OR price = 0.10 OR price = 1e3',
    body({
      where: {
        or: [
          { field: 'id', op: 'eq', value: '9223372036854775807' },
          { field: 'id', op: 'eq', value: '-9007199254740993' },
          { field: 'price', op: 'eq', value: '0.10' },
          { field: 'price', op: 'eq', value: '1000' },
        ],
      },
    }),
  ],
  [
    "strings with '' escapes, bytes, booleans, dates",
    "SELECT * FROM orders WHERE status = 'it''s' OR key = X'00 ff' OR flag = FALSE OR status = DATE '2026-11-01'",
    body({
      where: {
        or: [
          { field: 'status', op: 'eq', value: "it's" },
          { field: 'key', op: 'eq', value: '\\x00ff' },
          { field: 'flag', op: 'eq', value: 'false' },
          { field: 'status', op: 'eq', value: '2026-11-01' },
        ],
      },
    }),
  ],
  [
    'top-level >= and < on broker time are since and until; the others stay conditions',
    "SELECT * FROM orders WHERE timestamp_broker >= TIMESTAMP '2026-11-01 00:00:00' AND timestamp_broker < '-1h' AND timestamp_broker > TIMESTAMP '2026-11-01 00:00:00.000001 +02:00'",
    body({
      since: '2026-11-01T00:00:00Z',
      until: '-1h',
      where: { field: 'timestamp_broker', op: 'gt', value: '2026-11-01T00:00:00.000001+02:00' },
    }),
  ],
  [
    'BETWEEN on broker time: since, and <= in where',
    "SELECT * FROM orders WHERE timestamp_broker BETWEEN TIMESTAMP '2026-11-01 00:00 UTC' AND TIMESTAMP '2026-11-02 00:00'",
    body({
      since: '2026-11-01T00:00:00Z',
      where: { field: 'timestamp_broker', op: 'lte', value: '2026-11-02T00:00:00Z' },
    }),
  ],
  [
    'an until not after since stays a condition (no row, as SQL reads it)',
    "SELECT * FROM orders WHERE timestamp_broker >= '2026-11-02' AND timestamp_broker < '2026-11-01'",
    body({ since: '2026-11-02', where: { field: 'timestamp_broker', op: 'lt', value: '2026-11-01' } }),
  ],
  [
    'a second lower bound stays a condition',
    "SELECT * FROM orders WHERE timestamp_broker >= '2026-11-01' AND timestamp_broker < '2026-11-02' AND timestamp_broker >= '2026-11-01T05:00:00Z'",
    body({
      since: '2026-11-01',
      until: '2026-11-02',
      where: { field: 'timestamp_broker', op: 'gte', value: '2026-11-01T05:00:00Z' },
    }),
  ],
  [
    'ORDER BY a column of a grouped read names its output',
    'SELECT "Odd:Name", count(*) AS n FROM orders GROUP BY "Odd:Name" ORDER BY "Odd:Name" DESC',
    body({
      select: ['"Odd:Name"', { fn: 'count', as: 'n' }],
      groupBy: ['"Odd:Name"'],
      order: [{ field: 'Odd:Name', dir: 'desc' }],
    }),
  ],
  [
    'times relative to the request: now(), current_timestamp, localtimestamp, - INTERVAL',
    "SELECT * FROM orders WHERE timestamp_broker >= now() - INTERVAL '15' MINUTE AND timestamp_broker < current_timestamp AND timestamp_broker <> localtimestamp - INTERVAL '2' DAY",
    body({
      since: '-15m',
      until: 'now',
      where: { field: 'timestamp_broker', op: 'neq', value: '-2d' },
    }),
  ],
  [
    'aggregates',
    'SELECT count(*), count(1) AS c1, count(status) AS cs, count(DISTINCT status) AS d, approx_distinct(status), sum(price) AS s, avg(id), min(id), max(id), approx_percentile(price, 0.9) AS p90, max_by(status, timestamp_broker) AS last_status, min_by(status, timestamp_broker), latest(id), earliest(id) FROM orders',
    body({
      select: [
        { fn: 'count' },
        { fn: 'count', as: 'c1' },
        { fn: 'count', field: 'status', as: 'cs' },
        { fn: 'count_distinct', field: 'status', as: 'd' },
        { fn: 'approx_distinct', field: 'status' },
        { fn: 'sum', field: 'price', as: 's' },
        { fn: 'avg', field: 'id' },
        { fn: 'min', field: 'id' },
        { fn: 'max', field: 'id' },
        { fn: 'approx_percentile', field: 'price', p: 0.9, as: 'p90' },
        { fn: 'latest', field: 'status', as: 'last_status' },
        { fn: 'earliest', field: 'status' },
        { fn: 'latest', field: 'id' },
        { fn: 'earliest', field: 'id' },
      ],
    }),
  ],
  [
    'GROUP BY a column, ORDER BY an alias, LIMIT',
    'SELECT status, count(*) AS n FROM orders GROUP BY status ORDER BY n DESC, status ASC NULLS LAST LIMIT 10',
    body({
      select: ['status', { fn: 'count', as: 'n' }],
      groupBy: ['status'],
      order: [
        { field: 'n', dir: 'desc' },
        { field: 'status', dir: 'asc', nulls: 'last' },
      ],
      limit: 10,
    }),
  ],
  [
    'GROUP BY and ORDER BY ordinals; ORDER BY an aggregate as selected',
    'SELECT status AS s, sum(price) FROM orders GROUP BY 1 ORDER BY sum(price) DESC, 1',
    body({
      select: ['s:status', { fn: 'sum', field: 'price' }],
      groupBy: ['status'],
      order: [{ field: 'sum_price', dir: 'desc' }, { field: 's' }],
    }),
  ],
  [
    "date_trunc('hour', timestamp_broker) by alias",
    "SELECT date_trunc('hour', timestamp_broker) AS h, count(*) AS n FROM orders GROUP BY h ORDER BY h",
    body({
      select: [{ fn: 'count', as: 'n' }],
      groupBy: [{ bucket: '1h', as: 'h' }],
      order: [{ field: 'h' }],
    }),
  ],
  [
    "bucket('15m', ...) by expression, no alias",
    "SELECT bucket('15m', timestamp_broker), count(*) FROM orders GROUP BY bucket('15m', timestamp_broker) ORDER BY 1 DESC",
    body({
      select: [{ fn: 'count' }],
      groupBy: [{ bucket: '15m' }],
      order: [{ field: 'bucket', dir: 'desc' }],
    }),
  ],
  [
    'SELECT DISTINCT groups by its columns',
    'SELECT DISTINCT status, key FROM orders',
    body({ select: ['status', 'key'], groupBy: ['status', 'key'] }),
  ],
  ['LIMIT ALL is no limit', 'SELECT key FROM orders LIMIT ALL', body({ select: ['key'] })],
  ['WHERE 1=0 is a probe', 'SELECT key FROM orders WHERE 1=0', body({ select: ['key'] }, true)],
  ['WHERE FALSE is a probe', "SELECT key FROM orders WHERE FALSE AND status = 'x'", body({ select: ['key'] }, true)],
  [
    'LIMIT 0 is a probe',
    "SELECT key FROM orders WHERE status = 'x' LIMIT 0",
    body({ select: ['key'], where: { field: 'status', op: 'eq', value: 'x' } }, true),
  ],
  [
    'constants fold away',
    "SELECT key FROM orders WHERE 1=1 AND (status = 'a' OR 1 = 0) AND 'x' <> 'y'",
    body({ select: ['key'], where: { field: 'status', op: 'eq', value: 'a' } }),
  ],
];

describe('parseStatement: each construct of the subset into the /query body', () => {
  it.each(CASES)('%s', (_, sql, expected) => {
    const parsed = parseStatement(sql);
    expect(parsed).toEqual(expected);
    expect(Value.Check(QueryBody, parsed.body)).toBe(true);
  });

  it.each(CASES.filter(([, , p]) => p.topic.name === 'orders' && !p.topic.schema))(
    '%s: the body plans against the topic',
    (_, sql) => {
      const { body: b } = parseStatement(sql);
      const plan = planReadTree(orders, readRequestFromBody(b, resolver(orders)), POLICY, null, NOW);
      expect(compileQuery(plan.tree)).toMatch(/^SELECT /);
    },
  );
});

describe("parseStatement: what reaches Trino is the compiler's SQL, never the statement", () => {
  it('injection-shaped literals become quoted literals of the column type', () => {
    const { body: b } = parseStatement(
      `SELECT key FROM orders WHERE status = 'x'' OR ''1''=''1' OR status = '; DROP TABLE orders; --' LIMIT 5`,
    );
    const sql = compileQuery(planReadTree(orders, readRequestFromBody(b, resolver(orders)), POLICY, null, NOW).tree);
    expect(sql).toContain(`= 'x'' OR ''1''=''1'`);
    expect(sql).toContain(`= '; DROP TABLE orders; --'`);
  });

  it('a bigint beyond 2^53 keeps every digit into the SQL', () => {
    const { body: b } = parseStatement('SELECT key FROM orders WHERE id IN (9007199254740993, -9223372036854775808)');
    const sql = compileQuery(planReadTree(orders, readRequestFromBody(b, resolver(orders)), POLICY, null, NOW).tree);
    expect(sql).toContain(`"id" IN (BIGINT '9007199254740993', BIGINT '-9223372036854775808')`);
  });
});

describe('qualifiedTopicId', () => {
  it.each([
    [{ name: 'orders' }, ['demo'], 'orders'],
    [{ schema: 'demo', name: 'orders' }, ['demo'], 'orders'],
    [{ schema: 'other', name: 'orders' }, ['demo'], null],
    [{ schema: 'demo', name: 'orders' }, ['demo', 'kafka_topics'], 'demo:orders'],
    [{ name: 'demo:orders' }, ['demo', 'kafka_topics'], 'demo:orders'],
    [{ schema: 'lake', name: 'orders' }, ['demo', 'kafka_topics'], null],
  ] as const)('%j in %j is %j', (topic, schemas, id) => {
    expect(qualifiedTopicId(topic, schemas)).toBe(id);
  });
});
