/**
 * The text encoders write into the page in place (base64 decoded there, checked there, quoted or hex-expanded
 * there). This file checks them against a reference built the plain way, on Node's own tools (isUtf8,
 * Buffer.from, JSON.parse, JSON.stringify, string concatenation): the way the encoders were written before, whose
 * output is the contract. Any byte of difference on a corpus of hard values, and on seeded random tables of nested
 * types, fails.
 */
import { Buffer, isUtf8 } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import { encodeCsv } from '../../src/encode/text/csv-encoder.js';
import type { Encoder } from '../../src/encode/encoder.js';
import { inMemoryResult } from '../fakes/in-memory-result.js';
import { encodeJson } from '../../src/encode/text/json-encoder.js';
import { instantToUnits, TimestampUnits } from '../../src/encode/arrow/timestamp-units.js';
import { csvFieldFrom } from '../../src/encode/text/csv-field.js';
import { isJson, JsonScanner, utf8Sequence } from '../../src/encode/text/validating-json-scanner.js';
import { encodeNdjson } from '../../src/encode/text/ndjson-encoder.js';
import { PageBuffer } from '../../src/encode/text/page-buffer.js';
import { timestampToIso, timestampTzToIso } from '../../src/encode/text/timestamp-text.js';
import { parseTimestamp, TimestampTzParser } from '../../src/core/trino-timestamp.js';
import { columnType } from '../../src/encode/column-type.js';
import { minifyJson } from '../../src/encode/text/json-minify.js';
import { knownBase, rowFields, typeArg, type TrinoType } from '../../src/core/trino-types.js';

// ---- The reference: every value as a string, built with Node's tools --------------------------------------

