/** One Vary header (http/vary.ts): every name once, whatever added it first and in what case. */
import type { FastifyReply } from 'fastify';
import { describe, expect, it } from 'vitest';
import { addVary } from '../../src/http/vary.js';

/** A reply that keeps its headers as fastify's does (one value per name, names in any case). */
function reply(vary?: string): FastifyReply & { vary(): unknown } {
  const headers = new Map<string, unknown>(vary === undefined ? [] : [['vary', vary]]);
  const r = {
    getHeader: (name: string) => headers.get(name.toLowerCase()),
    header(name: string, value: unknown) {
      headers.set(name.toLowerCase(), value);
      return r;
    },
    vary: () => headers.get('vary'),
  };
  return r as unknown as FastifyReply & { vary(): unknown };
}

describe('addVary', () => {
  it.each<[string | undefined, string[][], string | undefined]>([
    [undefined, [['Accept-Encoding']], 'Accept-Encoding'],
    [
      undefined,
      [['Accept-Encoding'], ['Accept', 'Authorization', 'X-API-Key']],
      'Accept-Encoding, Accept, Authorization, X-API-Key',
    ],
    [
      undefined,
      [
        ['Accept', 'Authorization'],
        ['accept', 'Accept-Encoding'],
      ],
      'Accept, Authorization, Accept-Encoding',
    ],
    ['Origin', [['Accept-Encoding'], ['Accept-Encoding', 'Accept']], 'Origin, Accept-Encoding, Accept'],
    ['origin,  ACCEPT ', [['Accept', 'Origin']], 'origin, ACCEPT'],
    ['*', [['Accept-Encoding']], '*'],
    [undefined, [[]], undefined],
  ])('Vary %j, adding %j: %j', (before, adds, after) => {
    const r = reply(before);
    for (const names of adds) addVary(r, names);
    expect(r.vary()).toBe(after);
  });
});
