/**
 * A settled window's ETag (http/read-cache.ts): the same for the same inputs, whatever their spelling or member
 * order, and another when any input that changes the bytes changes; `If-None-Match` matched as RFC 9110 says.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { builtJson, canonicalJson } from '../../src/entry/canonical-json.js';
import { Keyring } from '../../src/core/signed-token.js';
import type { MediaType } from '../../src/encode/encoder-registry.js';
import { plan } from '../../src/query/planner.js';
import type { PredicateNode } from '../../src/query/tree/nodes.js';
import type { ReadRequest } from '../../src/query/tree/read-request.js';
import { etagInputs, matchesIfNoneMatch, strongEtag, type CachedRead } from '../../src/http/read-cache.js';
import { table, topicOf } from '../cases/columns.js';
import { testPolicy } from '../cases/read-policy.js';

const orders = topicOf(
  [table('key', 'varbinary'), table('value', 'varbinary'), table('timestamp_broker', 'timestamp(3)')],
  'orders',
);
const NOW = Date.parse('2026-11-30T08:00:00.000Z');
const WINDOW: ReadRequest = { where: null, since: '2026-11-30T06:00:00Z', until: '2026-11-30T07:00:00Z' };
const KEY_EQ: PredicateNode = { kind: 'is', column: table('key', 'varbinary'), what: 'null' };

interface Inputs {
  read?: ReadRequest;
  rows?: CachedRead['rows'];
  topics?: Record<string, unknown>;
  secret?: string;
  media?: MediaType;
  acceptEncoding?: string;
  link?: string;
  /** `compression=`: Parquet's column codec. */
  compression?: CachedRead['compression'];
}

/** The ETag of a read of `orders` with these inputs (the defaults: one settled hour, anonymous, JSON). */
function etagOf(i: Inputs = {}): string {
  const read = i.read ?? WINDOW;
  const rows = i.rows ?? { filter: null, principal: 'anonymous' };
  const planned = plan({ kind: 'read', topic: orders, read, token: null }, testPolicy({ rows }), NOW);
  const app = {
    tg: { config: { topics: i.topics ?? {}, compression: true }, keyring: Keyring.fromSecrets(i.secret ?? 'secret-1') },
  } as unknown as FastifyInstance;
  const request = { headers: { 'accept-encoding': i.acceptEncoding } } as unknown as FastifyRequest;
  const link = i.link ?? '/v1/topics/orders/events?until=2026-11-30T07:00:00Z';
  const o: CachedRead = {
    topic: orders,
    req: read,
    rows,
    nextUrl: (t) => `${link}&cursor=${t}`,
    compression: i.compression,
  };
  return strongEtag(etagInputs(app, request, o, planned, i.media ?? 'application/json'));
}

