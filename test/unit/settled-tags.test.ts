/**
 * The remembered tags of settled windows (http/settled-tags.ts): a key per request that names everything the
 * tag depends on that a request can change, and a store bounded in entries and key characters, least recently used
 * first out.
 */
import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import type { PredicateNode } from '../../src/query/tree/nodes.js';
import type { CachedRead, ReadCache } from '../../src/http/read-cache.js';
import { SettledTags } from '../../src/http/settled-tags.js';
import { table, topicOf } from '../cases/columns.js';

const columns = [table('key', 'varbinary'), table('value', 'varbinary'), table('timestamp_broker', 'timestamp(3)')];
const orders = topicOf(columns, 'orders');
const URL = '/v1/topics/orders/events?since=2026-11-01T00:00:00Z&until=2026-11-01T06:00:00Z&limit=100';
const KEY_NULL: PredicateNode = { kind: 'is', column: table('key', 'varbinary'), what: 'null' };
const tag = (etag: string): ReadCache => ({ etag, cacheControl: 'private', vary: [] });

interface Inputs {
  url?: string;
  method?: string;
  o?: Partial<CachedRead>;
  media?: Parameters<SettledTags['keyOf']>[2];
  coding?: Parameters<SettledTags['keyOf']>[3];
}

function keyOf(tags: SettledTags, i: Inputs = {}): string | null {
  const request = { url: i.url ?? URL, method: i.method ?? 'GET' } as FastifyRequest;
  const o: CachedRead = {
    topic: orders,
    req: { where: null },
    rows: { filter: null, principal: 'anonymous' },
    ...i.o,
  };
  return tags.keyOf(request, o, i.media ?? 'application/json', i.coding ?? null);
}

describe('the key of a request', () => {
  const tags = new SettledTags();
  const base = keyOf(tags);

  it('is the same for the same request, a HEAD included, and none for a POST or an explain', () => {
    expect(base).not.toBeNull();
    expect(keyOf(tags)).toBe(base);
    expect(keyOf(tags, { method: 'HEAD' })).toBe(base);
    // The same listing's topic with decoded types added by the route: the same source node.
    expect(keyOf(tags, { o: { topic: { ...orders } } })).toBe(base);
    expect(keyOf(tags, { method: 'POST' })).toBeNull();
    expect(keyOf(tags, { o: { explain: true } })).toBeNull();
  });

  it.each<[string, Inputs]>([
    ['another URL', { url: `${URL}&select=key` }],
    ['another media type', { media: 'text/csv' }],
    ['a content coding', { coding: 'gzip' }],
    ['another content coding', { coding: 'br' }],
    ['another principal', { o: { rows: { filter: null, principal: 'alice' } } }],
    ['a row filter', { o: { rows: { filter: KEY_NULL, principal: 'anonymous' } } }],
    ['decoded types', { o: { topic: { ...orders, decoded: new Map([['value', 'row(n bigint)']]) } } }],
    ['reader versions', { o: { readerVersions: { value: 2 } } }],
    ['another listing of the topic', { o: { topic: topicOf(columns, 'orders') } }],
  ])('changes with %s', (_name, inputs) => {
    expect(keyOf(tags, inputs)).not.toBe(base);
  });
});

describe('the store', () => {
  it('gives back what was set, and forgets the least recently used past its entries', () => {
    const tags = new SettledTags(2);
    tags.set('a', tag('"a"'));
    tags.set('b', tag('"b"'));
    expect(tags.get('a')?.etag).toBe('"a"'); // now the most recently used
    tags.set('c', tag('"c"'));
    expect([tags.get('a')?.etag, tags.get('b'), tags.get('c')?.etag]).toEqual(['"a"', undefined, '"c"']);
    expect(tags.size).toBe(2);
  });

  it('is bounded in the characters of its keys, and keeps no key longer than the bound', () => {
    const tags = new SettledTags(100, 10);
    tags.set('aaaa', tag('"a"'));
    tags.set('bbbb', tag('"b"'));
    tags.set('cccc', tag('"c"'));
    expect([tags.get('aaaa'), tags.get('bbbb')?.etag, tags.get('cccc')?.etag]).toEqual([undefined, '"b"', '"c"']);
    tags.set('x'.repeat(11), tag('"x"'));
    expect(tags.get('x'.repeat(11))).toBeUndefined();
    // Setting a key again replaces it without counting it twice.
    tags.set('cccc', tag('"c2"'));
    expect([tags.get('bbbb')?.etag, tags.get('cccc')?.etag, tags.size]).toEqual(['"b"', '"c2"', 2]);
  });
});
