/**
 * The hard cases of arrow-text-rows.test.ts: JSON texts of values of every Trino type the topics have, as they may
 * come in a Trino page (escapes, raw and invalid UTF-8, huge integers, odd numbers, broken base64, timestamp
 * layouts, nulls and short or long rows at every depth), some of which the value path rejects.
 */
import { Buffer } from 'node:buffer';

const b64 = (x: string | number[]) => `"${Buffer.from(x as string).toString('base64')}"`;
const str = (s: string) => JSON.stringify(s);
/** A decoded Avro enum's type (its symbols are the field names). */
export const ENUM = 'enum(row("NEW" boolean, "PAID" boolean, "é" boolean))';

/** Each type with JSON texts of its values as they may come in a Trino page (some the value path rejects). */
export const CASES: Record<string, (string | Buffer)[]> = {
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
