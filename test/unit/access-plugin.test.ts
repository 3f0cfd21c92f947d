/**
 * The access plugin on a tiny app (no Trino): authentication on every route but the public groups, the 401 shape,
 * rate limits per principal and per address, security headers that keep Swagger UI working, CORS off unless
 * configured, the Host allowlist, overload answers, and the connection limits (slow body, a client that stops
 * reading) on a real socket.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { SignJWT } from 'jose';
import type { Config } from '../../src/config/config.js';
import { loadConfig } from '../../src/server/load-config.js';
import errorsPlugin from '../../src/server/plugins/error-plugin.js';
import accessPlugin, { type AccessPluginOptions } from '../../src/server/plugins/access-plugin.js';
import openapiPlugin from '../../src/server/plugins/openapi.js';
import { apiKeyHash } from '../../src/access/api-keys.js';
import { serverTimeouts } from '../../src/access/http-limits.js';

const dir = mkdtempSync(join(tmpdir(), 'topicgate-access-plugin-'));
const apps: FastifyInstance[] = [];
afterAll(async () => {
  for (const app of apps) await app.close();
  rmSync(dir, { recursive: true, force: true });
});

const KEY = 'key-analyst-0123456789abcdef0123';
const LOADER_KEY = 'key-loader-0123456789abcdef01234';
const SECRET = 'jwt-secret-for-tests-32-bytes-long!';
writeFileSync(join(dir, 'secret'), SECRET);

function config(yaml: string | undefined, env: Record<string, string> = {}): Config {
  const path = join(dir, `c${Math.random().toString(36).slice(2)}.yaml`);
  if (yaml !== undefined) writeFileSync(path, yaml);
  return loadConfig({ ...(yaml !== undefined ? { TOPICGATE_CONFIG: path } : {}), ...env });
}

const AUTH = `auth:
  apiKeys:
    - { principal: analyst-1, sha256: "${apiKeyHash(KEY)}", roles: [analyst] }
    - { principal: loader-1, sha256: "${apiKeyHash(LOADER_KEY)}", roles: [loader] }
  jwt: { secretFile: "${join(dir, 'secret')}", issuer: "https://idp.test/", audience: topicgate }
`;

/** A tiny app: the error plugin, the access plugin, and a route of each group (and a protected one, /docs/topics). */
async function tinyApp(c: Config, extra: Partial<AccessPluginOptions> = {}, withDocs = false) {
  const app = Fastify({ logger: false, ...serverTimeouts(c) });
  apps.push(app);
  await app.register(errorsPlugin);
  await app.register(accessPlugin, { config: c, ...extra });
  if (withDocs) await app.register(openapiPlugin);
  // Each route says its group in its own config, as the real routes do (access/route-groups.ts).
  app.get('/healthz', { config: { group: 'health' } }, async () => ({ status: 'ok' }));
  app.get('/metrics', { config: { group: 'metrics' } }, async () => 'metrics');
  app.get('/v1/whoami', async (request) => ({ name: request.principal.name, roles: request.principal.roles }));
  app.get('/docs/topics', async () => 'topic names');
  await app.ready();
  return app;
}

const jwt = (claims: Record<string, unknown> = {}) =>
  new SignJWT({
    sub: 'alice',
    roles: ['analyst'],
    iss: 'https://idp.test/',
    aud: 'topicgate',
    exp: Math.floor(Date.now() / 1000) + 300,
    ...claims,
  })
    .setProtectedHeader({ alg: 'HS256' })
    .sign(new TextEncoder().encode(SECRET));

