/**
 * Times in requests: ISO-8601 with a zone, dates, relative times; durations; the Trino timestamp text the
 * gateway writes and reads. Every accepted form with the exact instant it means, every refused form with its code.
 */
import { describe, expect, it } from 'vitest';
import { epochOfTrinoTimestamp, trinoTimestampText } from '../../src/core/trino-timestamp.js';
import { parseDuration, parseInstant } from '../../src/query/request/time.js';
import { apiError } from '../cases/api-error.js';

const NOW = Date.parse('2026-11-30T08:00:00.000Z');
const at = (iso: string) => Date.parse(iso);

describe('parseInstant', () => {
  // [text, epoch ms, digits beyond ms]
  const OK: [string, number, string][] = [
    ['2026-11-30T08:00:00Z', at('2026-11-30T08:00:00.000Z'), ''],
    ['2026-11-30T08:00:00.123Z', at('2026-11-30T08:00:00.123Z'), ''],
    ['2026-11-30T08:00:00.1Z', at('2026-11-30T08:00:00.100Z'), ''],
    ['2026-11-30T08:00:00.1234567Z', at('2026-11-30T08:00:00.123Z'), '4567'],
    ['2026-11-30T08:00:00.123456789Z', at('2026-11-30T08:00:00.123Z'), '456789'],
    ['2026-11-30T08:00:00.123000Z', at('2026-11-30T08:00:00.123Z'), ''],
    ['2026-11-30T08:00:00.000100Z', at('2026-11-30T08:00:00.000Z'), '1'],
    ['2026-11-30T08:00:00,5Z', at('2026-11-30T08:00:00.500Z'), ''],
    ['2026-11-30T08:00Z', at('2026-11-30T08:00:00.000Z'), ''],
    ['2026-11-30 08:00:00Z', at('2026-11-30T08:00:00.000Z'), ''],
    ['2026-11-30t08:00:00z', at('2026-11-30T08:00:00.000Z'), ''],
    ['2026-11-30T10:00:00+02:00', at('2026-11-30T08:00:00.000Z'), ''],
    ['2026-11-30T10:00:00+0200', at('2026-11-30T08:00:00.000Z'), ''],
    ['2026-11-30T03:00:00-05:00', at('2026-11-30T08:00:00.000Z'), ''],
    ['2026-11-30T13:30:00.250+05:30', at('2026-11-30T08:00:00.250Z'), ''],
    ['2026-12-01T01:00:00+17:00', at('2026-11-30T08:00:00.000Z'), ''],
    // A '+' not escaped in a query string arrives as a space.
    ['2026-11-30T10:00:00 02:00', at('2026-11-30T08:00:00.000Z'), ''],
    ['2026-11-30T10:00:00 0200', at('2026-11-30T08:00:00.000Z'), ''],
    ['2026-11-30', at('2026-11-30T00:00:00.000Z'), ''],
    // Without a zone: UTC, the zone of broker and producer timestamps.
    ['2026-11-30T08:00:00', at('2026-11-30T08:00:00.000Z'), ''],
    ['2026-11-30T08:00', at('2026-11-30T08:00:00.000Z'), ''],
    ['2026-11-30 08:00:00.123', at('2026-11-30T08:00:00.123Z'), ''],
    ['2026-11-30T08:00:00.1234567', at('2026-11-30T08:00:00.123Z'), '4567'],
    ['2024-02-29', at('2024-02-29T00:00:00.000Z'), ''],
    ['  2026-11-30T08:00:00Z  ', at('2026-11-30T08:00:00.000Z'), ''],
    ['1970-01-01T00:00:00Z', 0, ''],
    ['now', NOW, ''],
    [' now ', NOW, ''],
    ['-15m', NOW - 15 * 60_000, ''],
    ['-2h', NOW - 2 * 3_600_000, ''],
    ['-7d', NOW - 7 * 86_400_000, ''],
    ['-30s', NOW - 30_000, ''],
    ['-500ms', NOW - 500, ''],
    ['-0s', NOW, ''],
  ];
  it.each(OK)('%j', (text, epochMs, subMs) => {
    expect(parseInstant(text, 'since', NOW)).toEqual({ epochMs, subMs });
  });

  const NOT_A_TIME =
    'is not a time: use ISO-8601 (2026-11-30T08:00:00Z; UTC when no zone is given) or relative (now, -15m, -2h, -7d)';
  // [text, message after `since=<text> `]
  const BAD: [string, string][] = [
    ['2026-02-30', 'is not a valid date-time'],
    ['2026-02-29T00:00:00Z', 'is not a valid date-time'],
    ['2026-04-31T12:00:00Z', 'is not a valid date-time'],
    ['2026-11-30T24:00:00Z', 'is not a valid date-time'],
    ['2026-13-01', 'is not a valid date-time'],
    ['2026-11-30T25:00:00Z', 'is not a valid date-time'],
    ['2026-11-30T08:60:00Z', 'is not a valid date-time'],
    ['2026-11-30T08:00:00+24:00', 'is not a valid date-time'],
    ['', NOT_A_TIME],
    ['yesterday', NOT_A_TIME],
    ['NOW', NOT_A_TIME],
    ['15m', NOT_A_TIME],
    ['+15m', NOT_A_TIME],
    ['-1w', NOT_A_TIME],
    ['-1.5h', NOT_A_TIME],
    ['-15 m', NOT_A_TIME],
    ['1796025600000', NOT_A_TIME],
    ['2026-11-30T08:00:00.1234567890Z', NOT_A_TIME],
    ['2026-11-30T8:00:00Z', NOT_A_TIME],
    ['26-11-30', NOT_A_TIME],
    ['2026-11-30T08:00:00Z[UTC]', NOT_A_TIME],
    ['2026-11-30T08:00:00+2', NOT_A_TIME],
    ['-999999999d', 'reaches before the year 1'],
  ];
  it.each(BAD)('%j -> TG_BAD_TIME', (text, why) => {
    const e = apiError(() => parseInstant(text, 'since', NOW));
    expect([e.code, e.status, e.message, e.details]).toEqual([
      'TG_BAD_TIME',
      400,
      `since=${JSON.stringify(text)} ${why}`,
      { parameter: 'since' },
    ]);
  });

  it('the parameter name is the one given', () => {
    expect(apiError(() => parseInstant('x', 'until', NOW)).message).toBe(`until="x" ${NOT_A_TIME}`);
  });

  // Regression (time.ts parseInstant): the calendar check (Date.parse rolls 2026-11-31 over to Dec 1) runs only for `Z`,
  // so a day that does not exist is accepted when an offset is given. Fix: check the written Y-M-D against the
  // UTC date of the local wall-clock time (e.g. Date.UTC(y, mo - 1, d) round trip) before applying the offset,
  // whatever the zone.
  it.each(['2026-11-31T10:00:00+02:00', '2026-02-29T12:00:00-01:00', '2026-11-30T24:00:00+01:00'])(
    '%j with an offset -> TG_BAD_TIME',
    (text) => {
      expect(apiError(() => parseInstant(text, 'since', NOW)).code).toBe('TG_BAD_TIME');
    },
  );
});

