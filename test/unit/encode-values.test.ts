import { describe, expect, it } from 'vitest';
import { encodeCsv } from '../../src/encode/text/csv-encoder.js';
import type { Encoder } from '../../src/encode/encoder.js';
import { inMemoryResult } from '../fakes/in-memory-result.js';
import { encodeJson } from '../../src/encode/text/json-encoder.js';
import { encodeNdjson } from '../../src/encode/text/ndjson-encoder.js';

const b64 = (x: string | number[]) => Buffer.from(x as string).toString('base64');

async function body(encode: Encoder, type: string, value: unknown): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of encode(inMemoryResult([{ name: 'v', type }], [[[value]]]), { next: null }))
    chunks.push(Buffer.from(c));
  return Buffer.concat(chunks).toString('utf8');
}

// [Trino type, value as the Trino protocol delivers it, expected JSON text, expected CSV field]
const CASES: [string, unknown, string, string][] = [
  ['varbinary', b64('hello'), '"hello"', 'hello'],
  ['varbinary', b64('é🚀 ünïcode'), '"é🚀 ünïcode"', 'é🚀 ünïcode'],
  ['varbinary', b64([0xff, 0x00, 0x41]), '"\\\\xff0041"', '\\xff0041'],
  ['varbinary', b64([0xed, 0xa0, 0x80]), '"\\\\xeda080"', '\\xeda080'], // UTF-8-encoded surrogate: not UTF-8
  ['varbinary', b64('\\x41'), '"\\\\x5c783431"', '\\x5c783431'], // text that looks like hex is hex
  ['varbinary', b64('x\\x41'), '"x\\\\x41"', 'x\\x41'], // only a leading \x counts
  ['varbinary', b64(''), '""', '""'],
  [
    'varbinary',
    b64('{"id":9007199254740993,"a":[1.50,true,null]}'),
    '{"id":9007199254740993,"a":[1.50,true,null]}',
    '"{""id"":9007199254740993,""a"":[1.50,true,null]}"',
  ],
  ['varbinary', b64(' [1, 2] '), ' [1, 2] ', '" [1, 2] "'],
  [
    'varbinary',
    b64('{\n  "a": "x y\\n",\r\n  "b": [1, 2]\n}'),
    '{"a":"x y\\n","b":[1,2]}',
    '"{""a"":""x y\\n"",""b"":[1,2]}"',
  ],
  ['varbinary', b64('42'), '"42"', '42'], // a JSON scalar stays text
  ['varbinary', b64('{"a":}'), '"{\\"a\\":}"', '"{""a"":}"'], // not JSON: text
  ['varbinary', b64('line1\nline2'), '"line1\\nline2"', '"line1\nline2"'],
  ['bigint', 42, '42', '42'],
  ['bigint', '9007199254740993', '9007199254740993', '9007199254740993'],
  ['bigint', '-9223372036854775808', '-9223372036854775808', '-9223372036854775808'],
  ['integer', -7, '-7', '-7'],
  ['tinyint', 127, '127', '127'],
  ['decimal(12,2)', '12.30', '12.30', '12.30'],
  ['decimal(12,2)', '-0.05', '-0.05', '-0.05'],
  [
    'decimal(38,0)',
    '12345678901234567890123456789012345678',
    '12345678901234567890123456789012345678',
    '12345678901234567890123456789012345678',
  ],
  ['double', 1.5, '1.5', '1.5'],
  ['double', 1e21, '1e+21', '1e+21'],
  ['double', 'NaN', '"NaN"', 'NaN'],
  ['double', 'Infinity', '"Infinity"', 'Infinity'],
  ['double', '-Infinity', '"-Infinity"', '-Infinity'],
  ['real', 0.5, '0.5', '0.5'],
  ['boolean', true, 'true', 'true'],
  ['boolean', false, 'false', 'false'],
  ['varchar', 'a,b "c"\nd', '"a,b \\"c\\"\\nd"', '"a,b ""c""\nd"'],
  ['varchar', 'x\r', '"x\\r"', '"x\r"'],
  ['varchar', '', '""', '""'],
  ['varchar(3)', 'abc', '"abc"', 'abc'],
  ['json', '{"a": 9007199254740993}', '{"a": 9007199254740993}', '"{""a"": 9007199254740993}"'],
  ['json', '[1,\n2]', '[1,2]', '"[1,2]"'],
  ['json', '"s"', '"s"', '"""s"""'],
  ['date', '2026-11-01', '"2026-11-01"', '2026-11-01'],
  ['timestamp(3)', '2026-11-01 00:00:00.000', '"2026-11-01T00:00:00.000Z"', '2026-11-01T00:00:00.000Z'],
  ['timestamp(0)', '2026-11-01 12:34:56', '"2026-11-01T12:34:56Z"', '2026-11-01T12:34:56Z'],
  [
    'timestamp(12)',
    '2026-11-01 12:34:56.123456789012',
    '"2026-11-01T12:34:56.123456789012Z"',
    '2026-11-01T12:34:56.123456789012Z',
  ],
  [
    'timestamp(3) with time zone',
    '2026-11-01 00:00:00.000 UTC',
    '"2026-11-01T00:00:00.000Z"',
    '2026-11-01T00:00:00.000Z',
  ],
  [
    'timestamp(3) with time zone',
    '2026-11-01 02:30:00.123 +02:30',
    '"2026-11-01T00:00:00.123Z"',
    '2026-11-01T00:00:00.123Z',
  ],
  [
    'timestamp(3) with time zone',
    '2026-01-01 00:30:00.000 +01:00',
    '"2025-12-31T23:30:00.000Z"',
    '2025-12-31T23:30:00.000Z',
  ],
  [
    'timestamp(6) with time zone',
    '2026-12-31 23:30:00.000001 -01:00',
    '"2027-01-01T00:30:00.000001Z"',
    '2027-01-01T00:30:00.000001Z',
  ],
  [
    'timestamp(6) with time zone',
    '2026-07-01 12:00:00.000000 Europe/Berlin',
    '"2026-07-01T10:00:00.000000Z"',
    '2026-07-01T10:00:00.000000Z',
  ],
  [
    'timestamp(3) with time zone',
    '2026-01-01 12:00:00.000 America/New_York',
    '"2026-01-01T17:00:00.000Z"',
    '2026-01-01T17:00:00.000Z',
  ],
  [
    'timestamp(3) with time zone',
    '2026-11-01 00:00:00.000 Mars/Olympus',
    '"2026-11-01 00:00:00.000 Mars/Olympus"',
    '2026-11-01 00:00:00.000 Mars/Olympus',
  ],
  ['time(3)', '12:00:00.000', '"12:00:00.000"', '12:00:00.000'],
  [
    'uuid',
    '12151fd2-7586-11e9-8f9e-2a86e4085a59',
    '"12151fd2-7586-11e9-8f9e-2a86e4085a59"',
    '12151fd2-7586-11e9-8f9e-2a86e4085a59',
  ],
  ['array(bigint)', [1, '9007199254740993', null], '[1,9007199254740993,null]', '"[1,9007199254740993,null]"'],
  [
    'array(row(key varchar, value varbinary))',
    [['trace', b64('{"x":1}')], ['bin', b64([0xff])], ['t', b64('hi')], null],
    '[{"key":"trace","value":{"x":1}},{"key":"bin","value":"\\\\xff"},{"key":"t","value":"hi"},null]',
    '"[{""key"":""trace"",""value"":{""x"":1}},{""key"":""bin"",""value"":""\\\\xff""},{""key"":""t"",""value"":""hi""},null]"',
  ],
  ['map(varchar, decimal(5,2))', { a: '1.50', b: null }, '{"a":1.50,"b":null}', '"{""a"":1.50,""b"":null}"'],
  [
    'map(bigint, varbinary)',
    { '9007199254740993': b64('x') },
    '{"9007199254740993":"x"}',
    '"{""9007199254740993"":""x""}"',
  ],
  ['map(varbinary, bigint)', { [b64([0xfe])]: 1 }, '{"\\\\xfe":1}', '"{""\\\\xfe"":1}"'],
  [
    'row(a bigint, "b c" timestamp(3))',
    ['9007199254740993', '2026-11-01 00:00:00.000'],
    '{"a":9007199254740993,"b c":"2026-11-01T00:00:00.000Z"}',
    '"{""a"":9007199254740993,""b c"":""2026-11-01T00:00:00.000Z""}"',
  ],
  ['row(bigint, varchar)', [1, 'x'], '{"_col0":1,"_col1":"x"}', '"{""_col0"":1,""_col1"":""x""}"'],
  ['HyperLogLog', 'AgwBAIADAAA=', '"AgwBAIADAAA="', 'AgwBAIADAAA='],
  ['SomePluginType', { a: [1] }, '{"a":[1]}', '"{""a"":[1]}"'],
];

