/**
 * `Accept-Encoding` negotiation (RFC 9110 12.5.3, API.md "Compression on the wire"): q-values, `*`, `x-gzip`,
 * refusals; no coding of ours acceptable (even with `identity;q=0`) means an uncompressed response, never a 406.
 */
import { describe, expect, it } from 'vitest';
import { negotiateContentCoding } from '../../src/http/accept-encoding.js';

describe('negotiateContentCoding', () => {
  it.each<[string | undefined, string | null]>([
    [undefined, null],
    ['', null],
    ['   ', null],
    ['identity', null],
    ['deflate, compress', null],
    ['gzip', 'gzip'],
    ['GZIP', 'gzip'],
    ['x-gzip', 'gzip'],
    ['br', 'br'],
    ['zstd', 'zstd'],
    // Equal q-values: the server's order (zstd, br, gzip), whatever order the client lists them in.
    ['gzip, deflate, br', 'br'],
    ['gzip, deflate, br, zstd', 'zstd'],
    ['gzip, br, zstd', 'zstd'],
    // q-values decide first.
    ['zstd;q=0.5, gzip', 'gzip'],
    ['zstd;q=0.5, br;q=0.8, gzip;q=0.1', 'br'],
    ['gzip;q=1.0, br;q=0.999', 'gzip'],
    ['zstd ; q=0.2 , gzip ; q = 0.3', 'gzip'],
    ['br;q=1, gzip;q=1', 'br'],
    // q=0 refuses a coding.
    ['zstd;q=0, br;q=0, gzip', 'gzip'],
    ['gzip;q=0', null],
    ['gzip;q=0.000', null],
    // `*` stands for every coding not named.
    ['*', 'zstd'],
    ['*;q=0.5, gzip', 'gzip'],
    ['zstd;q=0, *', 'br'],
    ['zstd;q=0, br;q=0, *', 'gzip'],
    ['*;q=0', null],
    ['*;q=0, identity', null],
    ['gzip, *;q=0', 'gzip'],
    // No coding of ours acceptable and identity refused: still uncompressed (API.md has no 406 for it).
    ['identity;q=0', null],
    ['deflate, identity;q=0', null],
    ['identity;q=0, *;q=0', null],
    // A malformed weight is a refusal of that coding, never a guess.
    ['gzip;q=abc, br', 'br'],
    ['zstd;q=2, gzip', 'gzip'],
    ['zstd;q=-1', null],
    // Parameters other than q are ignored; the last mention of a coding wins.
    ['gzip;level=9', 'gzip'],
    ['gzip;q=0, gzip', 'gzip'],
    [',,gzip,,', 'gzip'],
  ])('%j -> %j', (header, expected) => {
    expect(negotiateContentCoding(header)).toBe(expected);
  });

  it('offers only what it is given', () => {
    expect(negotiateContentCoding('zstd, br, gzip', ['gzip'])).toBe('gzip');
    expect(negotiateContentCoding('zstd', ['br', 'gzip'])).toBeNull();
    expect(negotiateContentCoding('*', ['gzip', 'br'])).toBe('gzip');
  });
});
