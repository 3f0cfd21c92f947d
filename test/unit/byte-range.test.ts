/** Range and If-Range of a file (RFC 9110 14, 13.1.5): http/byte-range.ts, a table of exact expectations. */
import { describe, expect, it } from 'vitest';
import { ifRangeHolds, rangeOf } from '../../src/http/byte-range.js';

describe('rangeOf, a file of 100 bytes', () => {
  it.each([
    [undefined, null],
    ['bytes=0-0', { start: 0, end: 0 }],
    ['bytes=0-99', { start: 0, end: 99 }],
    ['bytes=10-', { start: 10, end: 99 }],
    ['bytes=90-200', { start: 90, end: 99 }],
    ['bytes=-10', { start: 90, end: 99 }],
    ['bytes=-500', { start: 0, end: 99 }],
    ['BYTES = 5 - 6', { start: 5, end: 6 }],
    ['bytes=100-', 'unsatisfiable'],
    ['bytes=100-200', 'unsatisfiable'],
    ['bytes=-0', 'unsatisfiable'],
    // Ignored (the whole file): several ranges, another unit, a malformed or inverted spec.
    ['bytes=0-1,5-6', null],
    ['items=0-1', null],
    ['bytes=-', null],
    ['bytes=abc', null],
    ['bytes=9-1', null],
  ] as const)('%j -> %j', (header, expected) => {
    expect(rangeOf(header, 100)).toEqual(expected);
  });

  it('an empty file satisfies no range', () => {
    expect(rangeOf('bytes=0-', 0)).toBe('unsatisfiable');
    expect(rangeOf('bytes=-1', 0)).toBe('unsatisfiable');
  });
});

describe('ifRangeHolds', () => {
  const etag = '"abc"';
  const date = 'Sun, 06 Dec 2026 08:57:53 GMT';
  it.each([
    [undefined, true],
    ['"abc"', true],
    ['"abd"', false],
    ['W/"abc"', false],
    [date, true],
    ['Sun, 06 Dec 2026 08:57:54 GMT', false],
  ] as const)('%j -> %j', (header, expected) => {
    expect(ifRangeHolds(header, etag, date)).toBe(expected);
  });
});
