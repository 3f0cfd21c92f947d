/**
 * Who may read what, against the real Trino: every route x every kind of credential x
 * roles, with the status and code of each cell; topics invisible to a caller are 404 and absent from the list;
 * actions not granted are 403.
 */
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignJWT, exportJWK, exportSPKI, generateKeyPair, type CryptoKey, type JWK } from 'jose';
import { stringify } from 'yaml';
import { buildApp } from '../../src/server/app.js';
import { apiKeyHash } from '../../src/access/api-keys.js';
import { sql, testConfig } from '../helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'topicgate-access-'));
const ISSUER = 'https://idp.test/';
const AUDIENCE = 'topicgate';

const KEYS = {
  analyst: 'key-analyst-000000000000000000000',
  loader: 'key-loader-0000000000000000000000',
  nobody: 'key-nobody-0000000000000000000000',
  ops: 'key-ops-0000000000000000000000000',
};

interface Signer {
  kid: string;
  privateKey: CryptoKey;
  jwk: JWK;
  pem: string;
}
async function signer(kid: string): Promise<Signer> {
  const { publicKey, privateKey } = await generateKeyPair('RS256', { extractable: true });
  return {
    kid,
    privateKey,
    jwk: { ...(await exportJWK(publicKey)), kid, alg: 'RS256' },
    pem: await exportSPKI(publicKey),
  };
}

const jwks = { keys: [] as JWK[] };
let idp: Server;
let a: Signer;
let rotated: Signer;
let app: FastifyInstance;

async function jwt(
  s: { kid: string; privateKey: CryptoKey | Uint8Array },
  alg = 'RS256',
  claims: Record<string, unknown> = {},
) {
  const now = Math.floor(Date.now() / 1000);
  const body: Record<string, unknown> = {
    iss: ISSUER,
    aud: AUDIENCE,
    sub: 'alice',
    roles: ['analyst'],
    exp: now + 300,
    ...claims,
  };
  return new SignJWT(body).setProtectedHeader({ alg, kid: s.kid }).sign(s.privateKey);
}
const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');

