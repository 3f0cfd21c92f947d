/**
 * Cursor ownership against the real Trino: a cursor belongs to the principal that created it;
 * others get 404 TG_CURSOR_NOT_FOUND on every cursor route (admin excepted); a batch token is bound to the
 * cursor's incarnation, so a token of a deleted-and-recreated cursor, or of another cursor, is refused.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { buildApp } from '../../src/server/app.js';
import { apiKeyHash } from '../../src/access/api-keys.js';
import { testConfig } from '../helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'topicgate-owner-'));
const K = {
  one: 'key-loader-one-0000000000000000000',
  two: 'key-loader-two-0000000000000000000',
  ops: 'key-ops-000000000000000000000000000',
};

let app: FastifyInstance;
beforeAll(async () => {
  const file = join(dir, 'owners.yaml');
  writeFileSync(
    file,
    stringify({
      auth: {
        apiKeys: [
          { principal: 'loader-one', sha256: apiKeyHash(K.one), roles: ['loader'] },
          { principal: 'loader-two', sha256: apiKeyHash(K.two), roles: ['loader'] },
          { principal: 'ops', sha256: apiKeyHash(K.ops), roles: ['ops'] },
        ],
      },
      access: [
        { roles: ['loader'], topics: ['orders', 'clicks'], actions: ['cursors'] },
        { roles: ['ops'], topics: ['*'], actions: ['admin'] },
      ],
    }),
  );
  app = await buildApp(testConfig({ TOPICGATE_CONFIG: file }), { logger: false });
});
afterAll(async () => {
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

const as = (key: string) => ({ 'x-api-key': key });
const put = (key: string, name: string, payload: object) =>
  app.inject({ method: 'PUT', url: `/v1/cursors/${name}`, headers: as(key), payload });
const read = (key: string, name: string) =>
  app.inject({ method: 'POST', url: `/v1/cursors/${name}/read?limit=5`, headers: as(key) });
const commit = (key: string, name: string, batch: string) =>
  app.inject({ method: 'POST', url: `/v1/cursors/${name}/commit`, headers: as(key), payload: { batch } });

describe('a cursor belongs to its creator', () => {
  beforeAll(async () => {
    expect((await put(K.one, 'own-1', { topic: 'orders' })).statusCode).toBe(201);
  });

  it.each([
    ['GET', '/v1/cursors/own-1', undefined],
    ['GET', '/v1/cursors/own-1/history', undefined],
    ['POST', '/v1/cursors/own-1/read', undefined],
    ['POST', '/v1/cursors/own-1/commit', { batch: 'x' }],
    ['POST', '/v1/cursors/own-1/seek', { to: 'latest' }],
    ['DELETE', '/v1/cursors/own-1', undefined],
  ] as const)('another principal: %s %s -> 404 as if it did not exist', async (method, url, payload) => {
    const r = await app.inject({ method, url, headers: as(K.two), ...(payload ? { payload } : {}) });
    const missing = await app.inject({
      method,
      url: url.replace('own-1', 'no-such'),
      headers: as(K.two),
      ...(payload ? { payload } : {}),
    });
    // A garbage batch token is refused before the cursor is looked up, the same for a missing cursor.
    const want = url.endsWith('/commit') ? [400, 'TG_BAD_BATCH'] : [404, 'TG_CURSOR_NOT_FOUND'];
    expect([r.statusCode, r.json().error.code], r.body).toEqual(want);
    expect([missing.statusCode, missing.json().error.code]).toEqual(want);
    expect(r.json().error.message).toBe(missing.json().error.message.replace('no-such', 'own-1'));
    // Still there for its owner, unmoved.
    const mine = await app.inject({ url: '/v1/cursors/own-1', headers: as(K.one) });
    expect([mine.statusCode, mine.json().position.timestamp]).toEqual([200, null]);
  });

  it('admin reads, seeks and sees any cursor', async () => {
    expect((await app.inject({ url: '/v1/cursors/own-1', headers: as(K.ops) })).statusCode).toBe(200);
    expect((await read(K.ops, 'own-1')).statusCode).toBe(200);
  });
});

describe('names are per principal: nothing across principals tells a name is taken', () => {
  it("another principal's PUT of a taken name makes a cursor of its own, answered as any new one", async () => {
    expect((await put(K.one, 'twin-1', { topic: 'orders' })).statusCode).toBe(201);
    const theirs = await put(K.two, 'twin-1', { topic: 'clicks' });
    const fresh = await put(K.two, 'fresh-1', { topic: 'clicks' });
    expect([theirs.statusCode, theirs.json().name, theirs.json().definition]).toEqual([
      201,
      'twin-1',
      { topic: 'clicks', start: 'earliest', settle: '30s' },
    ]);
    expect(Object.keys(theirs.json()).sort()).toEqual(Object.keys(fresh.json()).sort());
    expect(theirs.body).not.toContain('orders');
    // Each principal has its own under the name; the first is untouched.
    const mine = await app.inject({ url: '/v1/cursors/twin-1', headers: as(K.one) });
    const other = await app.inject({ url: '/v1/cursors/twin-1', headers: as(K.two) });
    expect([mine.json().definition.topic, other.json().definition.topic]).toEqual(['orders', 'clicks']);
    expect((await app.inject({ method: 'DELETE', url: '/v1/cursors/twin-1', headers: as(K.two) })).statusCode).toBe(
      204,
    );
    expect((await app.inject({ url: '/v1/cursors/twin-1', headers: as(K.one) })).statusCode).toBe(200);
  });

  it('an admin naming a cursor that several principals have is told whose they are (409)', async () => {
    expect((await put(K.one, 'twin-2', { topic: 'orders' })).statusCode).toBe(201);
    expect((await put(K.two, 'twin-2', { topic: 'clicks' })).statusCode).toBe(201);
    const r = await app.inject({ url: '/v1/cursors/twin-2', headers: as(K.ops) });
    expect([r.statusCode, r.json().error.code, r.json().error.details.owners]).toEqual([
      409,
      'TG_CURSOR_CONFLICT',
      ['key:loader-one', 'key:loader-two'],
    ]);
  });
});

describe('batch tokens are bound to the cursor incarnation', () => {
  it('a token of a deleted-and-recreated cursor is refused', async () => {
    expect((await put(K.one, 'inc-1', { topic: 'orders' })).statusCode).toBe(201);
    const token = (await read(K.one, 'inc-1')).headers['topicgate-batch'] as string;
    expect(token).toBeTruthy();
    expect((await app.inject({ method: 'DELETE', url: '/v1/cursors/inc-1', headers: as(K.one) })).statusCode).toBe(204);
    expect((await put(K.one, 'inc-1', { topic: 'orders' })).statusCode).toBe(201);
    const r = await commit(K.one, 'inc-1', token);
    expect([r.statusCode, r.json().error.code]).toEqual([400, 'TG_BAD_BATCH']);
    expect((await app.inject({ url: '/v1/cursors/inc-1', headers: as(K.one) })).json().position.timestamp).toBeNull();
  });

  it('a token of another cursor is refused', async () => {
    expect((await put(K.one, 'tok-a', { topic: 'orders' })).statusCode).toBe(201);
    expect((await put(K.one, 'tok-b', { topic: 'orders' })).statusCode).toBe(201);
    const token = (await read(K.one, 'tok-a')).headers['topicgate-batch'] as string;
    const r = await commit(K.one, 'tok-b', token);
    expect([r.statusCode, r.json().error.code]).toEqual([400, 'TG_BAD_BATCH']);
  });

  it("another principal's token on its own same-named cursor elsewhere cannot move it", async () => {
    expect((await put(K.two, 'two-1', { topic: 'clicks' })).statusCode).toBe(201);
    const token = (await read(K.two, 'two-1')).headers['topicgate-batch'] as string;
    const r = await commit(K.one, 'two-1', token);
    expect([r.statusCode, r.json().error.code], r.body).toEqual([404, 'TG_CURSOR_NOT_FOUND']);
  });
});
