/**
 * The one module that puts text next to a quote (STYLE.md habit 2) gets the densest tests: exact SQL text per
 * case and a hostile corpus; test/integration/sql-text-real.test.ts takes the same cases through the real Trino.
 */
import { describe, expect, it } from 'vitest';
import {
  LiteralError,
  booleanLiteral,
  dateLiteral,
  decimalLiteral,
  doubleLiteral,
  integerLiteral,
  jsonPathLiteral,
  quoteIdent,
  stringLiteral,
  timestampLiteral,
  varbinaryLiteral,
} from '../../src/query/sql/sql-text.js';
import { PATH_CASES, STRING_CASES, UNRENDERABLE } from '../cases/sql-text-cases.js';

describe('stringLiteral', () => {
  it.each(STRING_CASES)('%s -> exact SQL', (_label, input, sql) => {
    expect(stringLiteral(input)).toBe(sql);
  });

  it.each(UNRENDERABLE)('%s -> LiteralError', (_label, input) => {
    expect(() => stringLiteral(input)).toThrow(LiteralError);
  });
});

describe('quoteIdent', () => {
  it.each([
    ['orders', '"orders"'],
    ['Mixed Case', '"Mixed Case"'],
    ['a"b', '"a""b"'],
    ['"', '""""'],
    ['""', '""""""'],
    ["it's", `"it's"`],
    ['demo|kafka_topics', '"demo|kafka_topics"'],
    ['orders$partitions', '"orders$partitions"'],
    ['x"; DROP TABLE t; --', '"x""; DROP TABLE t; --"'],
    ['/* c */', '"/* c */"'],
    ['back\\slash', '"back\\slash"'],
    ['line\nbreak', '"line\nbreak"'],
    ['rocket 🚀', '"rocket 🚀"'],
    ['rtl\u200fmark', '"rtl\u200fmark"'],
  ])('%j -> %s', (name, sql) => {
    expect(quoteIdent(name)).toBe(sql);
  });

  it.each([['empty', ''], ...UNRENDERABLE])('%s -> LiteralError', (_label, name) => {
    expect(() => quoteIdent(name)).toThrow(LiteralError);
  });
});

describe('varbinaryLiteral', () => {
  it.each([
    ['empty', new Uint8Array([]), "X''"],
    ['all byte classes', new Uint8Array([0x00, 0x01, 0xab, 0xff]), "X'0001abff'"],
    ['NUL and quote bytes are just bytes', new Uint8Array([0x00, 0x27, 0x22, 0x5c]), "X'0027225c'"],
    ['UTF-8 text', new TextEncoder().encode('héllo'), "X'68c3a96c6c6f'"],
    ['a view into a larger buffer', new Uint8Array([1, 2, 3, 4]).subarray(1, 3), "X'0203'"],
    ['a Buffer', Buffer.from([0xde, 0xad]), "X'dead'"],
  ])('%s -> %s', (_label, bytes, sql) => {
    expect(varbinaryLiteral(bytes)).toBe(sql);
  });
});

describe('booleanLiteral', () => {
  it.each([
    [true, 'TRUE'],
    [false, 'FALSE'],
  ])('%s -> %s', (b, sql) => {
    expect(booleanLiteral(b)).toBe(sql);
  });
});

describe('integerLiteral', () => {
  it.each<[number | bigint | string, string]>([
    [0, '0'],
    [42, '42'],
    [-7, '-7'],
    [-0, '0'],
    [Number.MAX_SAFE_INTEGER, '9007199254740991'],
    [Number.MIN_SAFE_INTEGER, '-9007199254740991'],
    [9007199254740993n, '9007199254740993'],
    [-9223372036854775808n, '-9223372036854775808'],
    ['9223372036854775807', '9223372036854775807'],
    ['-9223372036854775808', '-9223372036854775808'],
    ['007', '7'],
    ['-007', '-7'],
    ['000', '0'],
    [' 12 ', '12'],
  ])('%s -> %s', (v, sql) => {
    expect(integerLiteral(v)).toBe(sql);
  });

  it.each<[string, number | bigint | string]>([
    ['fraction', 1.5],
    ['NaN', Number.NaN],
    ['infinity', Number.POSITIVE_INFINITY],
    ['unsafe number', 2 ** 53],
    ['exponent text', '1e3'],
    ['trailing junk', '12abc'],
    ['empty', ''],
    ['inner space', '1 2'],
    ['hex', '0x10'],
    ['plus sign', '+5'],
    ['double minus', '--5'],
    ['injection', '1; DROP TABLE t'],
    ['comment', '1--'],
    ['quote', "1'"],
    ['decimal text', '1.0'],
    // Trino reads an integer literal as BIGINT; anything beyond it is a SYNTAX_ERROR ("Invalid numeric
    // literal"), which would surface as a 502 instead of the 400 a LiteralError becomes.
    ['just above BIGINT', '9223372036854775808'],
    ['just below BIGINT', '-9223372036854775809'],
    ['38 digits', '1'.repeat(38)],
    ['bigint above BIGINT', 9223372036854775808n],
  ])('%s (%s) -> LiteralError', (_label, v) => {
    expect(() => integerLiteral(v)).toThrow(LiteralError);
  });
});

