/**
 * The one module that puts text next to a quote (STYLE.md habit 2) gets the densest tests: exact SQL text per
 * case, a hostile corpus, and a round trip through the real Trino proving that what Trino reads back is exactly
 * what went in (the only proof that counts: an escaping that "looks right" can still be parsed differently).
 */
import { beforeAll, describe, expect, it } from 'vitest';
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
} from '../../src/query/sql-text.js';
import { HttpTrino } from '../../src/trino/http-trino.js';
import { trinoUrl } from '../helpers.js';

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

/**
 * Hostile strings with the exact varchar literal each must render to. Printable ASCII stays a plain literal
 * (quotes doubled, backslash inert); anything else switches to U&'' with `\` escapes (and `\\` for a backslash).
 */
const STRING_CASES: [label: string, input: string, sql: string][] = [
  ['empty', '', "''"],
  ['plain', 'orders', "'orders'"],
  ['single quote', "it's", "'it''s'"],
  ['only quotes', "''", "''''''"],
  ['quote at the end', "abc'", "'abc'''"],
  ['double quote', 'a"b', `'a"b'`],
  ['backslash (inert in a plain literal)', 'back\\slash', "'back\\slash'"],
  ['backslash then quote', "\\'", "'\\'''"],
  ['text that looks like a U& escape', '\\+01f680', "'\\+01f680'"],
  ['statement break-out', "x'; DROP TABLE t; --", "'x''; DROP TABLE t; --'"],
  ['line comment', '-- not a comment', "'-- not a comment'"],
  ['block comment', '/* c */', "'/* c */'"],
  ['semicolons', ';;', "';;'"],
  ['dollar and spaces', ' $ 1 $ ', "' $ 1 $ '"],
  ['newline', 'line\nbreak', "U&'line\\000abreak'"],
  ['CR LF', '\r\n', "U&'\\000d\\000a'"],
  ['tab', 'tab\there', "U&'tab\\0009here'"],
  ['control char', 'a\u0001b', "U&'a\\0001b'"],
  ['DEL', '\u007f', "U&'\\007f'"],
  ['latin-1', 'é', "U&'\\00e9'"],
  ['non-ASCII with quote and backslash', "é\\'", "U&'\\00e9\\\\'''"],
  ['non-ASCII with a fake escape', 'é\\+01f680', "U&'\\00e9\\\\+01f680'"],
  ['emoji (non-BMP)', 'rocket 🚀', "U&'rocket \\+01f680'"],
  ['right-to-left mark', 'rtl\u200fmark', "U&'rtl\\200fmark'"],
  ['right-to-left override', '\u202Eevil', "U&'\\202eevil'"],
  ['zero-width joiner sequence', 'zwj👩\u200d💻', "U&'zwj\\+01f469\\200d\\+01f4bb'"],
  ['byte order mark', '\ufeffx', "U&'\\feffx'"],
  ['line separator', 'a\u2028b', "U&'a\\2028b'"],
  ['highest code point', '\u{10ffff}', "U&'\\+10ffff'"],
  ['CJK with quote', "日本'語", "U&'\\65e5\\672c''\\8a9e'"],
];

/** Strings no literal may carry: NUL (Trino's SQL text cannot hold it) and lone UTF-16 surrogates. */
const UNRENDERABLE: [label: string, input: string][] = [
  ['NUL', 'a\u0000b'],
  ['NUL alone', '\u0000'],
  ['lone high surrogate', '\ud83d'],
  ['lone low surrogate', 'x\ude80y'],
  ['surrogates in the wrong order', '\ude80\ud83d'],
  ['NUL after non-ASCII', 'é\u0000'],
];

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

/** Keys with the exact path literal: each key bracketed and JSONPath-escaped, then the whole SQL-escaped. */
const PATH_CASES: [keys: (string | number)[], sql: string][] = [
  [[], "'$'"],
  [['a'], `'$["a"]'`],
  [['a', 'b'], `'$["a"]["b"]'`],
  [['a.b'], `'$["a.b"]'`],
  [['a.b', 'we"ird key'], `'$["a.b"]["we\\"ird key"]'`],
  [['items', 1, 'sku'], `'$["items"][1]["sku"]'`],
  [["it's"], `'$["it''s"]'`],
  [['back\\slash'], `'$["back\\\\slash"]'`],
  [['\\"'], `'$["\\\\\\""]'`],
  [['"'], `'$["\\""]'`],
  [['x[0]'], `'$["x[0]"]'`],
  [[']'], `'$["]"]'`],
  [['$'], `'$["$"]'`],
  [['*'], `'$["*"]'`],
  [[''], `'$[""]'`],
  [[' sp ace '], `'$[" sp ace "]'`],
  [["'); DROP TABLE t; --"], `'$["''); DROP TABLE t; --"]'`],
  [['🚀 ü'], `U&'$["\\+01f680 \\00fc"]'`],
  [['rtl\u200f'], `U&'$["rtl\\200f"]'`],
  [['new\nline'], `U&'$["new\\000aline"]'`],
];

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
