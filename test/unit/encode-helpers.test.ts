import { describe, expect, it } from 'vitest';
import { negotiateMediaType } from '../../src/encode/encoder-registry.js';
import { instantToUnits } from '../../src/encode/arrow/timestamp-units.js';
import { isJson } from '../../src/encode/text/validating-json-scanner.js';
import { minifyJson } from '../../src/encode/text/json-minify.js';
import { timestampTzToIso } from '../../src/encode/text/timestamp-text.js';
import { parseTimestamp, TimestampTzParser } from '../../src/core/trino-timestamp.js';

describe('isJson agrees with JSON.parse', () => {
  it.each([
    ['{}', true],
    ['[]', true],
    [' {"a":[1,-0.5e+3,true,false,null,"\\u00e9\\n\\/"]} ', true],
    ['"x"', true],
    ['0', true],
    ['{"a":1,}', false],
    ['[1,]', false],
    ['{"a"}', false],
    ['{a:1}', false],
    ['01', false],
    ['1.', false],
    ['.5', false],
    ['-', false],
    ['"\\x"', false],
    ['"a\tb"', false],
    ['"\\u12"', false],
    ['[1] [2]', false],
    ['', false],
    ['tru', false],
    ['{"a":1}}', false],
    ['[[[]]', false],
    ['NaN', false],
    ['{"a" : 1 , "b" : [ ] }', true],
    ['"unterminated', false],
    ['{"é🚀":"мир"}', true],
    ['{"a":é}', false], // non-ASCII bytes outside a string
    ['[1]\u0000', false],
    ['"a\u0001"', false],
  ])('%j -> %s', (text, valid) => {
    expect(isJson(Buffer.from(text))).toBe(valid);
  });

  it('on 200k random token soups', () => {
    const atoms = [
      '{',
      '}',
      '[',
      ']',
      ',',
      ':',
      '"a"',
      '"\\u00e9"',
      '"\\q"',
      '"\\n"',
      '1',
      '-0',
      '01',
      '1.5e+3',
      '-',
      'true',
      'nul',
      'null',
      ' ',
      '\n',
      '"',
      '{"k":1}',
      'x',
    ];
    let seed = 42;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    let valid = 0;
    for (let t = 0; t < 200_000; t++) {
      let s = '';
      for (let k = rand(7) + 1; k > 0; k--) s += atoms[rand(atoms.length)];
      let expected = true;
      try {
        JSON.parse(s);
      } catch {
        expected = false;
      }
      if (expected) valid++;
      if (isJson(Buffer.from(s)) !== expected) expect.fail(`isJson(${JSON.stringify(s)}) should be ${expected}`);
    }
    expect(valid).toBeGreaterThan(1000); // the soup does contain valid JSON
  });
});

describe('minifyJson', () => {
  it('drops whitespace between tokens only', () => {
    expect(minifyJson('{\n  "a b": "x \\" y",\r\n\t"c": [1, 2]\n}')).toBe('{"a b":"x \\" y","c":[1,2]}');
  });
});

describe('timestamps', () => {
  it.each([
    ['2026-11-01 00:00:00.000', 1793491200, '.000'],
    ['0099-12-31 23:59:59', -59011459201, ''], // years below 100 are not 19xx
    ['1969-12-31 23:59:59.5', -1, '.5'],
  ])('parses %s', (text, seconds, fraction) => {
    expect(parseTimestamp(text)).toEqual({ seconds, fraction });
  });

  it('scales instants to Arrow units exactly, truncating past nanoseconds', () => {
    expect(instantToUnits({ seconds: 1793491200, fraction: '.123456789012' }, 9)).toBe(1793491200123456789n);
    expect(instantToUnits({ seconds: -1, fraction: '.5' }, 3)).toBe(-500);
    expect(instantToUnits({ seconds: 1793491200, fraction: '' }, 6)).toBe(1793491200000000);
  });

  it('converts zone names through DST with the offset in force', () => {
    const tz = new TimestampTzParser();
    expect(timestampTzToIso('2026-03-29 03:30:00.000 Europe/Berlin', tz)).toBe('2026-03-29T01:30:00.000Z'); // after the switch
    expect(timestampTzToIso('2026-03-29 01:30:00.000 Europe/Berlin', tz)).toBe('2026-03-29T00:30:00.000Z'); // before it
  });
});

describe('negotiateMediaType', () => {
  it.each<[string | undefined, string | undefined, string | null]>([
    ['csv', 'application/json', 'text/csv'],
    ['arrow', undefined, 'application/vnd.apache.arrow.stream'],
    ['parquet', 'application/json', 'application/vnd.apache.parquet'],
    [undefined, 'application/vnd.apache.parquet', 'application/vnd.apache.parquet'],
    [undefined, 'text/csv;q=0.5, application/vnd.apache.parquet;q=0.9', 'application/vnd.apache.parquet'],
    ['xml', undefined, null],
    [undefined, undefined, 'application/json'],
    [undefined, '*/*', 'application/json'],
    [undefined, 'application/x-ndjson', 'application/x-ndjson'],
    [undefined, 'text/html, text/csv;q=0.5', 'text/csv'],
    [undefined, 'text/csv;q=0.2, application/vnd.apache.arrow.stream', 'application/vnd.apache.arrow.stream'],
    [undefined, 'application/xml', null],
    [undefined, 'text/csv;q=0', null],
  ])('format=%s Accept=%s -> %s', (format, accept, expected) => {
    expect(negotiateMediaType(format, accept)).toBe(expected);
  });
});
