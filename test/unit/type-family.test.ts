/**
 * Type text read from its parsed form (core/type-family.ts): one sortability rule, Trino's, shared by the planner
 * (which refuses an order it cannot sort by) and the compiler (which leaves such columns out of a total order).
 */
import { describe, expect, it } from 'vitest';
import {
  arrayElementType,
  decimalDigits,
  enumsAsText,
  mapValueType,
  orderable,
  rowFieldsOf,
  timestampPrecision,
  typeFamily,
} from '../../src/core/type-family.js';
import { plan } from '../../src/query/planner.js';
import { compileQuery } from '../../src/query/sql/compile-query.js';
import { table, topicOf } from '../cases/columns.js';
import { testPolicy } from '../cases/read-policy.js';

describe('orderable: Trino sorts neither map nor json; an array by its element, a row by all its fields', () => {
  it.each([
    ['bigint', true],
    ['varchar(10)', true],
    ['timestamp(3) with time zone', true],
    ['map(varchar, bigint)', false],
    ['json', false],
    ['array(bigint)', true],
    ['array(map(varchar, bigint))', false],
    ['array(json)', false],
    ['row(a bigint, b varchar)', true],
    ['row(a bigint, m map(varchar, bigint))', false],
    ['array(row(key varchar, value varbinary))', true],
    // A field named like a type is a name, not a map.
    ['row(map varchar, json bigint)', true],
    ['HyperLogLog', true],
  ])('%s -> %s', (type, sortable) => {
    expect(orderable(type)).toBe(sortable);
  });

  const topic = topicOf([
    table('key', 'varbinary'),
    table('timestamp_broker', 'timestamp(3)'),
    table('tags', 'array(map(varchar, varchar))'),
    table('r', 'row(map varchar)'),
  ]);
  const read = (order: string) =>
    plan(
      { kind: 'read', topic, read: { where: null, since: '-1h', order: [{ field: order }] }, token: null },
      testPolicy(),
    );

  it('the planner refuses an order by an array of maps, as Trino would', () => {
    expect(() => read('tags')).toThrow(expect.objectContaining({ code: 'TG_BAD_VALUE' }));
  });

  it('the compiler leaves the array of maps out of the total order, and keeps the row whose field is named map', () => {
    const sql = compileQuery(read('r').tree);
    expect(sql).toMatch(/ ORDER BY "r" ASC, "key", "timestamp_broker" LIMIT 101$/);
  });
});

describe('the parts of a type', () => {
  it('reads families, elements, fields, map values, precision and scale', () => {
    expect(
      ['varchar(3)', 'enum(row("A" boolean))', 'bigint', 'timestamp(6)', 'timestamp(3) with time zone'].map(typeFamily),
    ).toEqual(['varchar', 'varchar', 'integer', 'timestamp', 'other']);
    expect(arrayElementType('array(row(key varchar, value varbinary))')).toBe('row(key varchar, value varbinary)');
    expect(arrayElementType('map(varchar, bigint)')).toBeNull();
    expect(mapValueType('map(varchar, array(bigint))')).toBe('array(bigint)');
    expect(rowFieldsOf('row(amount decimal(12,2), status enum(row("NEW" boolean, "PAID" boolean)))')).toEqual([
      { name: 'amount', type: 'decimal(12,2)' },
      { name: 'status', type: 'enum(row("NEW" boolean, "PAID" boolean))' },
    ]);
    expect(timestampPrecision('timestamp(6)')).toBe(6);
    expect(timestampPrecision('timestamp(9) with time zone')).toBe(9);
    expect(decimalDigits('decimal(12,2)')).toEqual({ precision: 12, scale: 2 });
    expect(enumsAsText('row(s enum(row("A" boolean)), n bigint)')).toBe('row(s varchar, n bigint)');
  });
});