beforeAll(async () => {
  [a, rotated] = await Promise.all([signer('key-a'), signer('key-b')]);
  jwks.keys = [a.jwk];
  idp = createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: jwks.keys })),
  );
  await new Promise<void>((resolve) => idp.listen(0, '127.0.0.1', resolve));
  const port = (idp.address() as AddressInfo).port;
  const file = join(dir, 'access.yaml');
  writeFileSync(
    file,
    stringify({
      topics: { orders: { expand: { country: { path: '$.customer.address.country', type: 'varchar' } } } },
      auth: {
        apiKeys: [
          { principal: 'analyst-1', sha256: apiKeyHash(KEYS.analyst), roles: ['analyst'] },
          { principal: 'loader-1', sha256: apiKeyHash(KEYS.loader), roles: ['loader'] },
          { principal: 'nobody-1', sha256: apiKeyHash(KEYS.nobody), roles: [] },
          { principal: 'ops-1', sha256: apiKeyHash(KEYS.ops), roles: ['ops'] },
        ],
        jwt: { jwksUrl: `http://127.0.0.1:${port}/jwks.json`, issuer: ISSUER, audience: AUDIENCE },
        public: ['health', 'docs'],
      },
      access: [
        { roles: ['analyst'], topics: ['orders*', 'clicks'], actions: ['read', 'explain', 'infer'] },
        { roles: ['loader'], topics: ['orders'], actions: ['cursors'] },
        { roles: ['ops'], topics: ['*'], actions: ['admin'] },
      ],
    }),
  );
  app = await buildApp(testConfig({ TOPICGATE_CONFIG: file }), { logger: false, jwt: { jwksCooldownMs: 0 } });
});
afterAll(async () => {
  await app?.close();
  await new Promise((resolve) => idp.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

const W = 'since=2026-11-01T00:00:00Z&until=2026-11-01T01:00:00Z';

/** Every route, as one request each (cursor routes on a cursor the caller may or may not own). */
const ROUTES: Record<string, InjectOptions> = {
  'GET /v1/topics': { url: '/v1/topics' },
  'GET /v1/topics/orders': { url: '/v1/topics/orders' },
  'GET events': { url: `/v1/topics/orders/events?${W}&limit=2` },
  'POST query': {
    method: 'POST',
    url: '/v1/topics/orders/query',
    payload: { since: '2026-11-01T00:00:00Z', until: '2026-11-01T01:00:00Z', limit: 2 },
  },
  'GET explain': { url: `/v1/topics/orders/events?${W}&explain=true` },
  'GET infer': { url: `/v1/topics/orders/schema/infer?${W}&sample=10` },
  'PUT cursor': { method: 'PUT', url: '/v1/cursors/m-new', payload: { topic: 'orders' } },
  'GET cursor': { url: '/v1/cursors/m-own' },
  'POST read': { method: 'POST', url: '/v1/cursors/m-own/read?limit=1' },
  'GET history': { url: '/v1/cursors/m-own/history' },
  'POST seek': { method: 'POST', url: '/v1/cursors/m-own/seek', payload: { to: 'earliest' } },
  'GET /healthz': { url: '/healthz' },
  'GET /readyz': { url: '/readyz' },
  'GET /docs/': { url: '/docs/' },
  'GET /openapi.json': { url: '/openapi.json' },
  'GET /metrics': { url: '/metrics' },
  'GET /docs/topics': { url: '/docs/topics' },
};
const PUBLIC = new Set(['GET /healthz', 'GET /readyz', 'GET /docs/', 'GET /openapi.json']);

/** Credentials that must be refused everywhere but on public routes. */
const BAD_CREDENTIALS: Record<string, () => Promise<Record<string, string>>> = {
  'no credentials': async () => ({}),
  'a bad API key': async () => ({ 'x-api-key': 'key-wrong-00000000000000000000000' }),
  'a bad bearer key': async () => ({ authorization: 'Bearer key-wrong-00000000000000000000000' }),
  'an expired JWT': async () => ({
    authorization: `Bearer ${await jwt(a, 'RS256', { exp: Math.floor(Date.now() / 1000) - 3600 })}`,
  }),
  'a JWT of another issuer': async () => ({
    authorization: `Bearer ${await jwt(a, 'RS256', { iss: 'https://evil.test/' })}`,
  }),
  'a JWT for another audience': async () => ({ authorization: `Bearer ${await jwt(a, 'RS256', { aud: 'other' })}` }),
  'alg none': async () => ({
    authorization: `Bearer ${b64({ alg: 'none', typ: 'JWT' })}.${b64({ iss: ISSUER, aud: AUDIENCE, sub: 'mallory', roles: ['ops'], exp: 4_000_000_000 })}.`,
  }),
  'HS256 signed with the RS public key': async () => ({
    authorization: `Bearer ${await jwt({ kid: a.kid, privateKey: new TextEncoder().encode(a.pem) }, 'HS256', { roles: ['ops'] })}`,
  }),
  'an unknown kid': async () => ({
    authorization: `Bearer ${await jwt({ kid: 'key-z', privateKey: rotated.privateKey }, 'RS256')}`,
  }),
};

async function call(route: string, headers: Record<string, string>) {
  const o = ROUTES[route]!;
  return app.inject({ ...o, headers: { ...(o.headers as Record<string, string>), ...headers } });
}

describe('bad credentials: 401 everywhere but public routes', () => {
  for (const [cred, headers] of Object.entries(BAD_CREDENTIALS)) {
    it.each(Object.keys(ROUTES))(`${cred} -> %s`, async (route) => {
      const r = await call(route, await headers());
      if (PUBLIC.has(route)) {
        expect(r.statusCode, r.body).toBeLessThan(400);
        return;
      }
      expect(r.statusCode, r.body).toBe(401);
      expect(r.json().error.code).toBe('TG_UNAUTHENTICATED');
      expect(r.headers['www-authenticate']).toBe('Bearer realm="topicgate"');
    });
  }
});

describe('valid credentials, by role', () => {
  beforeAll(async () => {
    const put = await app.inject({
      method: 'PUT',
      url: '/v1/cursors/m-own',
      payload: { topic: 'orders' },
      headers: { 'x-api-key': KEYS.loader },
    });
    expect(put.statusCode, put.body).toBe(201);
  });

  const T = (status: number, code?: string) => ({ status, code });
  // analyst: read/explain/infer on orders*, nothing on cursors; loader: cursors on orders only; nobody: nothing;
  // ops: admin everywhere (others' cursors included).
  const MATRIX: Record<string, Record<string, { status: number; code?: string }>> = {
    analyst: {
      'GET /v1/topics': T(200),
      'GET /v1/topics/orders': T(200),
      'GET events': T(200),
      'POST query': T(200),
      'GET explain': T(200),
      'GET infer': T(200),
      'PUT cursor': T(403, 'TG_FORBIDDEN'),
      'GET cursor': T(404, 'TG_CURSOR_NOT_FOUND'),
      'POST read': T(404, 'TG_CURSOR_NOT_FOUND'),
      'GET history': T(404, 'TG_CURSOR_NOT_FOUND'),
      'POST seek': T(404, 'TG_CURSOR_NOT_FOUND'),
      'GET /metrics': T(200),
      'GET /docs/topics': T(200),
    },
    loader: {
      'GET /v1/topics': T(200),
      'GET /v1/topics/orders': T(200),
      'GET events': T(403, 'TG_FORBIDDEN'),
      'POST query': T(403, 'TG_FORBIDDEN'),
      'GET explain': T(403, 'TG_FORBIDDEN'),
      'GET infer': T(403, 'TG_FORBIDDEN'),
      'PUT cursor': T(201),
      'GET cursor': T(200),
      'POST read': T(200),
      'GET history': T(200),
      'POST seek': T(200),
      'GET /metrics': T(200),
      'GET /docs/topics': T(200),
    },
    nobody: {
      'GET /v1/topics': T(200),
      'GET /v1/topics/orders': T(404, 'TG_TOPIC_NOT_FOUND'),
      'GET events': T(404, 'TG_TOPIC_NOT_FOUND'),
      'POST query': T(404, 'TG_TOPIC_NOT_FOUND'),
      'GET explain': T(404, 'TG_TOPIC_NOT_FOUND'),
      'GET infer': T(404, 'TG_TOPIC_NOT_FOUND'),
      'PUT cursor': T(404, 'TG_TOPIC_NOT_FOUND'),
      'GET cursor': T(404, 'TG_CURSOR_NOT_FOUND'),
      'POST read': T(404, 'TG_CURSOR_NOT_FOUND'),
      'GET history': T(404, 'TG_CURSOR_NOT_FOUND'),
      'POST seek': T(404, 'TG_CURSOR_NOT_FOUND'),
      'GET /metrics': T(200),
      'GET /docs/topics': T(200),
    },
    ops: {
      'GET /v1/topics': T(200),
      'GET /v1/topics/orders': T(200),
      'GET events': T(200),
      'POST query': T(200),
      'GET explain': T(200),
      'GET infer': T(200),
      // Its own cursor of the name loader-1 has (names are per principal).
      'PUT cursor': T(201),
      'GET cursor': T(200),
      'POST read': T(200),
      'GET history': T(200),
      'POST seek': T(200),
      'GET /metrics': T(200),
      'GET /docs/topics': T(200),
    },
  };

  for (const [role, row] of Object.entries(MATRIX)) {
    it.each(Object.entries(row))(`${role}: %s`, async (route, want) => {
      const r = await call(route, { 'x-api-key': KEYS[role as keyof typeof KEYS] });
      expect(r.statusCode, r.body).toBe(want.status);
      if (want.code) expect(r.json().error.code).toBe(want.code);
    });
  }

  it('a valid JWT is the analyst it says it is', async () => {
    const t = await jwt(a);
    expect((await call('GET events', { authorization: `Bearer ${t}` })).statusCode).toBe(200);
    expect((await call('GET cursor', { authorization: `Bearer ${t}` })).statusCode).toBe(404);
  });

  it('an unknown kid is refused, then accepted once the provider publishes it (no restart)', async () => {
    const t = await jwt(rotated);
    expect((await call('GET events', { authorization: `Bearer ${t}` })).statusCode).toBe(401);
    jwks.keys = [a.jwk, rotated.jwk];
    expect((await call('GET events', { authorization: `Bearer ${t}` })).statusCode).toBe(200);
  });

  it('/v1/topics lists only the topics the caller may see', async () => {
    const names = async (key: string) =>
      ((await app.inject({ url: '/v1/topics', headers: { 'x-api-key': key } })).json().topics as { name: string }[])
        .map((t) => t.name)
        .sort();
    expect(await names(KEYS.analyst)).toEqual(['clicks', 'orders', 'orders_expanded']);
    expect(await names(KEYS.loader)).toEqual(['orders']);
    expect(await names(KEYS.nobody)).toEqual([]);
    // ops holds `*`: every table of the served schema (the demo topics, and any other a shared Trino holds there).
    const all = (await sql('SHOW TABLES')).map((r) => String(r[0])).sort();
    expect(all).toEqual(expect.arrayContaining(['clicks', 'orders', 'orders_expanded', 'payments_avro', 's3_events']));
    expect(await names(KEYS.ops)).toEqual(all);
  });

  it('an invisible topic is a 404 exactly like one that does not exist', async () => {
    const hidden = await app.inject({ url: '/v1/topics/s3_events/events', headers: { 'x-api-key': KEYS.analyst } });
    const missing = await app.inject({ url: '/v1/topics/nope/events', headers: { 'x-api-key': KEYS.analyst } });
    expect([hidden.statusCode, hidden.json().error.code]).toEqual([404, 'TG_TOPIC_NOT_FOUND']);
    expect(hidden.json().error.message).toBe(missing.json().error.message.replace('nope', 's3_events'));
  });
});

describe('the OpenAPI document names the credentials', () => {
  it('bearer and API key schemes, required everywhere but the health probes', async () => {
    const doc = (await app.inject('/openapi.json')).json();
    expect(doc.components.securitySchemes).toEqual({
      bearer: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
      apiKey: expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-API-Key' }),
    });
    expect(doc.security).toEqual([{ bearer: [] }, { apiKey: [] }]);
    expect(doc.paths['/healthz'].get.security).toEqual([]);
    expect(doc.paths['/readyz'].get.security).toEqual([]);
    expect(doc.paths['/v1/topics/{topic}/events'].get.security).toBeUndefined();
    expect(Object.keys(doc.paths['/v1/topics/{topic}/events'].get.responses)).toEqual(
      expect.arrayContaining(['401', '403', '429']),
    );
  });
});