const INTEGER = /^-?\d+$/;
const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
const NEEDS_QUOTES = /[",\r\n]/;

const generic = (v: unknown) => (typeof v === 'number' ? floatJson(v) : (JSON.stringify(v) ?? 'null'));
const intJson = (v: unknown) =>
  typeof v === 'number'
    ? Number.isFinite(v)
      ? String(v)
      : JSON.stringify(String(v))
    : INTEGER.test(String(v))
      ? String(v)
      : JSON.stringify(String(v));
function floatJson(v: unknown): string {
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : JSON.stringify(String(v));
  return JSON_NUMBER.test(String(v)) ? String(v) : JSON.stringify(String(v));
}
const parses = (text: string) => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

/** A varbinary as shown: hex, text, or JSON (`oneLine`: JSON bytes as they are, always quoted in CSV). */
function varbinary(base64: string): { kind: 'hex' | 'text' | 'json'; text: string; oneLine?: boolean } {
  const bytes = Buffer.from(base64, 'base64');
  if ((bytes[0] === 0x5c && bytes[1] === 0x78) || !isUtf8(bytes)) return { kind: 'hex', text: bytes.toString('hex') };
  const text = bytes.toString('utf8');
  const t = text.replace(/^[ \t\r\n]+|[ \t\r\n]+$/g, '');
  const container = (t.startsWith('{') && t.endsWith('}')) || (t.startsWith('[') && t.endsWith(']'));
  if (t.length >= 2 && container && parses(text)) {
    return /[\r\n]/.test(text) ? { kind: 'json', text: minifyJson(text) } : { kind: 'json', text, oneLine: true };
  }
  return { kind: 'text', text };
}

function refJson(type: TrinoType, v: unknown): string {
  switch (knownBase(type)) {
    case null:
    case 'unknown':
      return generic(v);
    case 'array':
      return Array.isArray(v)
        ? '[' + v.map((x) => nullOr(x, (y) => refJson(typeArg(type, 0), y))).join(',') + ']'
        : generic(v);
    case 'map':
      if (v === null || typeof v !== 'object') return generic(v);
      return (
        '{' +
        Object.entries(v)
          .map(
            ([k, x]) =>
              JSON.stringify(refText(typeArg(type, 0), k)) + ':' + nullOr(x, (y) => refJson(typeArg(type, 1), y)),
          )
          .join(',') +
        '}'
      );
    case 'row': {
      if (!Array.isArray(v)) return generic(v);
      const fields = rowFields(type);
      const parts = fields.map(
        (f, i) => JSON.stringify(f.name ?? `_col${i}`) + ':' + nullOr(v[i], (y) => refJson(f.type, y)),
      );
      return '{' + parts.join(',') + '}';
    }
    case 'boolean':
      return v === true || v === 'true' ? 'true' : 'false';
    case 'tinyint':
    case 'smallint':
    case 'integer':
    case 'bigint':
      return intJson(v);
    case 'real':
    case 'double':
    case 'decimal':
      return floatJson(v);
    case 'varbinary': {
      const b = varbinary(String(v));
      return b.kind === 'hex' ? '"\\\\x' + b.text + '"' : b.kind === 'json' ? b.text : JSON.stringify(b.text);
    }
    case 'json':
      return parses(String(v))
        ? /[\r\n]/.test(String(v))
          ? minifyJson(String(v))
          : String(v)
        : JSON.stringify(String(v));
    case 'timestamp':
      return JSON.stringify(timestampToIso(String(v)));
    case 'timestamp with time zone':
      return JSON.stringify(timestampTzToIso(String(v), new TimestampTzParser()));
    default:
      return JSON.stringify(String(v));
  }
}

/** Unquoted CSV cell text (and map keys). */
function refText(type: TrinoType, v: unknown): string {
  switch (knownBase(type)) {
    case null:
    case 'unknown':
      return typeof v === 'string' ? v : generic(v);
    case 'array':
    case 'map':
    case 'row':
      return refJson(type, v);
    case 'boolean':
      return v === true || v === 'true' ? 'true' : 'false';
    case 'varbinary': {
      const b = varbinary(String(v));
      return b.kind === 'hex' ? '\\x' + b.text : b.text;
    }
    case 'json':
      return parses(String(v)) && /[\r\n]/.test(String(v)) ? minifyJson(String(v)) : String(v);
    case 'timestamp':
      return timestampToIso(String(v));
    case 'timestamp with time zone':
      return timestampTzToIso(String(v), new TimestampTzParser());
    default:
      return String(v);
  }
}

// The reference quotes CSV fields itself, not through src/encode/text/csv-field.ts: an oracle must share no code
// with what it checks (csv-field.ts has its own exact tests in encode-csv-field.test.ts).
const quoted = (s: string) => '"' + s.replaceAll('"', '""') + '"';
// OWASP's CSV injection rule, on text from outside: a cell beginning like a formula gets `'` and quotes.
const FORMULA = /^[=+\-@\t\r]/;
const TEXT_BASES = new Set<string | null>([null, 'unknown', 'varchar', 'char', 'varbinary', 'json']);
const refCell = (s: string, text: boolean) =>
  text && FORMULA.test(s) ? quoted("'" + s) : s === '' || NEEDS_QUOTES.test(s) ? quoted(s) : s;
function refCsvField(type: TrinoType, v: unknown): string {
  if (v === null || v === undefined) return '';
  const text = TEXT_BASES.has(knownBase(type));
  if (knownBase(type) === 'varbinary' && varbinary(String(v)).oneLine) {
    const s = varbinary(String(v)).text;
    return quoted(FORMULA.test(s) ? "'" + s : s);
  }
  return refCell(refText(type, v), text);
}
const nullOr = (x: unknown, f: (y: unknown) => string) => (x === null || x === undefined ? 'null' : f(x));

interface Column {
  name: string;
  type: string;
}
function refBodies(columns: Column[], batches: unknown[][][]): Record<'ndjson' | 'csv' | 'json', string> {
  const types = columns.map((c) => columnType(c.type));
  const rows = batches.flat();
  const objects = rows.map(
    (row) =>
      '{' +
      columns.map((c, i) => JSON.stringify(c.name) + ':' + nullOr(row[i], (y) => refJson(types[i]!, y))).join(',') +
      '}',
  );
  const csvRows = rows.map((row) => types.map((t, i) => refCsvField(t, row[i])).join(',') + '\r\n');
  const header = columns.map((c) => refCell(c.name, true)).join(',');
  return {
    ndjson: objects.map((o) => o + '\n').join('') + '\n',
    csv: header + '\r\n' + csvRows.join(''),
    json:
      '{"columns":' +
      JSON.stringify(columns.map(({ name, type }) => ({ name, type }))) +
      ',"rows":[' +
      objects.map((o) => '\n' + o).join(',') +
      '\n],"next":null,"complete":true}\n',
  };
}

async function body(encode: Encoder, columns: Column[], batches: unknown[][][]): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of encode(inMemoryResult(columns, batches), { next: null })) chunks.push(Buffer.from(c));
  return Buffer.concat(chunks).toString('latin1'); // byte for byte
}

