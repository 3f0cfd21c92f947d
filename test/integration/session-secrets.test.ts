/**
 * Read sessions as an attacker probes them (API.md "Read sessions", "Access"): a stream's token shows nothing of
 * what it carries and never reaches the request log; every answer of a stream is `no-store`, so no cache serves it
 * past its expiry or a revoked grant; a session made with a JWT dies with the JWT, presigned or not; a grant taken
 * away in the configuration in force refuses the old URL.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { apiKeyHash } from '../../src/access/api-keys.js';
import { Keyring } from '../../src/core/signed-token.js';
import { buildApp } from '../../src/server/app.js';
import { StreamTokens } from '../../src/sessions/stream-token.js';
import { testConfig } from '../helpers.js';
import { createSession, ndjsonLines, readStream } from '../session-reads.js';

const dir = mkdtempSync(join(tmpdir(), 'topicgate-session-secrets-'));
const JWT_SECRET = 'session-secrets-jwt-secret-of-32-bytes-or-more';
const CURSOR_SECRET = 'session-secrets-cursor-secret-0123456789abcdef';
const KEY = 'key-secrets-00000000000000000000000';
const WINDOW = { since: '2026-11-01T00:00:00Z', until: '2026-11-04T00:00:00Z' };
const TENANT_KEYS = ['order-1000002', 'order-1000007'];

function configFile(name: string, grantTenant: boolean): string {
  const file = join(dir, name);
  writeFileSync(
    file,
    stringify({
      auth: {
        apiKeys: [{ principal: 'reader-1', sha256: apiKeyHash(KEY), roles: ['analyst'] }],
        jwt: { secretFile: join(dir, 'jwt-secret'), issuer: 'https://idp.test/', audience: 'topicgate' },
      },
      access: [{ roles: grantTenant ? ['analyst', 'tenant'] : ['analyst'], topics: ['orders'], actions: ['read'] }],
      // The API key's analyst reads every row; a tenant only its own orders.
      rowPolicies: { default: 'allow', orders: [{ roles: ['tenant'], filter: 'key=in.({claims.order_keys})' }] },
    }),
  );
  return file;
}

const logs: string[] = [];
let app: FastifyInstance;
beforeAll(async () => {
  writeFileSync(join(dir, 'jwt-secret'), JWT_SECRET);
  const stream = new Writable({
    write(chunk, _enc, done) {
      logs.push(String(chunk));
      done();
    },
  });
  const config = testConfig({ TOPICGATE_CONFIG: configFile('a.yaml', true), TOPICGATE_CURSOR_SECRET: CURSOR_SECRET });
  app = await buildApp(config, { logger: { level: 'info', stream } });
});
afterAll(async () => {
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

const key = { 'x-api-key': KEY };
/** A tenant's JWT, `expSeconds` from now (negative: already past, but inside the verifier's clock tolerance). */
const tenantJwt = (expSeconds: number) =>
  new SignJWT({ sub: 'tenant-1', roles: ['tenant', 'payroll-admin'], order_keys: TENANT_KEYS, org: 'acme-corp' })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuer('https://idp.test/')
    .setAudience('topicgate')
    .setExpirationTime(Math.floor(Date.now() / 1000) + expSeconds)
    .sign(new TextEncoder().encode(JWT_SECRET));
const tokenOf = (url: string) => new URL(url, 'http://x').searchParams.get('token')!;
const code = (res: { statusCode: number; json(): { error: { code: string } } }) => [
  res.statusCode,
  res.json().error.code,
];

describe('what a stream URL shows, and what the log keeps', () => {
  it("a presigned stream's token shows neither the roles nor the claims it carries", async () => {
    const jwt = await tenantJwt(3600);
    const s = await createSession(
      app,
      'orders',
      { ...WINDOW, select: ['key'], streams: 2, presign: true },
      { authorization: `Bearer ${jwt}` },
    );
    for (const { url } of s.streams) {
      const [, , body] = tokenOf(url).split('.');
      const bytes = Buffer.from(body!, 'base64url');
      const { inflateRawSync } = await import('node:zlib');
      const shown = [url, bytes.toString('latin1')];
      for (const at of [0, 12]) {
        try {
          shown.push(inflateRawSync(bytes.subarray(at)).toString('utf8'));
        } catch {
          // not deflated text from here: nothing more to read
        }
      }
      for (const secret of ['tenant', 'order-1000002', 'order_keys', 'tenant-1'])
        expect(shown.join('\n')).not.toContain(secret);
    }
    // Only what the read needs travels: the role the topic's grant and policy name, the claim the policy reads.
    const opened = new StreamTokens(Keyring.fromSecrets(CURSOR_SECRET)).open(tokenOf(s.streams[0]!.url));
    expect([opened.r, opened.c]).toEqual([['tenant'], { order_keys: TENANT_KEYS }]);
  });

  it('the request log holds no token and no credential: stream tokens, page cursors, API keys, bearer tokens', async () => {
    logs.length = 0;
    const jwt = await tenantJwt(3600);
    const s = await createSession(app, 'orders', { ...WINDOW, select: ['key'], streams: 1, presign: true }, key);
    const streamToken = tokenOf(s.streams[0]!.url);
    await readStream(app, s.streams[0]!.url, 'ndjson');
    const page = await app.inject({
      url: `/v1/topics/orders/events?since=${WINDOW.since}&until=${WINDOW.until}&limit=2&format=csv`,
      headers: key,
    });
    const next = /^<([^>]+)>; rel="next"$/.exec(String(page.headers.link))![1]!;
    const cursor = new URL(next, 'http://x').searchParams.get('cursor')!;
    expect((await app.inject({ url: next, headers: key })).statusCode).toBe(200);
    expect((await app.inject({ url: '/v1/topics', headers: { authorization: `Bearer ${jwt}` } })).statusCode).toBe(200);
    // An altered token is logged no more than a good one.
    await app.inject({ url: `${s.streams[0]!.url}x&format=ndjson` });
    const text = logs.join('');
    expect(text).toContain('incoming request');
    expect(text).toContain('/sessions/');
    for (const secret of [streamToken, cursor, KEY, jwt]) {
      expect(text).not.toContain(secret);
      // Nor a part of one (a token's body, a JWT's payload), in case a line cut it or encoded its dots.
      for (const part of secret.split('.').filter((p) => p.length >= 24)) expect(text).not.toContain(part.slice(0, 24));
    }
  });
});

