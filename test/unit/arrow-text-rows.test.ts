/**
 * Arrow (and Parquet) built from rows as text against the value path, byte for byte: the same JSON text of rows
 * (as Trino writes it, and in forms it does not: escapes, raw and invalid UTF-8, odd numbers, rows of the wrong
 * length) encoded once from the bytes (arrow-tuple.ts, arrow-text-column.ts) and once parsed as the reader parses
 * it. A value the value path rejects must fail the text path too. Seeded random pages mix every type with nulls at
 * every depth.
 */
import { Buffer } from 'node:buffer';
import { tableFromIPC, type Data } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { parseLosslessJson } from '../../src/core/lossless-json.js';
import type { ResultColumn } from '../../src/core/result-stream.js';
import { TextRows, type RowBatch } from '../../src/core/text-rows.js';
import { encodeArrow } from '../../src/encode/arrow/arrow-encoder.js';
import type { Encoder } from '../../src/encode/encoder.js';
import { encodeParquet } from '../../src/encode/parquet/parquet-encoder.js';

const b64 = (x: string | number[]) => `"${Buffer.from(x as string).toString('base64')}"`;
const str = (s: string) => JSON.stringify(s);
const ENUM = 'enum(row("NEW" boolean, "PAID" boolean, "é" boolean))';

