/**
 * The transcoder against the value path, byte for byte: the same JSON text of rows (as Trino writes it, and in
 * forms it does not: escapes, raw UTF-8, invalid UTF-8, odd numbers) written once from the bytes
 * (row-transcoder.ts) and once parsed as the reader parses it and written by the value writers. The hard cases
 * cover every Trino type the topics have; seeded random pages mix them with nulls at every depth.
 */
import { Buffer } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import type { ResultColumn } from '../../src/core/result-stream.js';
import { TextRows, type RowBatch } from '../../src/core/text-rows.js';
import { random, textBatches } from '../cases/text-batches.js';
import type { Encoder } from '../../src/encode/encoder.js';
import { encodeCsv } from '../../src/encode/text/csv-encoder.js';
import { encodeJson } from '../../src/encode/text/json-encoder.js';
import { encodeNdjson } from '../../src/encode/text/ndjson-encoder.js';

const b64 = (x: string | number[]) => `"${Buffer.from(x as string).toString('base64')}"`;
const str = (s: string) => JSON.stringify(s);

/** Each type with JSON texts of its values as they may come in a Trino page. */
const CASES: Record<string, (string | Buffer)[]> = {
  varchar: [
    str('plain'),
    str(''),
    str('comma, "quote"\r\nline'),
    '"tab\\t and \\u00e9 and \\/"',
    '"raw é 🚀 ✓"',
    '"\\ud83d\\ude80 pair, and a lone \\ud800"',
    '"\\u2028\\u0000\\u001f"',
    str('\\x41 looks like hex'),
    str('=1+1'),
    str('-5'),
    str('+'),
    str('@x, "y"'),
    '"\\t=1"',
    '"\\r\\n"',
    Buffer.from([0x22, 0x61, 0xff, 0x62, 0x22]), // invalid UTF-8 inside a string
  ],
  bigint: ['0', '-1', '42', '123456789012345', '-123456789012345', '1234567890123456', '9007199254740993'],
  integer: ['0', '-2147483648', '2147483647', '7'],
  smallint: ['300', '-300'],
  tinyint: ['-128', '127'],
  double: ['1.0', '1.0E10', '-2.5E-7', '0.1', '1.7976931348623157E308', '"NaN"', '"Infinity"', '"-Infinity"', '5'],
  real: ['1.5', '"NaN"', '3.4028235E38'],
  'decimal(12,2)': ['"12.30"', '"-0.50"', '"0.00"', '"1e5"', '"12."'],
  'decimal(38,2)': ['"-123456789012345678901234567890123456.78"'],
  boolean: ['true', 'false'],
  varbinary: [
    b64('{"a":1,"big":9007199254740993,"s":"x\\"y"}'),
    b64('[1, 2,\n 3]'),
    b64('{\n  "multi": "line"\r\n}'),
    b64('plain text, with "quotes"'),
    b64('needs escape \n\t'),
    b64('42'),
    b64('{"a":'),
    b64('\\x41'),
    b64(''),
    b64([0xff, 0x00, 0x41]),
    b64([0xc3]),
    b64('é🚀'),
    '"QQ"', // not canonical base64 (no padding): the value path's decoder takes it
    '"Q Q=="',
    '"-_-_"',
    b64("=cmd|' /C calc'!A0"),
    b64('-5'),
    b64('@a,b'),
    b64('\t[1]'),
    b64('\r{"a":1}'),
  ],
  'timestamp(3)': [
    '"2026-11-01 00:00:00.000"',
    '"1970-01-01 00:00:00.001"',
    '"+12026-11-01 00:00:00.000"',
    '"2026-11-01 00:00:00,5"',
    '"2026"',
    '"2026-11-01 00:00:00"',
    '"2026-11-01 00:00:00.000\\u0041"',
    '"2026-11-01 00:00:00.000 é"',
    '"2026-11-01 00:00:00.000\\t"',
    `"2026-11-01 00:00:00.${'0'.repeat(40)}"`,
  ],
  'timestamp(6)': ['"2026-11-01 00:00:00.123456"'],
  'timestamp(12)': ['"2026-11-01 00:00:00.123456789012"', '"+275760-09-13 00:00:00.123456789012"'],
  'timestamp(3) with time zone': [
    '"2026-11-01 00:00:00.000 UTC"',
    '"2026-11-01 01:00:00.000 +01:00"',
    '"2026-11-01 00:00:00.000 Mars/Olympus"',
  ],
  date: ['"2026-11-01"'],
  json: [str('{"a": [1, 2]}'), str('"scalar"'), str('not json'), str('{\n"b":1}')],
  uuid: ['"12151fd2-7586-11e9-8f9e-2a86e4085a59"'],
  'array(varchar)': ['[]', '["a",null,"b,c"]', '["\\n"]', '[null]'],
  'array(bigint)': ['[1,9007199254740993,null]'],
  'array(row(key varchar, value varbinary))': [
    '[]',
    `[["trace",${b64('abc')}],["k",null],[null,${b64('{"x":1}')}]]`,
    `[["a\\"b",${b64([0xff])}]]`,
  ],
  'map(varchar, bigint)': ['{}', '{"a":1,"b":null,"c":9007199254740993}'],
  'row(a bigint, b varchar)': ['[1,"x"]', '[null,null]', '[9007199254740993,"y\\u0000"]'],
  'row(bigint, double)': ['[1,1.0E3]'],
  'array(array(timestamp(3)))': ['[["2026-11-01 00:00:00.000",null],[]]'],
  geometry: ['"POINT (1 2)"', '12', '[1,2]'],
};