describe('authentication', () => {
  it('without an auth block every route is open, as the anonymous principal', async () => {
    const app = await tinyApp(config(undefined));
    const r = await app.inject('/v1/whoami');
    expect([r.statusCode, r.json()]).toEqual([200, { name: 'anonymous', roles: [] }]);
  });

  it('no credentials: 401 TG_UNAUTHENTICATED in the house shape, with WWW-Authenticate: Bearer', async () => {
    const app = await tinyApp(config(AUTH));
    const r = await app.inject('/v1/whoami');
    expect(r.statusCode).toBe(401);
    expect(r.headers['www-authenticate']).toBe('Bearer realm="topicgate"');
    expect(r.json()).toEqual({
      error: {
        code: 'TG_UNAUTHENTICATED',
        status: 401,
        message: 'credentials are required: send Authorization: Bearer <token> or X-API-Key: <key>',
      },
    });
  });

  it.each<[string, () => Promise<Record<string, string>>, number, unknown]>([
    ['an API key in X-API-Key', async () => ({ 'x-api-key': KEY }), 200, { name: 'analyst-1', roles: ['analyst'] }],
    [
      'an API key as Bearer',
      async () => ({ authorization: `Bearer ${LOADER_KEY}` }),
      200,
      { name: 'loader-1', roles: ['loader'] },
    ],
    ['a JWT', async () => ({ authorization: `Bearer ${await jwt()}` }), 200, { name: 'alice', roles: ['analyst'] }],
    ['a bad key', async () => ({ 'x-api-key': 'nope' }), 401, 'the API key was not accepted'],
    [
      'an expired JWT',
      async () => ({ authorization: `Bearer ${await jwt({ exp: 1 })}` }),
      401,
      'the bearer token has expired',
    ],
    [
      'a JWT for another audience',
      async () => ({ authorization: `Bearer ${await jwt({ aud: 'x' })}` }),
      401,
      'the bearer token was not accepted',
    ],
  ])('%s -> %s', async (_label, headers, status, body) => {
    const app = await tinyApp(config(AUTH));
    const r = await app.inject({ url: '/v1/whoami', headers: await headers() });
    expect(r.statusCode).toBe(status);
    if (status === 200) expect(r.json()).toEqual(body);
    else
      expect([r.json().error.code, r.json().error.message, r.headers['www-authenticate']]).toEqual([
        'TG_UNAUTHENTICATED',
        body,
        'Bearer realm="topicgate"',
      ]);
  });

  it('public groups: health by default; docs and metrics when listed; /docs/topics and unknown routes never', async () => {
    const closed = await tinyApp(config(AUTH));
    expect((await closed.inject('/healthz')).statusCode).toBe(200);
    expect((await closed.inject('/metrics')).statusCode).toBe(401);
    expect((await closed.inject('/docs/topics')).statusCode).toBe(401);
    expect((await closed.inject('/nope')).statusCode).toBe(401);
    expect((await closed.inject({ url: '/nope', headers: { 'x-api-key': KEY } })).statusCode).toBe(404);
    const open = await tinyApp(config(`${AUTH}  public: [health, metrics, docs]\n`));
    expect((await open.inject('/metrics')).statusCode).toBe(200);
    expect((await open.inject('/docs/topics')).statusCode).toBe(401);
    // On a public route the caller is anonymous even when it sends a credential.
    expect((await open.inject('/healthz')).statusCode).toBe(200);
  });

  it('a JWKS that cannot be reached: 503 TG_AUTH_UNAVAILABLE with Retry-After, not a 401', async () => {
    const app = await tinyApp(
      config(
        'auth:\n  jwt: { jwksUrl: "http://127.0.0.1:9/jwks", issuer: "https://idp.test/", audience: topicgate }\n',
      ),
    );
    const { generateKeyPair } = await import('jose');
    const { privateKey } = await generateKeyPair('RS256');
    const t = await new SignJWT({ sub: 'a', iss: 'https://idp.test/', aud: 'topicgate', exp: 4_000_000_000 })
      .setProtectedHeader({ alg: 'RS256', kid: 'k' })
      .sign(privateKey);
    const r = await app.inject({ url: '/v1/whoami', headers: { authorization: `Bearer ${t}` } });
    expect([r.statusCode, r.json().error.code, r.headers['retry-after']]).toEqual([503, 'TG_AUTH_UNAVAILABLE', '5']);
  });
});

