import { describe, expect, it } from 'vitest';
import {
  formatTrinoType,
  knownBase,
  longArg,
  parseTrinoType,
  rowFields,
  typeArg,
  TrinoTypeSyntaxError,
  type TrinoType,
} from '../../src/core/trino-types.js';

const t = (base: string, ...args: TrinoType['args']): TrinoType => ({ base, args });
const ty = (type: TrinoType, name?: string) =>
  name === undefined ? { kind: 'type' as const, type } : { kind: 'type' as const, type, name };
const n = (value: number) => ({ kind: 'long' as const, value });

describe('parseTrinoType', () => {
  it.each<[string, TrinoType]>([
    ['varbinary', t('varbinary')],
    ['bigint', t('bigint')],
    ['BIGINT', t('bigint')],
    ['int', t('integer')],
    ['double precision', t('double')],
    ['json', t('json')],
    ['varchar', t('varchar')],
    ['varchar(10)', t('varchar', n(10))],
    ['char(3)', t('char', n(3))],
    ['decimal(12,2)', t('decimal', n(12), n(2))],
    ['decimal( 38 , 0 )', t('decimal', n(38), n(0))],
    ['timestamp(3)', t('timestamp', n(3))],
    ['timestamp(6) with time zone', t('timestamp with time zone', n(6))],
    ['timestamp with time zone', t('timestamp with time zone')],
    ['timestamp(3) without time zone', t('timestamp', n(3))],
    ['time(3) with time zone', t('time with time zone', n(3))],
    ['interval day to second', t('interval day to second')],
    ['array(bigint)', t('array', ty(t('bigint')))],
    ['map(varchar, array(double))', t('map', ty(t('varchar')), ty(t('array', ty(t('double')))))],
    [
      'array(row(key varchar, value varbinary))',
      t('array', ty(t('row', ty(t('varchar'), 'key'), ty(t('varbinary'), 'value')))),
    ],
    ['row("my field" varchar)', t('row', ty(t('varchar'), 'my field'))],
    ['row("say ""hi""" bigint, "a,b" json)', t('row', ty(t('bigint'), 'say "hi"'), ty(t('json'), 'a,b'))],
    ['row(bigint, varchar(3))', t('row', ty(t('bigint')), ty(t('varchar', n(3))))],
    ['row(timestamp with time zone)', t('row', ty(t('timestamp with time zone')))],
    ['row(timestamp(3) with time zone)', t('row', ty(t('timestamp with time zone', n(3))))],
    [
      'row(ts timestamp(3) with time zone, n int)',
      t('row', ty(t('timestamp with time zone', n(3)), 'ts'), ty(t('integer'), 'n')),
    ],
    ['row(Amount decimal(12,2))', t('row', ty(t('decimal', n(12), n(2)), 'Amount'))],
    [
      'row(a row(b array(map(varchar, bigint))))',
      t('row', ty(t('row', ty(t('array', ty(t('map', ty(t('varchar')), ty(t('bigint'))))), 'b')), 'a')),
    ],
    // Unknown types (plugins) are kept verbatim, never an error.
    ['HyperLogLog', t('HyperLogLog')],
    ['qdigest(bigint)', t('qdigest', ty(t('bigint')))],
    ['Geometry', t('Geometry')],
    ['array(SphericalGeography)', t('array', ty(t('SphericalGeography')))],
  ])('%s', (text, expected) => {
    expect(parseTrinoType(text)).toEqual(expected);
  });

  it.each([
    '',
    '   ',
    'array(',
    'array(bigint',
    'array()',
    'decimal(12,)',
    'decimal(,2)',
    'map(varchar bigint',
    'bigint)',
    'array(bigint) x(',
    'row("unterminated varchar)',
    'row("a")',
    '12',
    'array(bigint),',
  ])('rejects malformed %j', (text) => {
    expect(() => parseTrinoType(text)).toThrow(TrinoTypeSyntaxError);
  });
});

describe('type helpers', () => {
  it('reads parameters and fields', () => {
    const dec = parseTrinoType('decimal(12,2)');
    expect([longArg(dec, 0, 38), longArg(dec, 1, 0), longArg(parseTrinoType('decimal'), 1, 0)]).toEqual([12, 2, 0]);
    expect(typeArg(parseTrinoType('array(bigint)'), 0)).toEqual(t('bigint'));
    expect(() => typeArg(dec, 0)).toThrow(TypeError);
    expect(rowFields(parseTrinoType('row(a bigint, varchar)'))).toEqual([
      { name: 'a', type: t('bigint') },
      { name: null, type: t('varchar') },
    ]);
    expect([knownBase(dec), knownBase(parseTrinoType('HyperLogLog'))]).toEqual(['decimal', null]);
  });

  it.each([
    'array(row(key varchar, value varbinary))',
    'timestamp(3) with time zone',
    'row("my field" bigint, "say ""hi""" json)',
    'map(varchar, decimal(12,2))',
    'row(bigint, double)',
  ])('formats %s back to the same text', (text) => {
    expect(formatTrinoType(parseTrinoType(text))).toBe(text);
  });
});