/** Writes the same rows both ways with an encoder; returns [from text, from values]. */
async function both(encode: Encoder, columns: ResultColumn[], rowTexts: (string | Buffer)[][], batchRows = 7) {
  const batches = textBatches(columns, rowTexts, batchRows);
  const run = async (as: (b: TextRows) => RowBatch) => {
    async function* gen() {
      for (const b of batches) yield as(b);
    }
    const chunks: Buffer[] = [];
    for await (const c of encode({ queryId: 'q', columns, batches: gen() }, { next: null }))
      chunks.push(Buffer.from(c));
    return Buffer.concat(chunks);
  };
  return [await run((b) => b), await run((b) => b.values())] as const;
}

const ENCODERS: [string, Encoder][] = [
  ['ndjson', encodeNdjson],
  ['json', encodeJson],
  ['csv', encodeCsv],
];

describe('the transcoder writes what the value path writes', () => {
  for (const [format, encode] of ENCODERS) {
    it(`${format}: every hard case of every type, and null`, async () => {
      for (const [type, texts] of Object.entries(CASES)) {
        const columns = [
          { name: 'v', type },
          { name: 'k', type: 'varchar' },
        ];
        const rows = [...texts, 'null'].map((t, i) => [t, str(`row ${i}`)]);
        const [text, values] = await both(encode, columns, rows).catch((e) => {
          throw new Error(`${type}: ${e}`);
        });
        expect(text.toString('latin1'), type).toBe(values.toString('latin1'));
      }
    });

    it(`${format}: seeded random pages of every type at once`, async () => {
      const types = Object.keys(CASES);
      const columns = types.map((type, i) => ({ name: `c${i} "${type}"`, type }));
      for (let seed = 1; seed <= 20; seed++) {
        const next = random(seed);
        const rows = Array.from({ length: 1 + Math.floor(next() * 40) }, () =>
          types.map((t) => {
            const texts = CASES[t]!;
            return next() < 0.15 ? 'null' : texts[Math.floor(next() * texts.length)]!;
          }),
        );
        const [text, values] = await both(encode, columns, rows, 1 + Math.floor(next() * 9));
        expect(text.equals(values), `seed ${seed}`).toBe(true);
      }
    });
  }

  it('no columns: each row is an empty object, or an empty record', async () => {
    for (const [format, encode] of ENCODERS) {
      const [text, values] = await both(encode, [], [[], []]);
      expect(text.toString(), format).toBe(values.toString());
    }
  });

  it('text that is not rows of the columns fails the read, as text that is not JSON does', async () => {
    const columns = [{ name: 'a', type: 'bigint' }];
    const bad = () => new Error('not rows');
    for (const text of ['[1', '{"a":1}', '[1,2]', '[]', '[1]x', '[nul]', '["unclosed]', '[1]]']) {
      const batch = new TextRows(Buffer.from(text), 1, JSON.parse, bad);
      async function* gen() {
        yield batch;
      }
      const read = async () => {
        for await (const _ of encodeNdjson({ queryId: 'q', columns, batches: gen() }, { next: null }));
      };
      await expect(read(), text).rejects.toThrow('not rows');
    }
  });
});
