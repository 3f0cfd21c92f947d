/**
 * A spooled segment parsed a batch at a time (src/trino/segment-decoder.ts): the batches' rows, concatenated, are
 * the rows JSON.parse reads from the whole segment, whatever the strings hold (brackets, commas, escaped quotes,
 * backslashes, multi-byte UTF-8) and wherever the batch boundaries fall; what is not one JSON array of rows is
 * refused, as before.
 */
import { describe, expect, it } from 'vitest';
import { memberRows } from '../../src/trino/json-rows.js';
import { decodeSegment } from '../../src/trino/segment-decoder.js';
import { TrinoUnavailableError } from '../../src/trino/trino-errors.js';

const decode = (text: string, batchRows: number, lossless = false) => [
  ...decodeSegment('json', Buffer.from(text), { segmentSize: Buffer.byteLength(text) }, lossless, batchRows),
];

const TRICKY: unknown[][] = [
  ['a', 1, null, true],
  ['],[', '\\', '\\"', '"],["'],
  [
    [
      ['k', 'v'],
      ['k2', 'v,2'],
    ],
    { a: [1, { b: ']' }] },
    -1.5e10,
  ],
  ['naïve ☃ 𝄞', '{"x":[1,2]}', ''],
  [],
  [['\\\\'], '\\\\"]'],
];

describe('segments parsed in batches', () => {
  it('gives the rows of the whole segment, in order, for every batch size', () => {
    const text = JSON.stringify(TRICKY);
    for (const size of [1, 2, 3, 5, 6, 7, 8192]) {
      const batches = decode(text, size);
      expect(batches.flat(), `batches of ${size}`).toEqual(TRICKY);
      expect(batches.length).toBe(Math.ceil(TRICKY.length / size));
      for (const b of batches.slice(0, -1)) expect(b).toHaveLength(size);
    }
  });

  it('reads random rows the way JSON.parse does', () => {
    let seed = 7;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const pieces = ['[', ']', '{', '}', ',', '"', '\\', 'é', 'x', ':', '\n'];
    const str = () =>
      Array.from({ length: Math.floor(rnd() * 8) }, () => pieces[Math.floor(rnd() * pieces.length)]).join('');
    const rows = Array.from({ length: 500 }, () => [
      str(),
      [str(), [str()]],
      { [str()]: str() },
      Math.floor(rnd() * 1e6),
    ]);
    const text = JSON.stringify(rows, null, rnd() > 0.5 ? 1 : 0);
    for (const size of [1, 13, 100, 499, 500, 501]) expect(decode(text, size).flat()).toEqual(rows);
  });

  it('accepts white space around the array and an empty segment', () => {
    expect(decode(' \n[ [1] ,\t[2] ]\n', 1)).toEqual([[[1]], [[2]]]);
    expect(decode('[]', 10)).toEqual([]);
    expect(decode(' [ ] ', 10)).toEqual([]);
  });

  it('keeps every digit of a long integer when asked to', () => {
    expect(decode('[[9007199254740993],[1]]', 1, true).flat()).toEqual([['9007199254740993'], [1]]);
  });

  it('refuses what is not one JSON array', () => {
    for (const text of ['{"a":1}', '[[1],', '[[1],]', '[["open]', '[[1]] x', '[[1]][[2]]', '', '[[1}', '[[1],[2']) {
      expect(() => decode(text, 1), text).toThrow(TrinoUnavailableError);
    }
  });

  it('takes the rows out of a direct page, leaving the rest of it to parse', () => {
    const page = { id: 'q', columns: [{ name: 'data', type: 'varchar' }], data: TRICKY, stats: { data: [1] } };
    const { rest, rows } = memberRows(Buffer.from(JSON.stringify(page)), 'data', 4);
    expect(JSON.parse(rest)).toEqual({ ...page, data: null });
    expect([...rows!.batches(false, () => new Error('bad'))].flat()).toEqual(TRICKY);
    expect(rows!.ranges).toHaveLength(2);
  });

  it('leaves a page without rows whole', () => {
    for (const page of [
      { id: 'q', nextUri: 'u' },
      { id: 'q', data: { encoding: 'json', segments: [] } },
      { data: 'x' },
    ]) {
      const { rest, rows } = memberRows(Buffer.from(JSON.stringify(page)), 'data', 4);
      expect(rows).toBeUndefined();
      expect(JSON.parse(rest)).toEqual(page);
    }
    // A nested "data" is not the page's.
    const nested = { stats: { data: [[1]] }, id: 'q' };
    expect(memberRows(Buffer.from(JSON.stringify(nested)), 'data', 4).rows).toBeUndefined();
  });

  it('keeps the exact text of each batch, without the separating commas', () => {
    const text = Buffer.from('{"data":[[1],["a,b"],[3]]}');
    const { rows } = memberRows(text, 'data', 2);
    expect(rows!.ranges.map(([s, e]) => text.toString('utf8', s, e))).toEqual(['[1],["a,b"]', '[3]']);
  });
});