/** Each type with JSON texts of its values as they may come in a Trino page (some the value path rejects). */
const CASES: Record<string, (string | Buffer)[]> = {
  varchar: [
    str('plain'),
    str(''),
    str('comma, "quote"\r\nline'),
    '"tab\\t and \\u00e9 and \\/"',
    '"raw é 🚀 ✓"',
    '"\\ud83d\\ude80 pair, and a lone \\ud800"',
    '"\\u2028\\u0000\\u001f"',
    Buffer.from([0x22, 0x61, 0xff, 0x62, 0x22]), // invalid UTF-8 inside a string
    Buffer.from([0x22, 0xed, 0xa0, 0x80, 0x22]), // a UTF-8-encoded surrogate
    '12',
    'true',
  ],
  bigint: ['0', '-1', '42', '123456789012345', '-123456789012345', '1234567890123456', '9007199254740993'],
  'array(bigint)': ['[9223372036854775807,-9223372036854775808,18446744073709551617]', '[-0, 1.5, 1e3, "7"]'],
  integer: ['0', '-2147483648', '2147483647', '7', '4294967297', '1.5', '"12"'],
  smallint: ['300', '-300', '70000'],
  tinyint: ['-128', '127', '300'],
  double: ['1.0', '1.0E10', '-2.5E-7', '0.1', '1.7976931348623157E308', '"NaN"', '"Infinity"', '"-Infinity"', '5'],
  real: ['1.5', '"NaN"', '3.4028235E38', '0.1', '-0'],
  'decimal(12,2)': ['"12.30"', '"-0.50"', '"0.00"', '"1e5"', '"12."', '"1.234"', '"9999999999.99"', '12.3'],
  'decimal(38,2)': ['"-123456789012345678901234567890123456.78"', '"99999999999999999999999999999999999999"'],
  'decimal(3,0)': ['"-5"', '"+7"', '"\\u0037"'],
  boolean: ['true', 'false', '"true"', '0'],
  varbinary: [
    b64('{"a":1,"big":9007199254740993,"s":"x\\"y"}'),
    b64('plain text, with "quotes"'),
    b64(''),
    b64([0xff, 0x00, 0x41]),
    b64([0xc3]),
    b64('é🚀'),
    '"QQ"', // not canonical base64 (no padding): the value path's decoder takes it
    '"Q Q=="',
    '"-_-_"',
    '"QR=="', // non-zero bits after the last byte
    '"QUJD\\/w=="',
    '12',
    // Past 64 characters, Buffer's decoder: it must take only text that is all base64.
    b64('{"order_id":1000001,"status":"paid","customer":{"name":"Zoë Müller"},"items":[{"sku":"SKU-1"}]}'),
    `"${'QUJD'.repeat(20)}-_-_"`,
    `"${'QUJD'.repeat(20)}\\/w=="`,
    `"${'QUJD'.repeat(20)} QQ=="`,
    `"${'QUJD'.repeat(20)}QQ==QUJD"`,
    `"${'QUJD'.repeat(20)}QQ"`,
    `"${'QUJD'.repeat(20)}QR=="`,
    Buffer.concat([Buffer.from(`"${'QUJD'.repeat(20)}`), Buffer.from([0xc3, 0xa9]), Buffer.from('QUJ"')]),
    Buffer.concat([Buffer.from(`"${'QUJD'.repeat(20)}`), Buffer.from([0xff]), Buffer.from('QUJ"')]),
    Buffer.concat([Buffer.from(`"${'QUJD'.repeat(20)}`), Buffer.from([0x09]), Buffer.from('QUJ"')]),
  ],
  'timestamp(3)': [
    '"2026-11-01 00:00:00.000"',
    '"1970-01-01 00:00:00.001"',
    '"1969-12-31 23:59:59.999"',
    '"+12026-11-01 00:00:00.000"',
    '"0001-01-01 00:00:00.000"',
    '"2026-11-01 00:00:00"',
    '"2026-11-01 00:00:00,5"',
    '"2026"',
    '"2026-11-01 00:00:01.000"',
    '"2026-11-01 00:01:00.5"',
    '"2026-11-01 00:01:00.123456"',
    '"2026-11-01 00:01:60.000"',
    '"2026-02-30 00:00:00.000"',
    '"2026-13-01 00:00:00.000"',
    '"0099-11-01 00:00:00.000"',
    '"2026-11-01 0a:00:00.000"',
    '"2026-11-01 00:00:00."',
    '"2026-11-01T00:00:00.000"',
    '"275760-09-13 00:00:00.001"',
    '"-0001-01-01 00:00:00.000"',
  ],
  'timestamp(6)': [
    '"2026-11-01 00:00:00.123456"',
    '"0001-01-01 00:00:00.000001"',
    '"2026-11-01 00:00:00.1"',
    '"2026-11-01 00:00:00.1234567"',
    '"2026-11-01 00:00:00"',
    '"9999-12-31 23:59:59.999999"',
  ],
  'timestamp(9)': ['"2026-11-01 00:00:00.123456789"', '"1969-12-31 23:59:59.999999999"'],
  'timestamp(12)': ['"2026-11-01 00:00:00.123456789012"'],
  'timestamp(3) with time zone': [
    '"2026-11-01 00:00:00.000 UTC"',
    '"2026-11-01 01:00:00.000 +01:00"',
    '"2026-07-01 12:00:00.000 Europe/Berlin"',
    '"2026-11-01 00:00:00.000 Mars/Olympus"',
  ],
  'timestamp(6) with time zone': ['"2026-11-01 00:00:00.123456 America/New_York"'],
  date: ['"2026-11-01"', '"1969-12-31"', '"2026-13-01"'],
  json: [str('{"a": [1, 2]}'), str('"scalar"'), str('not json')],
  uuid: ['"12151fd2-7586-11e9-8f9e-2a86e4085a59"'],
  'time(3)': ['"12:34:56.789"'],
  [ENUM]: ['"NEW"', '"PAID"', '"\\u00e9"', '"é"', '"VOID"'],
  'array(varchar)': ['[]', '["a",null,"b,c"]', '["\\n"]', '[null]', '[ "a" , "b" ]', '"[]"', '{}'],
  'array(row(key varchar, value varbinary))': [
    '[]',
    `[["trace",${b64('abc')}],["k",null],[null,${b64('{"x":1}')}]]`,
    `[["a\\"b",${b64([0xff])}]]`,
    `[["short"],["long",${b64('x')},3],[]]`,
    '[null,["k","QQ"]]',
  ],
  'map(varchar, bigint)': ['{}', '{"a":1,"b":null,"c":9007199254740993}', '{"b":1,"1":2,"b":3}'],
  'map(bigint, array(varchar))': ['{"1":["x",null],"2":null}'],
  'row(a bigint, b varchar)': ['[1,"x"]', '[null,null]', '[9007199254740993,"y\\u0000"]', '[1]', '[1,"x",[2]]'],
  'row(a row(b array(timestamp(6)), c double), d boolean)': ['[[["2026-11-01 00:00:00.1",null],1.0E0],true]'],
  'array(array(timestamp(3)))': ['[["2026-11-01 00:00:00.000",null],[],null]'],
  geometry: ['"POINT (1 2)"', '12', '[1,2]'],
};