async function expectSameAsReference(columns: Column[], batches: unknown[][][]): Promise<void> {
  const ref = refBodies(columns, batches);
  const latin1 = (s: string) => Buffer.from(s, 'utf8').toString('latin1');
  const context = JSON.stringify({ columns, batches }).slice(0, 2000);
  expect(await body(encodeNdjson, columns, batches), context).toBe(latin1(ref.ndjson));
  expect(await body(encodeCsv, columns, batches), context).toBe(latin1(ref.csv));
  expect(await body(encodeJson, columns, batches), context).toBe(latin1(ref.json));
}

// ---- The corpus -------------------------------------------------------------------------------------------

const b64 = (x: string | number[] | Buffer) => Buffer.from(x as string).toString('base64');

const BYTES: (string | number[])[] = [
  '',
  'hello',
  'order-1000001',
  'é🚀 ünïcode 李雷 مريم',
  'a,b',
  'say "hi"',
  'back\\slash',
  'tab\there',
  'line1\nline2',
  'cr\r',
  '\u0000\u001f\u007f',
  '\u2028\u2029',
  '\\x41',
  '\\x',
  '\\',
  'x\\x41',
  '42',
  '"a"',
  'true',
  '{',
  '}',
  '[',
  ' ',
  '\n',
  '{}',
  '[]',
  ' {} ',
  '{\n}',
  '[\r\n]',
  '[1]',
  '{"id":9007199254740993,"a":[1.50,true,null],"s":"x\\"y\\\\z\\u00e9\\n"}',
  ' [1, 2] ',
  '{\n  "a": "x y\\n",\r\n  "b": [1, 2]\n}',
  '{"name":"Dr. \\"Q\\" O\'Brien","city":"Tōkyō"}',
  '{"a":}',
  '{"a":1}}',
  '[1,]',
  '{"a":"\t"}',
  '{"k":"é"}',
  'not json: order 3',
  [0xff, 0x00, 0x41],
  [0xed, 0xa0, 0x80],
  [0xef, 0xbb, 0xbf, 0x7b, 0x7d],
  [0xc3, 0x28, 0x7b, 0x22, 0x62, 0x22, 0x3a],
  [0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d],
  [0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xe2, 0x82, 0x22, 0x7d],
  [0xf0, 0x9f, 0x9a, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0xc0, 0x80],
  [0x80],
  // Text a spreadsheet reads as a formula (OWASP's CSV injection), and JSON that begins with white space like one.
  "=cmd|' /C calc'!A0",
  '+1+1',
  '-5',
  '@SUM(A1)',
  '\t=1',
  '\r=1',
  '\t{"a":1}',
  '=',
];

const STRINGS = [
  '',
  'plain',
  'a,b "c"\nd',
  'x\r',
  'é🚀',
  '\u0000',
  '\\',
  'lone \ud800 surrogate',
  '\udc00',
  'tab\t',
  'q"',
  '=HYPERLINK("http://x","y")',
  '-2+3',
  '+',
  '@',
  '\tx',
  '\r',
];
const TIMESTAMPS = [
  '2026-11-01 00:00:00.000',
  '2026-11-01 12:34:56',
  '2026-11-01 12:34:56.123456789012',
  '+12345-01-01 00:00:00.000',
  '2026-11-01',
  '',
  '2026-11-01 a,b',
  '2026-11-01 "q"',
  '2026-11-01 é',
  '2026-11-01 \\',
  '2026-11-01 \t',
];