describe('the ETag of a settled window', () => {
  it('is strong and the same for the same inputs (another app, another run)', () => {
    const tag = etagOf();
    expect(tag).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
    expect(etagOf()).toBe(tag);
    expect(etagOf({ topics: { orders: { settle: '1m', allowFullScan: true } } })).toBe(
      etagOf({ topics: { orders: { allowFullScan: true, settle: '1m' } } }),
    );
    // The coding negotiated, not the header's spelling or order: all of these are answered in br.
    const br = etagOf({ acceptEncoding: 'gzip, br' });
    expect(etagOf({ acceptEncoding: 'br, gzip' })).toBe(br);
    expect(etagOf({ acceptEncoding: 'BR;q=1.0,gzip;q=0.5' })).toBe(br);
    expect(etagOf({ acceptEncoding: 'br' })).toBe(br);
    // A coding we do not send is no coding: the same bytes as without the header.
    expect(etagOf({ acceptEncoding: 'deflate, compress' })).toBe(tag);
    // Settings of other topics do not touch this one's bytes.
    expect(etagOf({ topics: { clicks: { settle: '1m' } } })).toBe(tag);
  });

  it.each<[string, Inputs]>([
    ['another window', { read: { ...WINDOW, until: '2026-11-30T07:00:00.001Z' } }],
    ['another filter', { read: { ...WINDOW, where: KEY_EQ } }],
    ['another limit', { read: { ...WINDOW, limit: 7 } }],
    ['another select', { read: { ...WINDOW, select: ['key'] } }],
    ['another order', { read: { ...WINDOW, order: [{ field: 'timestamp_broker', dir: 'desc' }] } }],
    ['another principal (page tokens are bound to it)', { rows: { filter: null, principal: 'alice' } }],
    ['a row filter', { rows: { filter: KEY_EQ, principal: 'anonymous' } }],
    ["the topic's settings", { topics: { orders: { settle: '1m' } } }],
    ['another media type', { media: 'text/csv' }],
    ['a content coding', { acceptEncoding: 'gzip' }],
    ['another key signing the next page token', { secret: 'secret-2' }],
    ['another next-page link', { link: '/v1/topics/orders/events?until=2026-11-30T07:00:00Z&limit=100' }],
  ])('changes with %s', (_name, inputs) => {
    expect(etagOf(inputs)).not.toBe(etagOf());
  });

  it('changes exactly when the coding changes the bytes', () => {
    expect(etagOf({ acceptEncoding: 'gzip' })).not.toBe(etagOf({ acceptEncoding: 'br' }));
    expect(etagOf({ acceptEncoding: 'zstd' })).not.toBe(etagOf({ acceptEncoding: 'br' }));
    // Parquet compresses its columns, not the wire: Accept-Encoding does not touch its bytes; its codec does.
    const parquet = (i: Inputs) => etagOf({ media: 'application/vnd.apache.parquet', ...i });
    expect(parquet({ acceptEncoding: 'gzip' })).toBe(parquet({}));
    expect(parquet({ compression: 'zstd' })).not.toBe(parquet({ compression: 'snappy' }));
    expect(parquet({ compression: 'none' })).not.toBe(parquet({ compression: 'snappy' }));
  });

  it('changes with the encoder version and any other input in the list', () => {
    const inputs = [['encoder', 1] as const, ['format', 'application/json'] as const];
    expect(strongEtag(inputs)).not.toBe(strongEtag([['encoder', 2], inputs[1]!]));
    expect(strongEtag(inputs)).not.toBe(strongEtag([...inputs, ['encoding', 'zstd']]));
  });
});

describe('canonicalJson', () => {
  it('ignores member order and writes what JSON cannot', () => {
    expect(canonicalJson({ b: 1, a: [2, { d: 1, c: 2 }] })).toBe(canonicalJson({ a: [2, { c: 2, d: 1 }], b: 1 }));
    expect(canonicalJson({ n: 10n ** 20n })).toBe('{"n":{"$bigint":"100000000000000000000"}}');
    expect(canonicalJson({ l: Infinity })).toBe('{"l":{"$number":"Infinity"}}');
    expect(canonicalJson(Uint8Array.of(0, 255))).toBe('{"$bytes":"00ff"}');
    expect(
      canonicalJson(
        new Map([
          ['b', 1],
          ['a', 2],
        ]),
      ),
    ).toBe(
      canonicalJson(
        new Map([
          ['a', 2],
          ['b', 1],
        ]),
      ),
    );
    expect(canonicalJson({ a: undefined, b: 1 })).toBe('{"b":1}');
  });

  it('builtJson keeps the member order it was given and writes the same tagged values', () => {
    expect(builtJson({ b: 1, a: 2 })).toBe('{"b":1,"a":2}');
    expect(
      builtJson({
        n: 5n,
        l: -Infinity,
        m: new Map([
          ['b', 1],
          ['a', 2],
        ]),
      }),
    ).toBe(
      '{"n":{"$bigint":"5"},"l":{"$number":"-Infinity"},"m":' +
        canonicalJson(
          new Map([
            ['a', 2],
            ['b', 1],
          ]),
        ) +
        '}',
    );
  });
});

describe('matchesIfNoneMatch', () => {
  const tag = '"abc"';
  it.each<[string | undefined, boolean]>([
    ['"abc"', true],
    ['"x", "abc"', true],
    ['W/"abc"', true],
    ['*', true],
    ['"abcd"', false],
    ['abc', false],
    ['', false],
    [undefined, false],
  ])('If-None-Match: %s -> %s', (header, expected) => {
    expect(matchesIfNoneMatch(header, tag)).toBe(expected);
  });
});
