/**
 * The escaping module's round trip through the real Trino: what Trino reads back is exactly what went in (the only
 * proof that counts: an escaping that "looks right" can still be parsed differently).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
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
import { HttpTrino } from '../../src/trino/http-trino.js';
import { trinoUrl } from '../helpers.js';
import { STRING_CASES } from '../cases/sql-text-cases.js';

let trino: HttpTrino;
beforeAll(() => {
  trino = new HttpTrino({ server: trinoUrl(), user: 'test' });
});

/** Runs a one-row query and returns its columns and single row. */
async function one(sql: string): Promise<{ names: string[]; types: string[]; row: unknown[] }> {
  const { columns, rows } = await trino.all(sql);
  expect(rows).toHaveLength(1);
  return { names: columns.map((c) => c.name), types: columns.map((c) => c.type), row: rows[0]! };
}

describe('round trip through the real Trino', () => {
  const renderable = STRING_CASES.map(([label, input]) => [label, input] as const);

  it.each(renderable)('string %s: SELECT <literal> returns exactly the input', async (_label, s) => {
    const { types, row } = await one(`SELECT ${stringLiteral(s)}`);
    expect(types[0]).toMatch(/^varchar/);
    expect(row[0]).toBe(s);
  });

  it.each(renderable)('string %s: one literal per row of a VALUES list keeps its length', async (_label, s) => {
    // Code points, as Trino counts them: a surrogate pair must arrive as one character, not two escapes.
    const { row } = await one(`SELECT length(${stringLiteral(s)}), ${stringLiteral(s)} = ${stringLiteral(s)}`);
    expect(row).toEqual([[...s].length, true]);
  });

  const identifiers = renderable.filter(([, s]) => s.length > 0);
  it.each(identifiers)('identifier %s: as an alias and as a reference', async (_label, s) => {
    const q = quoteIdent(s);
    // Trino 476 reports the alias as written (no case folding in the result's column name).
    expect((await one(`SELECT 1 AS ${q}`)).names).toEqual([s]);
    // Used both to declare a column and to refer to it: the reference must resolve to the same name.
    const ref = await one(`SELECT t.${q} FROM (VALUES 7) AS t(${q})`);
    expect(ref.names).toEqual([s]);
    expect(ref.row).toEqual([7]);
  });

  it.each([
    ['"', 'a"b', 'x""y'],
    ['hostile', "x'; DROP TABLE t; --", '/* c */'],
  ])('two identifiers (%s) stay two columns', async (_label, a, b) => {
    const { names, row } = await one(`SELECT 1 AS ${quoteIdent(a)}, 2 AS ${quoteIdent(b)}`);
    expect(names).toEqual([a, b]);
    expect(row).toEqual([1, 2]);
  });

  it.each([
    ['empty', new Uint8Array([])],
    ['NUL, quotes, backslash, 0xff', new Uint8Array([0x00, 0x27, 0x22, 0x5c, 0xff])],
    ['every byte value', Uint8Array.from({ length: 256 }, (_, i) => i)],
  ])('varbinary %s: returned bytes equal the input', async (_label, bytes) => {
    const { types, row } = await one(`SELECT ${varbinaryLiteral(bytes)}`);
    expect(types[0]).toBe('varbinary');
    // The protocol carries varbinary as base64.
    expect(Buffer.from(row[0] as string, 'base64')).toEqual(Buffer.from(bytes));
  });

  it.each<[number | bigint | string, string, number | string]>([
    [42, 'integer', 42],
    [-7, 'integer', -7],
    ['-007', 'integer', -7],
    [9007199254740993n, 'bigint', '9007199254740993'],
    ['9223372036854775807', 'bigint', '9223372036854775807'],
    ['-9223372036854775808', 'bigint', '-9223372036854775808'],
  ])('integer %s -> %s %s', async (v, type, expected) => {
    const { types, row } = await one(`SELECT ${integerLiteral(v)}`);
    expect(types[0]).toBe(type);
    expect(row[0]).toBe(expected);
  });

  it.each([
    ['12.30', 'decimal(4, 2)', '12.30'],
    ['-0.50', 'decimal(2, 2)', '-0.50'],
    ['.5', 'decimal(1, 1)', '0.5'],
    ['12345678901234567890123456789012345678', 'decimal(38, 0)', '12345678901234567890123456789012345678'],
  ])('decimal %j keeps its scale: %s %s', async (v, type, expected) => {
    const { types, row } = await one(`SELECT ${decimalLiteral(v)}`);
    expect(types[0]).toBe(type);
    expect(row[0]).toBe(expected);
  });

  it.each([
    [1.5, 1.5],
    [1, 1],
    [0.1, 0.1],
    [1e21, 1e21],
    [5e-324, 5e-324],
    [Number.MAX_VALUE, Number.MAX_VALUE],
    [Number.NaN, 'NaN'],
    [Number.POSITIVE_INFINITY, 'Infinity'],
    [Number.NEGATIVE_INFINITY, '-Infinity'],
  ])('double %s -> %j', async (v, expected) => {
    const { types, row } = await one(`SELECT ${doubleLiteral(v)}`);
    expect(types[0]).toBe('double');
    expect(row[0]).toBe(expected);
  });

  it('a negative literal after a minus sign is not a comment', async () => {
    expect((await one(`SELECT 1 - ${doubleLiteral(Number.NEGATIVE_INFINITY)}, 1 - ${integerLiteral(-7)}`)).row).toEqual(
      ['Infinity', 8],
    );
  });

  it.each([
    [0, '', 'timestamp(3)', '1970-01-01 00:00:00.000'],
    [Date.UTC(2026, 10, 30, 8, 0, 0, 123), '456', 'timestamp(6)', '2026-11-30 08:00:00.123456'],
    [Date.UTC(2026, 10, 30, 8, 0, 0, 123), '456789', 'timestamp(9)', '2026-11-30 08:00:00.123456789'],
    [-1, '', 'timestamp(3)', '1969-12-31 23:59:59.999'],
  ])('timestamp %s+%j -> %s %s', async (ms, sub, type, expected) => {
    const { types, row } = await one(`SELECT ${timestampLiteral(ms, sub)}`);
    expect(types[0]).toBe(type);
    expect(row[0]).toBe(expected);
  });

  // Why the renderers must refuse these: Trino rejects them as SQL text, which the gateway would report as a
  // failed query (502) instead of a bad value (400).
  it.each([
    ['integer above BIGINT', 'SELECT 9223372036854775808', 'SYNTAX_ERROR'],
    ['integer below BIGINT', 'SELECT -9223372036854775809', 'SYNTAX_ERROR'],
    ['30 February', "SELECT DATE '2026-02-30'", 'INVALID_LITERAL'],
    ['31 April', "SELECT DATE '2026-04-31'", 'INVALID_LITERAL'],
  ])('Trino itself rejects %s (%s) with %s', async (_label, sql, errorName) => {
    await expect(trino.all(sql)).rejects.toMatchObject({ name: 'TrinoQueryError', info: { errorName } });
  });

  it.each(['2026-11-30', '2024-02-29'])('date %s', async (s) => {
    const { types, row } = await one(`SELECT ${dateLiteral(s)}`);
    expect(types[0]).toBe('date');
    expect(row[0]).toBe(s);
  });

  // One document whose keys are the hostile part; each path must reach exactly its own value.
  const DOC = {
    'a.b': { 'we"ird key': 'x' },
    a: { b: 'nested' },
    "it's": 'quote',
    'x[0]': 'brackets',
    ']': 'close bracket',
    '"': 'double quote',
    '\\"': 'backslash quote',
    'back\\slash': 'backslash',
    $: 'dollar',
    '*': 'star',
    '': 'empty key',
    ' sp ace ': 'spaces',
    "'); DROP TABLE t; --": 'injection',
    '🚀 ü': 'unicode',
    'rtl\u200f': 'rtl',
    'new\nline': 'newline',
    items: [{ sku: 's1' }, { sku: 's2' }],
  };

  it.each<[(string | number)[], string | null]>([
    [['a.b', 'we"ird key'], 'x'],
    [['a', 'b'], 'nested'],
    // An object is not a scalar: json_extract_scalar gives NULL (and the dotted key is not split).
    [['a.b'], null],
    [["it's"], 'quote'],
    [['x[0]'], 'brackets'],
    [[']'], 'close bracket'],
    [['"'], 'double quote'],
    [['\\"'], 'backslash quote'],
    [['back\\slash'], 'backslash'],
    [['$'], 'dollar'],
    [['*'], 'star'],
    [[''], 'empty key'],
    [[' sp ace '], 'spaces'],
    [["'); DROP TABLE t; --"], 'injection'],
    [['🚀 ü'], 'unicode'],
    [['rtl\u200f'], 'rtl'],
    [['new\nline'], 'newline'],
    [['items', 1, 'sku'], 's2'],
    [['items', 0, 'sku'], 's1'],
    [['items', 2, 'sku'], null],
    [['missing'], null],
  ])('json_extract_scalar(doc, %j) -> %j', async (keys, expected) => {
    const { row } = await one(
      `SELECT json_extract_scalar(${stringLiteral(JSON.stringify(DOC))}, ${jsonPathLiteral(keys)})`,
    );
    expect(row[0]).toBe(expected);
  });

  it('the brief document: a dotted key holding a key with a quote and a space', async () => {
    const doc = '{"a.b":{"we\\"ird key":"x"}}';
    const { row } = await one(
      `SELECT json_extract_scalar(${stringLiteral(doc)}, ${jsonPathLiteral(['a.b', 'we"ird key'])})`,
    );
    expect(row[0]).toBe('x');
  });
});