describe('requests per minute', () => {
  const LIMITED = `${AUTH}limits:\n  requestsPerMinute: 3\n`;

  it('per principal: the 4th request is a 429 TG_TOO_MANY_REQUESTS with Retry-After; others keep their budget', async () => {
    const app = await tinyApp(config(LIMITED));
    const as = (key: string) => app.inject({ url: '/v1/whoami', headers: { 'x-api-key': key } });
    for (let i = 0; i < 3; i++) expect((await as(KEY)).statusCode).toBe(200);
    const r = await as(KEY);
    expect(r.statusCode).toBe(429);
    expect(r.json().error).toMatchObject({
      code: 'TG_TOO_MANY_REQUESTS',
      status: 429,
      details: { limit: 'requestsPerMinute' },
    });
    expect(Number(r.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(r.headers['retry-after'])).toBeLessThanOrEqual(60);
    // Another principal has its own budget.
    expect((await as(LOADER_KEY)).statusCode).toBe(200);
    // Health probes are never limited.
    for (let i = 0; i < 5; i++) expect((await app.inject('/healthz')).statusCode).toBe(200);
  });

  it('anonymous: per client address', async () => {
    const app = await tinyApp(config('limits:\n  requestsPerMinute: 2\n'));
    const from = (remoteAddress: string) => app.inject({ url: '/v1/whoami', remoteAddress });
    expect((await from('10.0.0.1')).statusCode).toBe(200);
    expect((await from('10.0.0.1')).statusCode).toBe(200);
    expect((await from('10.0.0.1')).statusCode).toBe(429);
    expect((await from('10.0.0.2')).statusCode).toBe(200);
  });

  it('failed credentials count against the client address, so guessing keys is limited too', async () => {
    const app = await tinyApp(config(LIMITED));
    const guess = (k: string) =>
      app.inject({ url: '/v1/whoami', headers: { 'x-api-key': k }, remoteAddress: '10.9.9.9' });
    for (let i = 0; i < 3; i++) expect((await guess(`guess-${i}`)).statusCode).toBe(401);
    expect((await guess('guess-4')).statusCode).toBe(429);
  });
});

describe('HTTP hardening', () => {
  it('security headers on every response, a no-content CSP on the API', async () => {
    const app = await tinyApp(config(AUTH));
    for (const r of [await app.inject('/healthz'), await app.inject('/v1/whoami')]) {
      expect(r.headers['x-content-type-options']).toBe('nosniff');
      expect(r.headers['x-frame-options']).toBe('SAMEORIGIN');
      expect(r.headers['content-security-policy']).toBe(
        "default-src 'none';frame-ancestors 'none';base-uri 'none';form-action 'none'",
      );
    }
  });

  it('Swagger UI keeps its own self-only CSP and its assets load', async () => {
    const app = await tinyApp(config(`${AUTH}  public: [health, docs]\n`), {}, true);
    const page = await app.inject('/docs/');
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    const html = page.body;
    const scripts = [...html.matchAll(/src="\.\/(static\/[^"]+)"/g)].map((m) => m[1]);
    expect(scripts.length).toBeGreaterThan(0);
    for (const s of scripts) expect((await app.inject(`/docs/${s}`)).statusCode, s).toBe(200);
    expect((await app.inject('/openapi.json')).statusCode).toBe(200);
  });

  it('CORS is off unless origins are configured', async () => {
    const app = await tinyApp(config(undefined));
    const r = await app.inject({ url: '/v1/whoami', headers: { origin: 'https://app.example' } });
    expect(r.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('CORS with an allowlist: preflight without credentials, allowed origin echoed, others not', async () => {
    const app = await tinyApp(config(AUTH, { TOPICGATE_CORS_ORIGINS: 'https://app.example' }));
    const pre = await app.inject({
      method: 'OPTIONS',
      url: '/v1/whoami',
      headers: {
        origin: 'https://app.example',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'authorization',
      },
    });
    expect(pre.statusCode).toBe(204);
    expect(pre.headers['access-control-allow-origin']).toBe('https://app.example');
    expect(String(pre.headers['access-control-allow-headers']).toLowerCase()).toContain('authorization');
    const ok = await app.inject({ url: '/v1/whoami', headers: { origin: 'https://app.example', 'x-api-key': KEY } });
    expect(ok.headers['access-control-allow-origin']).toBe('https://app.example');
    expect(ok.headers['access-control-expose-headers']).toContain('X-Trino-Query-Id');
    const other = await app.inject({
      url: '/v1/whoami',
      headers: { origin: 'https://evil.example', 'x-api-key': KEY },
    });
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('overload: 503 TG_OVERLOADED with Retry-After', async () => {
    const app = await tinyApp(config(undefined), { pressure: { maxHeapUsedBytes: 1, sampleInterval: 5 } });
    await new Promise((r) => setTimeout(r, 50));
    const r = await app.inject('/v1/whoami');
    expect([r.statusCode, r.json().error.code, r.headers['retry-after']]).toEqual([503, 'TG_OVERLOADED', '10']);
  });
});

describe('connection limits on a real socket', () => {
  async function listening(c: Config, route?: (app: FastifyInstance) => void) {
    const app = Fastify({ logger: false, ...serverTimeouts(c) });
    apps.push(app);
    await app.register(errorsPlugin);
    await app.register(accessPlugin, { config: c });
    app.post('/v1/echo', async (request) => ({ got: request.body }));
    route?.(app);
    await app.listen({ host: '127.0.0.1', port: 0 });
    return { app, port: (app.server.address() as { port: number }).port };
  }

  it('a body sent one byte at a time is cut off at the request timeout', async () => {
    const { port } = await listening(config(undefined, { TOPICGATE_REQUEST_TIMEOUT: '1s' }));
    const socket = connect(port, '127.0.0.1');
    const t0 = Date.now();
    let answer = '';
    socket.on('data', (d) => (answer += d.toString()));
    socket.write('POST /v1/echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{');
    const drip = setInterval(() => socket.writable && socket.write(' '), 200);
    await new Promise((resolve) => socket.on('close', resolve));
    clearInterval(drip);
    const took = Date.now() - t0;
    expect(took).toBeGreaterThanOrEqual(900);
    // The cut's time is the contract (1 s); the margin is wide, for a busy machine.
    expect(took).toBeLessThan(10_000);
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('a client that stops reading has its response cut after the write-idle timeout', async () => {
    let closedEarly: Promise<boolean> | undefined;
    const { port } = await listening(config(undefined, { TOPICGATE_WRITE_IDLE_TIMEOUT: '300ms' }), (app) =>
      app.get('/v1/big', (_request, reply) => {
        const chunk = Buffer.alloc(64 * 1024, 'x');
        let sent = 0;
        // Endless unless cut: the test proves the cut, not the end.
        const body = new Readable({
          read() {
            sent++;
            this.push(chunk);
          },
        });
        closedEarly = new Promise((resolve) =>
          reply.raw.on('close', () => resolve(!reply.raw.writableFinished && sent > 0)),
        );
        return reply.type('application/octet-stream').send(body);
      }),
    );
    const socket = connect(port, '127.0.0.1');
    socket.write('GET /v1/big HTTP/1.1\r\nHost: x\r\n\r\n');
    socket.pause(); // never reads
    const t0 = Date.now();
    while (!closedEarly) await new Promise((r) => setTimeout(r, 10));
    expect(await closedEarly).toBe(true);
    // Cut after 300 ms idle: the margin is wide, for a busy machine.
    expect(Date.now() - t0).toBeLessThan(10_000);
    socket.destroy();
  });
});
