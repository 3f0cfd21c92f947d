/**
 * Caller-dependent answers are private to their caller (server/plugins/cache-scope.ts): `Cache-Control: private`
 * (with `no-store` unless a validator lets a private cache revalidate) and `Vary: Authorization, X-API-Key`, on
 * every route that does not say it is the same for everyone, errors and 404s of no route included.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import errorsPlugin from '../../src/server/plugins/error-plugin.js';
import cacheScopePlugin, { privateCacheControl } from '../../src/server/plugins/cache-scope.js';
import { ApiError } from '../../src/core/errors.js';
import { addVary } from '../../src/http/vary.js';

const apps: FastifyInstance[] = [];
afterAll(async () => {
  await Promise.all(apps.map((a) => a.close()));
});

describe('the Cache-Control of a caller-dependent answer', () => {
  it.each<[string | undefined, boolean, string]>([
    [undefined, false, 'private, no-store'],
    ['no-store', false, 'private, no-store'],
    ['no-store', true, 'private, no-store'],
    [undefined, true, 'private'],
    ['private, max-age=600, immutable', true, 'private, max-age=600, immutable'],
    ['public, max-age=60', false, 'private, max-age=60, no-store'],
    ['public, max-age=60, s-maxage=600', true, 'private, max-age=60'],
    ['no-cache', true, 'private, no-cache'],
    ['Public, no-store', false, 'private, no-store'],
  ])('%j (validator: %s) -> %j', (current, validator, expected) => {
    expect(privateCacheControl(current, validator)).toBe(expected);
  });
});

async function app(): Promise<FastifyInstance> {
  const a = Fastify({ logger: false });
  apps.push(a);
  await a.register(errorsPlugin);
  await a.register(cacheScopePlugin);
  a.get('/v1/topics', async () => ({ topics: ['orders'] }));
  a.get('/v1/settled', async (_request, reply) => {
    addVary(reply, ['Accept-Encoding', 'Accept']);
    return reply.header('ETag', '"t"').header('Cache-Control', 'private, max-age=600, immutable').send('rows');
  });
  a.get('/v1/forbidden', async () => {
    throw new ApiError('TG_FORBIDDEN', 'no');
  });
  a.get('/v1/careless', async (_request, reply) => reply.header('Cache-Control', 'public, max-age=3600').send('x'));
  a.get('/asset', { config: { sameForEveryone: true } }, async (_request, reply) =>
    reply.header('ETag', '"a"').header('Cache-Control', 'no-cache').send('js'),
  );
  a.get('/missing-asset', { config: { sameForEveryone: true } }, async () => {
    throw new ApiError('TG_NOT_FOUND', 'no asset');
  });
  await a.ready();
  return a;
}

const scoped = (r: { headers: Record<string, unknown> }) => [r.headers['cache-control'], r.headers.vary];

describe('every answer but the same-for-everyone ones', () => {
  it('is private and varies on the credentials: data, errors, 404 of no route, a route that said public', async () => {
    const a = await app();
    const key = { 'x-api-key': 'k' };
    const vary = 'Authorization, X-API-Key';
    expect(scoped(await a.inject({ url: '/v1/topics', headers: key }))).toEqual(['private, no-store', vary]);
    expect(scoped(await a.inject({ url: '/v1/topics' }))).toEqual(['private, no-store', vary]);
    expect(scoped(await a.inject({ url: '/v1/forbidden', headers: key }))).toEqual(['private, no-store', vary]);
    expect(scoped(await a.inject({ url: '/nowhere' }))).toEqual(['private, no-store', vary]);
    expect(scoped(await a.inject({ url: '/v1/careless' }))).toEqual(['private, max-age=3600, no-store', vary]);
  });

  it('a settled window keeps its freshness and validator; the Vary is merged, each name once', async () => {
    const r = await (await app()).inject({ url: '/v1/settled', headers: { authorization: 'Bearer k' } });
    expect(scoped(r)).toEqual(['private, max-age=600, immutable', 'Accept-Encoding, Accept, Authorization, X-API-Key']);
    expect(r.headers.etag).toBe('"t"');
  });

  it('a same-for-everyone answer keeps its caching unless credentials came with it or it is an error', async () => {
    const a = await app();
    expect(scoped(await a.inject({ url: '/asset' }))).toEqual(['no-cache', undefined]);
    expect(scoped(await a.inject({ url: '/asset', headers: { 'x-api-key': 'k' } }))).toEqual([
      'private, no-cache',
      'Authorization, X-API-Key',
    ]);
    expect(scoped(await a.inject({ url: '/missing-asset' }))).toEqual([
      'private, no-store',
      'Authorization, X-API-Key',
    ]);
  });
});