describe('parseDuration', () => {
  const OK: [string, number][] = [
    ['250ms', 250],
    ['30s', 30_000],
    ['5m', 300_000],
    ['1h', 3_600_000],
    ['1d', 86_400_000],
    ['0s', 0],
    [' 10s ', 10_000],
    ['366d', 366 * 86_400_000],
    ['999999999ms', 999_999_999],
  ];
  it.each(OK)('%j -> %d ms', (text, ms) => {
    expect(parseDuration(text, 'settle')).toBe(ms);
  });

  it.each(['', '-5m', '1w', '1.5h', 'ms', '5', '5 m', '1h30m', '1000000000ms', '5M'])('%j -> TG_BAD_VALUE', (text) => {
    const e = apiError(() => parseDuration(text, 'settle'));
    expect([e.code, e.message]).toEqual([
      'TG_BAD_VALUE',
      `settle=${JSON.stringify(text)} is not a duration like 30s, 5m, 1h, 1d`,
    ]);
  });
});

describe('Trino timestamp text', () => {
  const CASES: [number, string][] = [
    [0, '1970-01-01 00:00:00.000'],
    [at('2026-11-30T08:00:00.007Z'), '2026-11-30 08:00:00.007'],
    [at('2024-02-29T23:59:59.999Z'), '2024-02-29 23:59:59.999'],
  ];
  it.each(CASES)('%d <-> %j', (ms, text) => {
    expect(trinoTimestampText(ms)).toBe(text);
    expect(epochOfTrinoTimestamp(text)).toBe(ms);
  });

  it('reading ignores digits beyond the millisecond', () => {
    expect(epochOfTrinoTimestamp('2026-11-30 08:00:00.123456')).toBe(at('2026-11-30T08:00:00.123Z'));
  });
});