describe('text value rules', () => {
  it.each(CASES)('%s %j', async (type, value, json, csv) => {
    expect(await body(encodeNdjson, type, value)).toBe(`{"v":${json}}\n\n`);
    expect(await body(encodeCsv, type, value)).toBe(`v\r\n${csv}\r\n`);
    const whole = await body(encodeJson, type, value);
    expect(whole).toContain(`"rows":[\n{"v":${json}}\n]`);
    expect(() => JSON.parse(whole)).not.toThrow();
  });

  it.each([
    'varbinary',
    'bigint',
    'decimal(12,2)',
    'array(bigint)',
    'row(a bigint)',
    'map(varchar, bigint)',
    'timestamp(3)',
    'HyperLogLog',
  ])('null %s is null in JSON and an empty field in CSV', async (type) => {
    expect(await body(encodeNdjson, type, null)).toBe('{"v":null}\n\n');
    expect(await body(encodeCsv, type, null)).toBe('v\r\n\r\n');
  });

  it('keeps every NDJSON row on one line even when payloads span lines', async () => {
    const text = await body(encodeNdjson, 'array(varbinary)', [b64('{\n"a":\n[1,\n2]}'), b64('[\r\n]')]);
    expect(text).toBe('{"v":[{"a":[1,2]},[]]}\n\n');
  });
});

