/**
 * Principals namespaced by how they authenticated, against the real Trino: an API key's principal
 * `loader-one` and a bearer token whose `sub` is `loader-one` are two principals. The token cannot reach the key's
 * cursors, page tokens or read sessions; cursors stored before ids existed (owned by a bare name) stay the key's,
 * never the token's, in both stores (SQLite and PostgreSQL).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { pgUp } from '../../scripts/local-postgres.js';
import { apiKeyHash } from '../../src/access/api-keys.js';
import type { CursorStore } from '../../src/cursors/cursor-store.js';
import { openStore } from '../../src/cursors/open-store.js';
import { buildApp } from '../../src/server/app.js';
import { testConfig } from '../helpers.js';
import { createSession } from '../session-reads.js';

const RUN = randomBytes(4).toString('hex');
const dir = mkdtempSync(join(tmpdir(), 'topicgate-principals-'));
const SECRET = 'principals-test-secret-of-32-bytes-or-more';
const KEY = 'key-loader-one-000000000000000000';
const WINDOW = 'since=2026-11-01T00:00:00Z&until=2026-11-02T00:00:00Z';

const config = join(dir, 'c.yaml');
writeFileSync(join(dir, 'secret'), SECRET);
writeFileSync(
  config,
  stringify({
    auth: {
      apiKeys: [{ principal: 'loader-one', sha256: apiKeyHash(KEY), roles: ['loader'] }],
      jwt: { secretFile: join(dir, 'secret'), issuer: 'https://idp.test/', audience: 'topicgate' },
    },
    access: [{ roles: ['loader'], topics: ['orders', 'clicks'], actions: ['read', 'cursors'] }],
  }),
);

const key = { 'x-api-key': KEY };
let token: Record<string, string>;
const app = (stateUrl: string) =>
  buildApp(testConfig({ TOPICGATE_CONFIG: config, TOPICGATE_STATE_URL: stateUrl }), { logger: false });

beforeAll(async () => {
  // A token whose principal claim repeats the key's principal: another principal all the same.
  const jwt = await new SignJWT({ sub: 'loader-one', roles: ['loader'], iss: 'https://idp.test/', aud: 'topicgate' })
    .setProtectedHeader({ alg: 'HS256' })
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(SECRET));
  token = { authorization: `Bearer ${jwt}` };
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a token whose claim names an API key is not that key', () => {
  let a: FastifyInstance;
  beforeAll(async () => {
    a = await app('sqlite::memory:');
  });
  afterAll(() => a.close());

  it("cannot read the key's cursor, and making one of that name makes its own", async () => {
    const put = (headers: Record<string, string>, topic: string) =>
      a.inject({ method: 'PUT', url: '/v1/cursors/twin', headers, payload: { topic } });
    expect((await put(key, 'orders')).statusCode).toBe(201);
    const seen = await a.inject({ url: '/v1/cursors/twin', headers: token });
    expect([seen.statusCode, seen.json().error.code]).toEqual([404, 'TG_CURSOR_NOT_FOUND']);
    expect((await put(token, 'clicks')).statusCode).toBe(201);
    const topics = await Promise.all(
      [key, token].map(async (h) => (await a.inject({ url: '/v1/cursors/twin', headers: h })).json().definition.topic),
    );
    expect(topics).toEqual(['orders', 'clicks']);
  });

  it("cannot continue the key's pages", async () => {
    const first = await a.inject({ url: `/v1/topics/orders/events?${WINDOW}&limit=2`, headers: key });
    expect(first.statusCode).toBe(200);
    const next = first.json().next as string;
    expect((await a.inject({ url: next, headers: key })).statusCode).toBe(200);
    const theirs = await a.inject({ url: next, headers: token });
    expect([theirs.statusCode, theirs.json().error.code]).toEqual([400, 'TG_BAD_CURSOR']);
  });

  it("cannot read the key's read-session streams", async () => {
    const body = { since: '2026-11-01T00:00:00Z', until: '2026-11-01T06:00:00Z', select: ['key'], streams: 1 };
    const s = await createSession(a, 'orders', body, key);
    const r = await a.inject({ url: s.streams[0]!.url, headers: token });
    expect([r.statusCode, r.json().error.code]).toEqual([403, 'TG_FORBIDDEN']);
    expect((await a.inject({ url: s.streams[0]!.url, headers: key })).statusCode).toBe(200);
  });
});

/** A cursor as the stores kept it before ids: under its bare name, owned by a bare principal name. */
async function legacyCursor(store: CursorStore, name: string): Promise<void> {
  await store.create({
    name,
    topic: 'orders',
    definition: JSON.stringify({ topic: 'orders', start: 'earliest', settle: '30s' }),
    position: { ts: null, skip: 0 },
    generation: 0,
    pending: null,
    owner: 'loader-one',
    incarnation: '',
  });
}

describe.each([
  ['SQLite', async () => `sqlite:${join(dir, 'legacy.db')}`],
  ['PostgreSQL', async () => (await pgUp()).url],
] as const)('a cursor stored before principal ids (%s)', (_label, stateUrl) => {
  const name = `legacy-${RUN}`;
  let url = '';
  let a: FastifyInstance;
  beforeAll(async () => {
    url = await stateUrl();
    const store = await openStore(url);
    await legacyCursor(store, name);
    await store.close();
    a = await app(url);
  });
  afterAll(async () => {
    await a?.inject({ method: 'DELETE', url: `/v1/cursors/${name}`, headers: key });
    await a?.inject({ method: 'DELETE', url: `/v1/cursors/${name}`, headers: token });
    await a?.close();
  });

  it('is the API key principal of its owner name, never a token whose claim equals it', async () => {
    const mine = await a.inject({ url: `/v1/cursors/${name}`, headers: key });
    expect([mine.statusCode, mine.json().name, mine.json().definition.topic]).toEqual([200, name, 'orders']);
    const theirs = await a.inject({ url: `/v1/cursors/${name}`, headers: token });
    expect([theirs.statusCode, theirs.json().error.code]).toEqual([404, 'TG_CURSOR_NOT_FOUND']);
    // Its owner's PUT of the same definition is the usual no-op; the token's makes a cursor of its own.
    const again = await a.inject({
      method: 'PUT',
      url: `/v1/cursors/${name}`,
      headers: key,
      payload: { topic: 'orders' },
    });
    expect(again.statusCode).toBe(200);
    const own = await a.inject({
      method: 'PUT',
      url: `/v1/cursors/${name}`,
      headers: token,
      payload: { topic: 'clicks' },
    });
    expect(own.statusCode).toBe(201);
    // The old cursor reads and commits for its owner as before.
    const batch = await a.inject({ method: 'POST', url: `/v1/cursors/${name}/read?limit=3`, headers: key });
    expect(batch.statusCode).toBe(200);
    const commit = await a.inject({
      method: 'POST',
      url: `/v1/cursors/${name}/commit`,
      headers: key,
      payload: { batch: batch.headers['topicgate-batch'] },
    });
    expect([commit.statusCode, commit.json().committed]).toEqual([200, true]);
    const after = await a.inject({ url: `/v1/cursors/${name}`, headers: token });
    expect([after.json().definition.topic, after.json().position.timestamp]).toEqual(['clicks', null]);
  });
});
