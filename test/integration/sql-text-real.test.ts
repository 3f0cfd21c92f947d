/**
 * The escaping module's round trip through the real Trino: what Trino reads back is exactly what went in (the only
 * proof that counts: an escaping that "looks right" can still be parsed differently).
 * The cases of a kind share one query: each literal is a column of one SELECT (batch()), and each case still checks
 * its own column and fails alone. A column list is a harder test than a literal alone: an escape that ran past its
 * literal's end would swallow or shift its neighbours, which changes the names, types and values read back.
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

/** One column of a batch's row: its name, type and value as Trino returns them. */
interface Cell {
  name: string;
  type: string;
  value: unknown;
}

/**
 * `SELECT <columns> <from>` run once, when a case first asks for its cell (one Trino query for a table of cases
 * instead of one per case); `cells(i, n)` is the i-th case's n columns, after the first i * n.
 */
function batch(columns: readonly string[], from = ''): (i: number, n?: number) => Promise<Cell[]> {
  let answer: Promise<Cell[]> | undefined;
  return async (i, n = 1) => {
    answer ??= one(`SELECT ${columns.join(',\n  ')}${from}`).then(({ names, types, row }) =>
      row.map((value, k) => ({ name: names[k]!, type: types[k]!, value })),
    );
    const cells = await answer;
    expect(cells).toHaveLength(columns.length);
    return cells.slice(i * n, i * n + n);
  };
}