describe('caching a stream', () => {
  it('every answer of a stream is no-store: its rows in each format, and its refusals', async () => {
    const s = await createSession(app, 'orders', { ...WINDOW, select: ['key'], streams: 1, presign: true }, key);
    const url = s.streams[0]!.url;
    for (const format of ['json', 'ndjson', 'csv', 'arrow']) {
      const res = await app.inject({ url: `${url}&format=${format}` });
      expect(res.statusCode, format).toBe(200);
      expect(res.headers['cache-control'], format).toMatch(/\bno-store\b/);
      expect(res.headers['cache-control'], format).not.toMatch(/max-age|immutable/);
      expect(res.headers.etag, format).toBeUndefined();
    }
    const tokens = new StreamTokens(Keyring.fromSecrets(CURSOR_SECRET));
    const expired = tokens.seal({ ...tokens.open(tokenOf(url)), x: Date.now() - 1 });
    const refusals = [
      await app.inject({ url: `${url.replace(tokenOf(url), expired)}&format=ndjson` }),
      await app.inject({ url: `${url}x` }),
    ];
    expect(refusals.map(code)).toEqual([
      [410, 'TG_SESSION_EXPIRED'],
      [400, 'TG_BAD_SESSION'],
    ]);
    for (const res of refusals) expect(res.headers['cache-control']).toMatch(/\bno-store\b/);
  });

  it('a revalidation gets the rows again, never a 304 on a tag seen before', async () => {
    const s = await createSession(app, 'orders', { ...WINDOW, select: ['key'], streams: 1, presign: true }, key);
    const res = await app.inject({ url: `${s.streams[0]!.url}&format=ndjson`, headers: { 'if-none-match': '*' } });
    expect(res.statusCode).toBe(200);
  });
});

describe('a session made with a JWT', () => {
  it('expires no later than the JWT', async () => {
    const jwt = await tenantJwt(120);
    const exp = JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString()).exp as number;
    const s = await createSession(
      app,
      'orders',
      { ...WINDOW, select: ['key'], presign: true },
      {
        authorization: `Bearer ${jwt}`,
      },
    );
    expect(Date.parse(s.expiresAt)).toBeLessThanOrEqual(exp * 1000);
  });

  it('is refused once the JWT has expired, presigned or with the same (expired) credentials', async () => {
    // Past its exp but inside the verifier's clock tolerance: the session is made, its streams are never read.
    const jwt = await tenantJwt(-5);
    const auth = { authorization: `Bearer ${jwt}` };
    const presigned = await createSession(app, 'orders', { ...WINDOW, select: ['key'], presign: true }, auth);
    const bound = await createSession(app, 'orders', { ...WINDOW, select: ['key'] }, auth);
    for (const [s, headers] of [
      [presigned, {}],
      [bound, auth],
    ] as const) {
      const res = await app.inject({ url: `${s.streams[0]!.url}&format=ndjson`, headers });
      expect([401, 403, 410]).toContain(res.statusCode);
      expect(res.statusCode).not.toBe(200);
      expect(res.body).not.toContain('order-');
    }
    const res = await app.inject({ url: `${presigned.streams[0]!.url}&format=ndjson` });
    expect(code(res)).toEqual([401, 'TG_UNAUTHENTICATED']);
  });

  it("reads its tenant's rows while the JWT holds, and a 403 from a gateway whose config took the grant away", async () => {
    const jwt = await tenantJwt(3600);
    const s = await createSession(
      app,
      'orders',
      { ...WINDOW, select: ['key'], presign: true },
      {
        authorization: `Bearer ${jwt}`,
      },
    );
    const lines = ndjsonLines(await readStream(app, s.streams[0]!.url, 'ndjson'));
    expect(new Set(lines)).toEqual(new Set(TENANT_KEYS.map((k) => `{"key":"${k}"}`)));
    const config = testConfig({
      TOPICGATE_CONFIG: configFile('b.yaml', false),
      TOPICGATE_CURSOR_SECRET: CURSOR_SECRET,
    });
    const revoked = await buildApp(config, { logger: false });
    try {
      const res = await revoked.inject({ url: `${s.streams[0]!.url}&format=ndjson` });
      expect(code(res)).toEqual([403, 'TG_FORBIDDEN']);
      expect(res.headers['cache-control']).toMatch(/\bno-store\b/);
    } finally {
      await revoked.close();
    }
  });
});