describe('text encoders match the reference', () => {
  it('on every hard varbinary, top level and nested (JSON, NDJSON, CSV)', async () => {
    const columns = [
      { name: 'v', type: 'varbinary' },
      { name: 'a', type: 'array(varbinary)' },
      { name: 'headers', type: 'array(row(key varchar, value varbinary))' },
      { name: 'm', type: 'map(varbinary, varbinary)' },
    ];
    const values = BYTES.map(b64);
    const rows = values.map((v, i) => [v, [v, null, values[(i + 1) % values.length]], [['k', v]], { [v]: v }]);
    await expectSameAsReference(columns, [rows.slice(0, 20), rows.slice(20)]);
  });

  it('on malformed base64 (cut the same way as Buffer.from)', async () => {
    const values = ['=', '==', 'A', 'A=', 'QQ', 'QQ=', 'QQ==QQ==', '-_-_', 'eyJh Ijox fQ==', 'e30', 'e30=='];
    await expectSameAsReference([{ name: 'v', type: 'varbinary' }], [values.map((v) => [v])]);
  });

  it('on strings, timestamps, json and the other scalars', async () => {
    const columns = [
      { name: 's', type: 'varchar' },
      { name: 't', type: 'timestamp(3)' },
      { name: 'tz', type: 'timestamp(3) with time zone' },
      { name: 'j', type: 'json' },
      { name: 'n', type: 'bigint' },
      { name: 'd', type: 'double' },
      { name: 'x', type: 'SomePluginType' },
    ];
    const jsons = ['{"a": 9007199254740993}', '[1,\n2]', '"s"', 'not json', '', '{"a":\r\n"\ud800"}', '["a,b"]'];
    const numbers = [1, '9007199254740993', 'x', NaN, -0, 1e21];
    const doubles = [1.5, 'NaN', '-Infinity', 'abc', 1e-7];
    const others = [{ a: [1] }, 'a,"b', '', 7, ['\ud800']];
    const zoned = ['2026-11-01 02:30:00.123 +02:30', '2026-11-01 00:00:00.000 Mars/Olympus', 'a,b'];
    const rows: unknown[][] = STRINGS.map((s, i) => [
      s,
      TIMESTAMPS[i % TIMESTAMPS.length],
      zoned[i % zoned.length],
      jsons[i % jsons.length],
      numbers[i % numbers.length],
      doubles[i % doubles.length],
      others[i % others.length],
    ]);
    rows.push(...TIMESTAMPS.map((t) => [null, t, null, null, null, null, null]));
    await expectSameAsReference(columns, [rows]);
  });

  it('on values larger than a page buffer (the page grows under an in-place rewrite)', async () => {
    const big = (s: string) => s.repeat(Math.ceil(70_000 / s.length));
    const values = [
      b64(big('{"q":"\\"",') + '"end":1}'),
      b64('[' + big('"a\\"b",') + '1]'),
      b64(big('text "with" quotes, ')),
      b64(Buffer.alloc(50_000, 0xff)),
      b64('{\n' + big('"k" : [ 1 , 2 ],\n') + '"z":0}'),
    ];
    const columns = [
      { name: 'v', type: 'varbinary' },
      { name: 'h', type: 'array(row(key varchar, value varbinary))' },
    ];
    await expectSameAsReference(columns, [values.map((v) => [v, [['k', v]]])]);
  });

  it('on 300 seeded random tables of nested types', async () => {
    let seed = 20261101;
    const rnd = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 4294967296;
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
    const scalar: [string, () => unknown][] = [
      ['varbinary', () => b64(pick(BYTES))],
      ['varchar', () => pick(STRINGS)],
      ['timestamp(3)', () => pick(TIMESTAMPS)],
      ['json', () => pick(['{"a":[1,\n2]}', '[]', '"x"', 'nope', ''])],
      ['bigint', () => pick([1, '9007199254740993', 'z'])],
      ['boolean', () => pick([true, 'false'])],
      ['HyperLogLog', () => pick(['AgwBAIADAAA=', 'a,b', ''])],
    ];
    const typeOf = (depth: number): [string, () => unknown] => {
      const r = depth > 2 ? 0 : Math.floor(rnd() * 4);
      if (r === 0) return pick(scalar);
      const [t, g] = typeOf(depth + 1);
      if (r === 1)
        return [`array(${t})`, () => Array.from({ length: Math.floor(rnd() * 3) }, () => (rnd() < 0.2 ? null : g()))];
      if (r === 2) return [`row(a ${t}, "b c" varchar)`, () => [rnd() < 0.2 ? null : g(), pick(STRINGS)]];
      return [`map(varchar, ${t})`, () => ({ [pick(STRINGS)]: rnd() < 0.2 ? null : g(), k: g() })];
    };
    for (let table = 0; table < 300; table++) {
      const cols = Array.from({ length: 1 + Math.floor(rnd() * 4) }, () => typeOf(0));
      const columns = cols.map(([type], i) => ({ name: pick(['v', 'a,b', 'q"', 'é', '']) + i, type }));
      const batches = [0, 1].map(() =>
        Array.from({ length: 1 + Math.floor(rnd() * 4) }, () => cols.map(([, g]) => (rnd() < 0.1 ? null : g()))),
      );
      await expectSameAsReference(columns, batches);
    }
  });
});