describe('round trip through the real Trino', () => {
  const renderable = STRING_CASES.map(([label, input], i) => [label, input, i] as const);
  // Per string: the literal, its length and its equality with itself.
  const strings = batch(
    renderable.flatMap(([, s]) => {
      const lit = stringLiteral(s);
      return [lit, `length(${lit})`, `${lit} = ${lit}`];
    }),
  );

  it.each(renderable)('string %s: SELECT <literal> returns exactly the input', async (_label, s, i) => {
    const [lit] = await strings(i, 3);
    expect(lit!.type).toMatch(/^varchar/);
    expect(lit!.value).toBe(s);
  });

  it.each(renderable)('string %s: one literal per row of a VALUES list keeps its length', async (_label, s, i) => {
    // Code points, as Trino counts them: a surrogate pair must arrive as one character, not two escapes.
    const [, length, same] = await strings(i, 3);
    expect([length!.value, same!.value]).toEqual([[...s].length, true]);
  });

  const identifiers = renderable.filter(([, s]) => s.length > 0).map(([label, s], i) => [label, s, i] as const);
  // Each identifier as an alias of its own column, and declared by a derived table of its own (tN) and referred to.
  const aliases = batch(identifiers.map(([, s]) => `1 AS ${quoteIdent(s)}`));
  const refs = batch(
    identifiers.map(([, s], i) => `t${i}.${quoteIdent(s)}`),
    ` FROM ${identifiers.map(([, s], i) => `(VALUES 7) AS t${i}(${quoteIdent(s)})`).join(' CROSS JOIN ')}`,
  );
  it.each(identifiers)('identifier %s: as an alias and as a reference', async (_label, s, i) => {
    // Trino 476 reports the alias as written (no case folding in the result's column name).
    expect((await aliases(i)).map((c) => c.name)).toEqual([s]);
    // Used both to declare a column and to refer to it: the reference must resolve to the same name.
    const [ref] = await refs(i);
    expect([ref!.name, ref!.value]).toEqual([s, 7]);
  });

  it.each([
    ['"', 'a"b', 'x""y'],
    ['hostile', "x'; DROP TABLE t; --", '/* c */'],
  ])('two identifiers (%s) stay two columns', async (_label, a, b) => {
    const { names, row } = await one(`SELECT 1 AS ${quoteIdent(a)}, 2 AS ${quoteIdent(b)}`);
    expect(names).toEqual([a, b]);
    expect(row).toEqual([1, 2]);
  });

  const BYTES: [string, Uint8Array][] = [
    ['empty', new Uint8Array([])],
    ['NUL, quotes, backslash, 0xff', new Uint8Array([0x00, 0x27, 0x22, 0x5c, 0xff])],
    ['every byte value', Uint8Array.from({ length: 256 }, (_, i) => i)],
  ];
  const varbinaries = batch(BYTES.map(([, bytes]) => varbinaryLiteral(bytes)));
  it.each(BYTES.map(([label, bytes], i) => [label, bytes, i] as const))(
    'varbinary %s: returned bytes equal the input',
    async (_label, bytes, i) => {
      const [cell] = await varbinaries(i);
      expect(cell!.type).toBe('varbinary');
      // The protocol carries varbinary as base64.
      expect(Buffer.from(cell!.value as string, 'base64')).toEqual(Buffer.from(bytes));
    },
  );

  const INTEGERS: [number | bigint | string, string, number | string][] = [
    [42, 'integer', 42],
    [-7, 'integer', -7],
    ['-007', 'integer', -7],
    [9007199254740993n, 'bigint', '9007199254740993'],
    ['9223372036854775807', 'bigint', '9223372036854775807'],
    ['-9223372036854775808', 'bigint', '-9223372036854775808'],
  ];
  const integers = batch(INTEGERS.map(([v]) => integerLiteral(v)));
  it.each(INTEGERS.map(([v, type, expected], i) => [v, type, expected, i] as const))(
    'integer %s -> %s %s',
    async (_v, type, expected, i) => {
      expect((await integers(i)).map((c) => [c.type, c.value])).toEqual([[type, expected]]);
    },
  );

  const DECIMALS: [string, string, string][] = [
    ['12.30', 'decimal(4, 2)', '12.30'],
    ['-0.50', 'decimal(2, 2)', '-0.50'],
    ['.5', 'decimal(1, 1)', '0.5'],
    ['12345678901234567890123456789012345678', 'decimal(38, 0)', '12345678901234567890123456789012345678'],
  ];
  const decimals = batch(DECIMALS.map(([v]) => decimalLiteral(v)));
  it.each(DECIMALS.map(([v, type, expected], i) => [v, type, expected, i] as const))(
    'decimal %j keeps its scale: %s %s',
    async (_v, type, expected, i) => {
      expect((await decimals(i)).map((c) => [c.type, c.value])).toEqual([[type, expected]]);
    },
  );

  const DOUBLES: [number, number | string][] = [
    [1.5, 1.5],
    [1, 1],
    [0.1, 0.1],
    [1e21, 1e21],
    [5e-324, 5e-324],
    [Number.MAX_VALUE, Number.MAX_VALUE],
    [Number.NaN, 'NaN'],
    [Number.POSITIVE_INFINITY, 'Infinity'],
    [Number.NEGATIVE_INFINITY, '-Infinity'],
  ];
  const doubles = batch(DOUBLES.map(([v]) => doubleLiteral(v)));
  it.each(DOUBLES.map(([v, expected], i) => [v, expected, i] as const))('double %s -> %j', async (_v, expected, i) => {
    expect((await doubles(i)).map((c) => [c.type, c.value])).toEqual([['double', expected]]);
  });

  it('a negative literal after a minus sign is not a comment', async () => {
    expect((await one(`SELECT 1 - ${doubleLiteral(Number.NEGATIVE_INFINITY)}, 1 - ${integerLiteral(-7)}`)).row).toEqual(
      ['Infinity', 8],
    );
  });

  const TIMESTAMPS: [number, string, string, string][] = [
    [0, '', 'timestamp(3)', '1970-01-01 00:00:00.000'],
    [Date.UTC(2026, 10, 30, 8, 0, 0, 123), '456', 'timestamp(6)', '2026-11-30 08:00:00.123456'],
    [Date.UTC(2026, 10, 30, 8, 0, 0, 123), '456789', 'timestamp(9)', '2026-11-30 08:00:00.123456789'],
    [-1, '', 'timestamp(3)', '1969-12-31 23:59:59.999'],
  ];
  const timestamps = batch(TIMESTAMPS.map(([ms, sub]) => timestampLiteral(ms, sub)));
  it.each(TIMESTAMPS.map(([ms, sub, type, expected], i) => [ms, sub, type, expected, i] as const))(
    'timestamp %s+%j -> %s %s',
    async (_ms, _sub, type, expected, i) => {
      expect((await timestamps(i)).map((c) => [c.type, c.value])).toEqual([[type, expected]]);
    },
  );

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

  const DATES = ['2026-11-30', '2024-02-29'];
  const dates = batch(DATES.map((s) => dateLiteral(s)));
  it.each(DATES.map((s, i) => [s, i] as const))('date %s', async (s, i) => {
    expect((await dates(i)).map((c) => [c.type, c.value])).toEqual([['date', s]]);
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

  const PATHS: [(string | number)[], string | null][] = [
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
  ];
  // The brief document: a dotted key holding a key with a quote and a space.
  const BRIEF = '{"a.b":{"we\\"ird key":"x"}}';
  const paths = batch([
    ...PATHS.map(([keys]) => `json_extract_scalar(${stringLiteral(JSON.stringify(DOC))}, ${jsonPathLiteral(keys)})`),
    `json_extract_scalar(${stringLiteral(BRIEF)}, ${jsonPathLiteral(['a.b', 'we"ird key'])})`,
  ]);
  it.each(PATHS.map(([keys, expected], i) => [keys, expected, i] as const))(
    'json_extract_scalar(doc, %j) -> %j',
    async (_keys, expected, i) => {
      expect((await paths(i)).map((c) => c.value)).toEqual([expected]);
    },
  );

  it('the brief document: a dotted key holding a key with a quote and a space', async () => {
    expect((await paths(PATHS.length)).map((c) => c.value)).toEqual(['x']);
  });
});