describe('decimalLiteral', () => {
  it.each<[string | number, string]>([
    ['12.30', "DECIMAL '12.30'"],
    ['-0.50', "DECIMAL '-0.50'"],
    ['.5', "DECIMAL '.5'"],
    ['5.', "DECIMAL '5.'"],
    ['0', "DECIMAL '0'"],
    [' 1.10 ', "DECIMAL '1.10'"],
    [3, "DECIMAL '3'"],
    [-2.25, "DECIMAL '-2.25'"],
    ['12345678901234567890123456789012345678', "DECIMAL '12345678901234567890123456789012345678'"],
  ])('%j -> %s', (v, sql) => {
    expect(decimalLiteral(v)).toBe(sql);
  });

  it.each<[string, string | number]>([
    ['exponent', '1e5'],
    ['word', 'abc'],
    ['empty', ''],
    ['two points', '1.2.3'],
    ['lone point', '.'],
    ['lone minus', '-'],
    ['plus sign', '+1'],
    ['double minus', '--1'],
    ['injection', "1'; DROP TABLE t; --"],
    ['39 digits', '1'.repeat(39)],
    ['NaN', Number.NaN],
    ['infinity', Number.POSITIVE_INFINITY],
  ])('%s (%j) -> LiteralError', (_label, v) => {
    expect(() => decimalLiteral(v)).toThrow(LiteralError);
  });
});

describe('doubleLiteral', () => {
  it.each([
    [1.5, "DOUBLE '1.5'"],
    [1, "DOUBLE '1.0'"],
    [-1.5, "DOUBLE '-1.5'"],
    [0.1, "DOUBLE '0.1'"],
    [1e21, "DOUBLE '1e+21'"],
    [5e-324, "DOUBLE '5e-324'"],
    [Number.MAX_VALUE, "DOUBLE '1.7976931348623157e+308'"],
    [Number.NaN, 'nan()'],
    [Number.POSITIVE_INFINITY, 'infinity()'],
    [Number.NEGATIVE_INFINITY, '-infinity()'],
  ])('%s -> %s', (v, sql) => {
    expect(doubleLiteral(v)).toBe(sql);
  });
});

describe('timestampLiteral', () => {
  const at = Date.UTC(2026, 10, 30, 8, 0, 0, 123);
  it.each<[string, number, string | undefined, string]>([
    ['epoch', 0, undefined, "TIMESTAMP '1970-01-01 00:00:00.000'"],
    ['milliseconds', at, undefined, "TIMESTAMP '2026-11-30 08:00:00.123'"],
    ['microseconds', at, '456', "TIMESTAMP '2026-11-30 08:00:00.123456'"],
    ['nanoseconds', at, '456789', "TIMESTAMP '2026-11-30 08:00:00.123456789'"],
    ['empty sub-ms digits', at, '', "TIMESTAMP '2026-11-30 08:00:00.123'"],
    ['before the epoch', -1, undefined, "TIMESTAMP '1969-12-31 23:59:59.999'"],
    [
      'last instant of year 9999',
      Date.UTC(9999, 11, 31, 23, 59, 59, 999),
      undefined,
      "TIMESTAMP '9999-12-31 23:59:59.999'",
    ],
  ])('%s -> %s', (_label, ms, sub, sql) => {
    expect(sub === undefined ? timestampLiteral(ms) : timestampLiteral(ms, sub)).toBe(sql);
  });

  it.each<[string, number, string]>([
    ['NaN', Number.NaN, ''],
    ['infinity', Number.POSITIVE_INFINITY, ''],
    ['year 10000', Date.UTC(10000, 0, 1), ''],
    ['the last instant JS dates hold (year 275760)', 8.64e15, ''],
    // Beyond JS's date range toISOString() throws a RangeError; it must still be a LiteralError (a 400).
    ['beyond the JS date range', 8.64e15 + 1, ''],
    ['far beyond the JS date range', -1e17, ''],
    ['letters in sub-ms digits', 0, 'abc'],
    ['ten sub-ms digits', 0, '1234567890'],
    ['quote in sub-ms digits', 0, "1'"],
    ['sign in sub-ms digits', 0, '-1'],
  ])('%s -> LiteralError', (_label, ms, sub) => {
    expect(() => timestampLiteral(ms, sub)).toThrow(LiteralError);
  });
});

describe('dateLiteral', () => {
  it.each([
    ['2026-11-30', "DATE '2026-11-30'"],
    ['2024-02-29', "DATE '2024-02-29'"],
    ['1970-01-01', "DATE '1970-01-01'"],
    ['0001-01-01', "DATE '0001-01-01'"],
  ])('%s -> %s', (s, sql) => {
    expect(dateLiteral(s)).toBe(sql);
  });

  it.each([
    ['month 13', '2026-13-01'],
    ['day 32', '2026-01-32'],
    // V8's Date.parse rolls these over into the next month instead of failing; Trino rejects them
    // (INVALID_LITERAL), so the renderer must too.
    ['30 February', '2026-02-30'],
    ['29 February of a common year', '2025-02-29'],
    ['31 April', '2026-04-31'],
    ['two-digit year', '26-11-30'],
    ['leading space', ' 2026-11-30'],
    ['with a time', '2026-11-30T00:00:00Z'],
    ['quote', "2026-11-30'"],
    ['injection', "2026-11-30' OR '1'='1"],
    ['empty', ''],
  ])('%s (%j) -> LiteralError', (_label, s) => {
    expect(() => dateLiteral(s)).toThrow(LiteralError);
  });
});

describe('jsonPathLiteral', () => {
  it.each(PATH_CASES)('%j -> %s', (keys, sql) => {
    expect(jsonPathLiteral(keys)).toBe(sql);
  });

  it.each<[string, (string | number)[]]>([
    ['negative index', [-1]],
    ['fractional index', [1.5]],
    ['NaN index', [Number.NaN]],
    ['NUL in a key', ['a\u0000b']],
    ['lone surrogate in a key', ['\ud800']],
    ['bad key after good ones', ['a', 0, '\udfff']],
  ])('%s -> LiteralError', (_label, keys) => {
    expect(() => jsonPathLiteral(keys)).toThrow(LiteralError);
  });
});