describe('in-place helpers', () => {
  it('JsonScanner reads only its range and counts quotes', () => {
    const scanner = new JsonScanner();
    const b = Buffer.from('xx[1]]{"a":"\\"b"}yy');
    expect(scanner.scan(b, 2, 5)).toBe(0);
    expect(scanner.scan(b, 2, 4)).toBe(-1); // `[1` is not JSON though `]` follows in the buffer
    expect(scanner.scan(b, 6, 17)).toBe(0);
    expect(scanner.quotes).toBe(5);
    expect(scanner.scan(Buffer.from('[1,\n2]'), 0, 6)).toBe(1); // spans lines
    for (const text of ['"ab', '"\\u00e', '1e', '-', 'tru', '{"a"', '{"a":', '[1,']) {
      const padded = Buffer.from(text + '"0000e]}1 ');
      expect(scanner.scan(padded, 0, text.length), text).toBe(-1);
    }
  });

  it('utf8Sequence agrees with isUtf8 on every 1-3 byte sequence and on random 4-byte ones', () => {
    const valid = (b: Uint8Array) => {
      for (let i = 0; i < b.length; i++) {
        if (b[i]! < 0x80) continue;
        const n = utf8Sequence(b, i, b.length);
        if (n === 0) return false;
        i += n - 1;
      }
      return true;
    };
    const b3 = new Uint8Array(3);
    for (let a = 0x80; a < 0x100; a++) {
      for (let c = 0; c < 0x100; c++) {
        for (const d of [0x00, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xff]) {
          b3[0] = a;
          b3[1] = c;
          b3[2] = d;
          if (valid(b3) !== isUtf8(b3)) expect.fail(`${[...b3].map((x) => x.toString(16))}`);
          if (valid(b3.subarray(0, 2)) !== isUtf8(b3.subarray(0, 2)))
            expect.fail(`${[a, c].map((x) => x.toString(16))}`);
        }
      }
    }
    let seed = 5;
    const rnd = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
    for (let t = 0; t < 100_000; t++) {
      const b = Uint8Array.of(0xf0 + (rnd() % 16), 0x70 + (rnd() % 0x60), 0x70 + (rnd() % 0x60), rnd() & 0xff);
      if (valid(b) !== isUtf8(b)) expect.fail(`${[...b].map((x) => x.toString(16))}`);
    }
    expect(isJson(Buffer.from([0x22, 0xed, 0xa0, 0x80, 0x22]))).toBe(false); // a surrogate is not UTF-8
  });

  it('csvFieldFrom quotes and fields in place in a PageBuffer', () => {
    const out = new PageBuffer(8);
    const field = (text: string) => {
      const start = out.end;
      out.write(text);
      csvFieldFrom(out, start);
      out.writeByte(0x7c);
    };
    ['', 'plain', 'a,b', 'say "hi"', 'é\r\n', '"'].forEach(field);
    out.writeAscii('1234567890'.repeat(5));
    expect(out.take().toString()).toBe('""|plain|"a,b"|"say ""hi"""|"é\r\n"|""""|' + '1234567890'.repeat(5));
  });

  it('TimestampUnits gives what the general path gives, or defers to it', () => {
    const units = new TimestampUnits();
    const timestampToUnits = (text: string, digits: number) => units.read(text, digits);
    const texts = [
      '2026-11-01 00:00:00.000',
      '1970-01-01 00:00:00',
      '1969-12-31 23:59:59.999',
      '2000-02-29 12:00:00.5',
      '2100-03-01 00:00:00.123456789',
      '0100-01-01 00:00:00.000',
      '9999-12-31 23:59:59.999999',
      '2026-02-31 25:61:61.000', // Date.UTC carries the overflow; so does the fast path
      '2026-13-01 00:00:00', // month out of range: deferred
      '0099-12-31 23:59:59', // years below 100: deferred
      '2026-11-01 00:00:00.', // deferred
      '2026-11-01 00:00:00x1', // deferred
      '2026-11-01T00:00:00.000', // deferred
    ];
    for (let day = 0; day < 40_000; day += 7) {
      const d = new Date(Date.UTC(1900, 0, 1) + day * 86_400_000 + day * 1_234);
      texts.push(d.toISOString().replace('T', ' ').replace('Z', ''));
    }
    for (const text of texts) {
      for (const digits of [3, 6, 9]) {
        const fast = timestampToUnits(text, digits);
        if (fast === null) continue;
        expect(fast, `${text} ${digits}`).toBe(instantToUnits(parseTimestamp(text)!, digits));
      }
    }
    expect(timestampToUnits('2026-11-01 00:00:00.123', 3)).toBe(1793491200123);
    expect(timestampToUnits('2026-13-01 00:00:00', 3)).toBeNull();
    expect(timestampToUnits('2026-11-01 00:00:00.123', 9)).toBeNull(); // beyond 2^53: the BigInt path
  });

  it('TimestampUnits over events close in time (the minute it remembers) gives what the general path gives', () => {
    const units = new TimestampUnits();
    const timestampToUnits = (text: string, digits: number) => units.read(text, digits);
    // Steps of 1 ms to 61 s across minute, hour, day, month and year boundaries, in order, as events come; texts that
    // share the remembered minute but are not the usual layout are deferred in between.
    const texts: string[] = [];
    let t = Date.UTC(2026, 11, 31, 23, 58, 0);
    for (let i = 0; i < 3000; i++) {
      t += [1, 7, 999, 1000, 59_999, 61_000][i % 6]!;
      texts.push(new Date(t).toISOString().replace('T', ' ').replace('Z', ''));
    }
    let checked = 0;
    for (const [i, text] of texts.entries()) {
      for (const digits of [3, 6, 9]) {
        const fast = timestampToUnits(text, digits);
        if (digits < 9) expect(fast, `${text} ${digits}`).not.toBeNull();
        if (fast === null) continue;
        expect(fast, `${text} ${digits}`).toBe(instantToUnits(parseTimestamp(text)!, digits));
        checked++;
      }
      if (i % 100 === 0) {
        const minute = text.slice(0, 16);
        for (const odd of [`${minute}:xx.000`, `${minute}:5`, `${minute}x00.000`, `${minute}:00.`, minute])
          expect(timestampToUnits(odd, 3), odd).toBeNull();
      }
    }
    expect(checked).toBe(6000); // ms and us for every text (ns in 2026 is past 2^53: the BigInt path)
  });
});
