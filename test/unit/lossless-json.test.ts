/**
 * Trino sends BIGINT as JSON numbers; JSON.parse rounds anything beyond 2^53. parseLosslessJson turns integer
 * tokens of 16+ digits outside strings into strings (exact digits) and leaves everything else as JSON.parse would.
 */
import { describe, expect, it } from 'vitest';
import { parseLosslessJson, quoteLongIntegers } from '../../src/core/lossless-json.js';

describe('parseLosslessJson: integers beyond 2^53 keep every digit', () => {
  it.each<[string, string, unknown]>([
    ['2^53 + 1 at top level', '9007199254740993', '9007199254740993'],
    ['2^53 + 1 in an array', '[9007199254740993]', ['9007199254740993']],
    [
      'BIGINT min and max',
      '[-9223372036854775808,9223372036854775807]',
      ['-9223372036854775808', '9223372036854775807'],
    ],
    ['beyond BIGINT (decimal-like integer)', '[123456789012345678901234567890]', ['123456789012345678901234567890']],
    // The threshold is textual (16 digits), so a 16-digit safe integer is a string too: callers get a string
    // for every integer that might not fit, never a silently rounded number.
    ['16 digits, still safe', '[1234567890123456]', ['1234567890123456']],
    ['2^53 - 1', '[9007199254740991]', ['9007199254740991']],
    ['negative 16 digits', '[-1234567890123456]', ['-1234567890123456']],
    ['object value', '{"id":9007199254740993}', { id: '9007199254740993' }],
    ['next to other literals', '[true,9007199254740993,null,false]', [true, '9007199254740993', null, false]],
    [
      'nested arrays and objects',
      '[[[9007199254740993]],{"a":[1,9007199254740993,{"b":-9223372036854775808}]}]',
      [[['9007199254740993']], { a: [1, '9007199254740993', { b: '-9223372036854775808' }] }],
    ],
    [
      'whitespace of every kind around the numbers',
      '[ 9007199254740993 ,\n\t9223372036854775807\r\n, -9223372036854775808\t]',
      ['9007199254740993', '9223372036854775807', '-9223372036854775808'],
    ],
    ['whitespace before a closing brace', '{"a" :\n 9007199254740993 }', { a: '9007199254740993' }],
    [
      'after a key that is itself digits',
      '{"1234567890123456789":1234567890123456789}',
      { '1234567890123456789': '1234567890123456789' },
    ],
  ])('%s', (_label, text, expected) => {
    expect(parseLosslessJson(text)).toEqual(expected);
  });
});

describe('parseLosslessJson: everything else is untouched', () => {
  it.each<[string, string, unknown]>([
    [
      'short integers stay numbers',
      '[0,1,-2,42,999999999999999,-999999999999999]',
      [0, 1, -2, 42, 999999999999999, -999999999999999],
    ],
    ['Trino double with exponent', '[1.0E20]', [1e20]],
    ['long mantissa with a fraction', '[12345678901234567.5]', [12345678901234567.5]],
    ['negative long mantissa with a fraction', '[-12345678901234567.25]', [-12345678901234567.25]],
    ['long mantissa with an exponent', '[12345678901234567E2]', [12345678901234567e2]],
    ['long mantissa with a lower-case exponent', '[12345678901234567e-3]', [12345678901234567e-3]],
    ['long mantissa with a signed exponent', '[12345678901234567E+2]', [12345678901234567e2]],
    ['Trino double tiny', '[4.9E-324]', [5e-324]],
    ['digits inside a string', '["1234567890123456789"]', ['1234567890123456789']],
    ['digits after an escaped quote', '["a\\"1234567890123456789"]', ['a"1234567890123456789']],
    ['digits after an escaped backslash and quote', '["\\\\\\"1234567890123456789"]', ['\\"1234567890123456789']],
    ['digits after a unicode-escaped quote', '["\\u0022 1234567890123456789"]', ['" 1234567890123456789']],
    ['base64 with a long digit run', '["QUJD1234567890123456789=="]', ['QUJD1234567890123456789==']],
    ['timestamp text', '["2026-11-30 08:00:00.123456789"]', ['2026-11-30 08:00:00.123456789']],
  ])('%s', (_label, text, expected) => {
    expect(parseLosslessJson(text)).toEqual(expected);
  });

  it.each<[string, string, unknown]>([
    // A string ending in an escaped backslash closes at the next quote; the number after it is a real token.
    ['string ending in an escaped backslash', '["\\\\",1234567890123456789]', ['\\', '1234567890123456789']],
    ['string ending in an escaped quote', '["x\\"",1234567890123456789]', ['x"', '1234567890123456789']],
    ['empty string before a long integer', '["",1234567890123456789]', ['', '1234567890123456789']],
    ['string with a comma and bracket', '["],",1234567890123456789]', ['],', '1234567890123456789']],
  ])('strings end where JSON says: %s', (_label, text, expected) => {
    expect(parseLosslessJson(text)).toEqual(expected);
  });

  it.each([
    '{"id":"q1","columns":[{"name":"n","type":"integer"}],"data":[[1],[2]]}',
    '[1.5,-0.25,"x",null,true,{"a":[]}]',
    '"plain"',
    '[]',
  ])('text without long integers parses exactly as JSON.parse: %s', (text) => {
    expect(parseLosslessJson(text)).toEqual(JSON.parse(text));
  });

  it.each(['[1,', '[12345678901234567890,', '{"a":}', '', '[9007199254740993]x'])(
    'invalid JSON still throws: %j',
    (text) => {
      expect(() => parseLosslessJson(text)).toThrow(SyntaxError);
    },
  );
});

describe('quoteLongIntegers: the exact text rewrite', () => {
  it.each([
    ['[9007199254740993]', '["9007199254740993"]'],
    ['{"a": -9223372036854775808}', '{"a": "-9223372036854775808"}'],
    ['[1,9007199254740993,2]', '[1,"9007199254740993",2]'],
    ['[12345678901234567.5]', '[12345678901234567.5]'],
    ['["12345678901234567"]', '["12345678901234567"]'],
    ['[123456789012345]', '[123456789012345]'],
  ])('%s -> %s', (text, out) => {
    expect(quoteLongIntegers(text)).toBe(out);
  });
});