describe('whole bodies', () => {
  const columns = [
    { name: 'key', type: 'varbinary' },
    { name: 'n', type: 'bigint' },
    { name: 'note, "quoted"', type: 'varchar' },
  ];
  const rows = [
    [[b64('k1'), '9007199254740993', 'plain']],
    [],
    [
      [null, -1, 'a,b'],
      [b64([0x80]), 0, null],
    ],
  ];
  const run = async (encode: Encoder, options = {}) => {
    const chunks: Buffer[] = [];
    for await (const c of encode(inMemoryResult(columns, rows), { next: '/v1/topics/t/events?cursor=abc', ...options }))
      chunks.push(Buffer.from(c));
    return Buffer.concat(chunks).toString('utf8');
  };

  it('JSON', async () => {
    expect(await run(encodeJson, { meta: { batch: 'b1', skipped: undefined } })).toBe(
      '{"columns":[{"name":"key","type":"varbinary"},{"name":"n","type":"bigint"},{"name":"note, \\"quoted\\"","type":"varchar"}],"rows":[\n' +
        '{"key":"k1","n":9007199254740993,"note, \\"quoted\\"":"plain"},\n' +
        '{"key":null,"n":-1,"note, \\"quoted\\"":"a,b"},\n' +
        '{"key":"\\\\x80","n":0,"note, \\"quoted\\"":null}\n' +
        '],"next":"/v1/topics/t/events?cursor=abc","complete":true,"batch":"b1"}\n',
    );
  });

  it('JSON with no rows', async () => {
    const chunks: string[] = [];
    for await (const c of encodeJson(inMemoryResult([{ name: 'a', type: 'bigint' }], [[], []]), { next: null }))
      chunks.push(String(c));
    expect(chunks.join('')).toBe(
      '{"columns":[{"name":"a","type":"bigint"}],"rows":[\n],"next":null,"complete":true}\n',
    );
  });

  it('rejects meta that would shadow a member of the body', () => {
    expect(() => encodeJson(inMemoryResult(columns, []), { next: null, meta: { complete: false } })).toThrow(TypeError);
  });

  it('NDJSON', async () => {
    expect(await run(encodeNdjson)).toBe(
      '{"key":"k1","n":9007199254740993,"note, \\"quoted\\"":"plain"}\n' +
        '{"key":null,"n":-1,"note, \\"quoted\\"":"a,b"}\n' +
        '{"key":"\\\\x80","n":0,"note, \\"quoted\\"":null}\n\n',
    );
  });

  it('CSV (RFC 4180 quoting, CRLF, NULL unquoted empty)', async () => {
    expect(await run(encodeCsv)).toBe(
      'key,n,"note, ""quoted"""\r\n' + 'k1,9007199254740993,plain\r\n' + ',-1,"a,b"\r\n' + '\\x80,0,\r\n',
    );
  });
});