/** Encodes the same batches of rows once as text and once as values; each is the bytes, or the error thrown. */
async function both(encode: Encoder, columns: ResultColumn[], rowTexts: (string | Buffer)[][], batchRows = 7) {
  const lossless = columns.some((c) => /\bbigint\b/.test(c.type));
  const parse = lossless ? parseLosslessJson : JSON.parse;
  const bad = () => new Error('not rows');
  const batches: TextRows[] = [];
  for (let i = 0; i < rowTexts.length; i += batchRows) {
    const part = rowTexts.slice(i, i + batchRows);
    batches.push(new TextRows(rowsText(part), part.length, parse, bad));
  }
  const run = async (as: (b: TextRows) => RowBatch) => {
    async function* gen() {
      for (const b of batches) yield as(b);
    }
    const chunks: Buffer[] = [];
    try {
      for await (const c of encode({ queryId: 'q', columns, batches: gen() }, { next: null }))
        chunks.push(Buffer.from(c));
    } catch (err) {
      return err as Error;
    }
    return Buffer.concat(chunks);
  };
  return [await run((b) => b), await run((b) => b.values())] as const;
}

/** Rows of value texts as one batch's bytes: `[v,v],[v,v]` (strings as UTF-8, buffers as they are). */
function rowsText(rows: (string | Buffer)[][]): Buffer {
  const parts: Buffer[] = [];
  rows.forEach((row, r) => {
    parts.push(Buffer.from(r === 0 ? '[' : ',['));
    row.forEach((v, i) => {
      parts.push(Buffer.from(i === 0 ? '' : ','), Buffer.from(v));
    });
    parts.push(Buffer.from(']'));
  });
  return Buffer.concat(parts);
}

/**
 * Asserts both encodings are the same bytes, or both failed; returns whether they succeeded. An Arrow stream with
 * a dictionary (an enum) is compared as its decoded buffers instead: arrow-js numbers dictionaries from a counter
 * per process, so two streams of the same rows differ in the dictionary's id.
 */
function same([text, values]: readonly [Buffer | Error, Buffer | Error], what: string): boolean {
  if (values instanceof Error) {
    expect(text, `${what}: the value path fails (${values.message}), the text path must too`).toBeInstanceOf(Error);
    return false;
  }
  if (text instanceof Error) throw new Error(`${what}: the text path failed: ${text.message}`);
  if (text.equals(values)) return true;
  expect(what.startsWith('enum'), `${what}: the bytes differ`).toBe(true);
  const decoded = (b: Buffer) => tableFromIPC(b).batches.map((batch) => dataBuffers(batch.data));
  expect(decoded(text), what).toEqual(decoded(values));
  return true;
}

/** The buffers of Arrow data and of its children and dictionary, as plain arrays. */
function dataBuffers(d: Data): unknown {
  const bytes = (a: ArrayBufferView | undefined) =>
    a === undefined ? [] : [...new Uint8Array(a.buffer, a.byteOffset, a.byteLength)];
  return {
    type: String(d.type),
    length: d.length,
    nullCount: d.nullCount,
    nulls: d.nullCount === 0 ? [] : bytes(d.nullBitmap),
    values: bytes(d.values as ArrayBufferView | undefined),
    offsets: bytes(d.valueOffsets as ArrayBufferView | undefined),
    children: d.children.map(dataBuffers),
    dictionary: d.dictionary?.data.map(dataBuffers) ?? null,
  };
}

/** A seeded PRNG (mulberry32), so a failing random page can be replayed. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The texts of each type the value path encodes (found one by one), for pages that must encode. */
async function acceptedCases(): Promise<Record<string, (string | Buffer)[]>> {
  const out: Record<string, (string | Buffer)[]> = {};
  for (const [type, texts] of Object.entries(CASES)) {
    out[type] = [];
    for (const t of texts) {
      const [, values] = await both(encodeArrow, [{ name: 'v', type }], [[t]]);
      if (!(values instanceof Error)) out[type].push(t);
    }
  }
  return out;
}

