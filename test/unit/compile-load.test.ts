/**
 * A load's statements (API.md "Loads run by Trino"): the whole SQL of each, written by the compiler from the plan's
 * tree; the marker comment's closed alphabet; the planner's load window (times always landed, the guardrail's
 * bound).
 */
import { describe, expect, it } from 'vitest';
import { plan } from '../../src/query/planner.js';
import {
  compileCatalogs,
  compileKillQuery,
  compileTargetExists,
  compileUnfinished,
} from '../../src/query/sql/compile-load.js';
import { markerComment } from '../../src/query/sql/sql-text.js';
import type { ColumnNode, PredicateNode, TargetNode } from '../../src/query/tree/nodes.js';
import { refusal } from '../cases/api-error.js';
import { table, topicOf } from '../cases/columns.js';
import { testPolicy } from '../cases/read-policy.js';

const COLUMNS = [
  table('key', 'varbinary'),
  table('value', 'varbinary'),
  table('timestamp_broker', 'timestamp(3)'),
  table('timestamp_producer', 'timestamp(3)'),
];
const AMOUNT: ColumnNode = {
  kind: 'column',
  name: 'amount',
  type: 'decimal(12,2)',
  source: { kind: 'json', from: 'value', path: ['amount'] },
};
const orders = topicOf(COLUMNS, 'orders', { expanded: [AMOUNT] });
const TARGET: TargetNode = { kind: 'target', catalog: 'lake', schema: 'landing', table: 'orders' };
const MARKER = markerComment(['topicgate', 'load', 'orders-lake']);
const T0 = Date.parse('2026-11-20T00:00:00.000Z');
const AMOUNT_SQL = `try_cast(json_extract_scalar(CASE WHEN to_utf8(from_utf8("value")) = "value" THEN from_utf8("value") END, '$["amount"]') AS decimal(12,2))`;
const RESIDUAL: PredicateNode = {
  kind: 'compare',
  op: 'gt',
  column: AMOUNT,
  value: { kind: 'literal', type: 'decimal(12,2)', value: { t: 'decimal', v: '10' } },
};

const loadPlan = (
  fromMs: number | null,
  untilMs: number,
  where: PredicateNode | null = null,
  select = ['key', 'amount'],
) => plan({ kind: 'load', topic: orders, read: { select, where }, fromMs, untilMs }, testPolicy());

describe('the statements of a run', () => {
  it('delete, insert and count one window of whole milliseconds; the target made from the select', () => {
    const sql = loadPlan(T0, T0 + 60_000).loadSql(TARGET, MARKER);
    const select = `SELECT "key", ${AMOUNT_SQL} AS "amount", "timestamp_broker", "timestamp_producer" FROM "vast"."s"."orders"`;
    const window = `"timestamp_broker" >= TIMESTAMP '2026-11-20 00:00:00.000' AND "timestamp_broker" < TIMESTAMP '2026-11-20 00:01:00.000'`;
    expect(sql).toEqual({
      createSchema: `/* topicgate load orders-lake */ CREATE SCHEMA IF NOT EXISTS "lake"."landing"`,
      create: `/* topicgate load orders-lake */ CREATE TABLE "lake"."landing"."orders" AS ${select} WHERE ${window} WITH NO DATA`,
      delete: `/* topicgate load orders-lake */ DELETE FROM "lake"."landing"."orders" WHERE ${window}`,
      insert: `/* topicgate load orders-lake */ INSERT INTO "lake"."landing"."orders" ("key", "amount", "timestamp_broker", "timestamp_producer") ${select} WHERE ${window}`,
      count: `/* topicgate load orders-lake */ SELECT count(*) FROM "lake"."landing"."orders" WHERE ${window}`,
    });
  });

  it('from the beginning: the window has no lower bound; without a select, every column', () => {
    const all = plan({ kind: 'load', topic: orders, read: { where: null }, fromMs: null, untilMs: T0 }, testPolicy());
    const sql = all.loadSql(TARGET, MARKER);
    expect(sql.delete).toBe(
      `/* topicgate load orders-lake */ DELETE FROM "lake"."landing"."orders" WHERE "timestamp_broker" < TIMESTAMP '2026-11-20 00:00:00.000'`,
    );
    expect(sql.insert).toContain(
      `("key", "value", "timestamp_broker", "timestamp_producer", "amount") SELECT "key", "value", "timestamp_broker", "timestamp_producer", ${AMOUNT_SQL} AS "amount"`,
    );
  });

  it('a row policy is ANDed to what the load reads', () => {
    const rows = { filter: RESIDUAL, principal: 'eu-1' };
    const p = plan(
      { kind: 'load', topic: orders, read: { select: ['key'], where: null }, fromMs: T0, untilMs: T0 + 1 },
      testPolicy({ rows }),
    );
    expect(p.loadSql(TARGET, MARKER).insert).toContain(`AND ${AMOUNT_SQL} > DECIMAL '10'`);
    expect(p.run.clientTags).toEqual(['loads']);
  });

  it('filters all evaluated after the scan: bounded to the guardrail window, and refused from the beginning', () => {
    const week = 7 * 86_400_000;
    expect(loadPlan(T0, T0 + 30 * 86_400_000, RESIDUAL).position.hi).toBe(T0 + week);
    expect(refusal(() => loadPlan(null, T0, RESIDUAL))[0]).toBe('TG_TIME_BOUND_REQUIRED');
  });
});

describe('the lookups around a run', () => {
  it('are whole statements with every name and value quoted', () => {
    expect(compileCatalogs()).toBe('SHOW CATALOGS');
    expect(compileTargetExists(TARGET)).toBe(
      `SELECT (SELECT count(*) FROM "lake".information_schema.schemata WHERE schema_name = 'landing'), ` +
        `(SELECT count(*) FROM "lake".information_schema.tables WHERE table_schema = 'landing' AND table_name = 'orders')`,
    );
    expect(compileUnfinished(MARKER)).toBe(
      "SELECT query_id FROM system.runtime.queries WHERE state NOT IN ('FINISHED', 'FAILED') " +
        "AND starts_with(query, '/* topicgate load orders-lake */')",
    );
    expect(compileKillQuery("20261203_x'", 'it is replaced')).toBe(
      `CALL system.runtime.kill_query(query_id => '20261203_x''', message => 'it is replaced')`,
    );
  });

  it('the marker takes a closed alphabet only: nothing can end the comment', () => {
    for (const bad of ['a */ DROP', 'a b', '', '*/', 'x\n', 'é']) {
      expect(refusal(() => markerComment(['topicgate', 'load', bad]))[0]).toBe('TG_BAD_VALUE');
    }
  });
});