describe('Arrow from rows as text is what the value path makes', () => {
  it('every hard case of every type, alone and with null, each as the value path takes or rejects it', async () => {
    let accepted = 0;
    for (const [type, texts] of Object.entries(CASES)) {
      const columns = [
        { name: 'v', type },
        { name: 'k', type: 'varchar' },
      ];
      for (const t of texts) {
        const rows = [t, 'null', t].map((v, i) => [v, str(`row ${i}`)]);
        if (same(await both(encodeArrow, columns, rows), `${type} ${String(t)}`)) accepted++;
      }
    }
    expect(accepted).toBeGreaterThan(100); // most cases encode: the comparison is not of two failures
  });

  it('seeded random pages of every type at once', async () => {
    const cases = await acceptedCases();
    const types = Object.keys(cases).filter((t) => t !== ENUM); // bytes compared: no dictionary id (see `same`)
    const columns = types.map((type, i) => ({ name: `c${i} "${type}"`, type }));
    for (let seed = 1; seed <= 20; seed++) {
      const next = random(seed);
      const rows = Array.from({ length: 1 + Math.floor(next() * 40) }, () =>
        types.map((t) => {
          const texts = cases[t]!;
          return next() < 0.15 ? 'null' : texts[Math.floor(next() * texts.length)]!;
        }),
      );
      const result = await both(encodeArrow, columns, rows, 1 + Math.floor(next() * 9));
      expect(same(result, `seed ${seed}`)).toBe(true);
    }
  });

  it('rows of the wrong length or not arrays, white space, and an empty batch', async () => {
    const columns = [
      { name: 'a', type: 'bigint' },
      { name: 'b', type: 'varchar' },
    ];
    const rows = [['1'], ['2', '"x"', '[3]'], [' 4 ', ' "y" ']];
    expect(same(await both(encodeArrow, columns, rows), 'lengths')).toBe(true);
    expect(same(await both(encodeArrow, columns, []), 'empty')).toBe(true);
    const notArrays = new TextRows(Buffer.from('{"0":5,"1":"z"} , [6,"w"]'), 2, JSON.parse, () => new Error('bad'));
    const run = async (batch: RowBatch) => {
      const chunks: Buffer[] = [];
      async function* gen() {
        yield batch;
      }
      for await (const c of encodeArrow({ queryId: 'q', columns, batches: gen() }, { next: null }))
        chunks.push(Buffer.from(c));
      return Buffer.concat(chunks);
    };
    expect((await run(notArrays)).equals(await run(notArrays.values()))).toBe(true);
  });

  it('text that is not JSON fails the stream with the batch error', async () => {
    const columns = [
      { name: 'a', type: 'bigint' },
      { name: 'h', type: 'array(row(key varchar, value varbinary))' },
    ];
    for (const text of ['[1', '[1,[]', '[1,[]]x', '[nul,[]]', '["unclosed]', '[1,[]]]', '[1,[]],', '[1,[[,]]]']) {
      const batch = new TextRows(Buffer.from(text), 1, parseLosslessJson, () => new Error('not rows'));
      async function* gen() {
        yield batch;
      }
      const read = async () => {
        for await (const _ of encodeArrow({ queryId: 'q', columns, batches: gen() }, { next: null }));
      };
      await expect(read(), text).rejects.toThrow('not rows');
    }
  });

  it('Parquet: the same file from text as from values', async () => {
    const cases = await acceptedCases();
    const types = Object.keys(cases).filter((t) => t !== ENUM); // the Parquet writer takes no dictionary here
    const columns = types.map((type, i) => ({ name: `c${i}`, type }));
    const next = random(7);
    const rows = Array.from({ length: 60 }, () =>
      types.map((t) => (next() < 0.15 ? 'null' : cases[t]![Math.floor(next() * cases[t]!.length)]!)),
    );
    expect(same(await both(encodeParquet, columns, rows, 13), 'parquet')).toBe(true);
  });
});
