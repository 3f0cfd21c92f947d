/**
 * JWT bearer tokens: keys made here with jose, a JWKS served by a local HTTP server whose key
 * set the test rotates; every way a token can be wrong is refused, and the refusal never names the token.
 */
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignJWT, exportJWK, exportSPKI, generateKeyPair, type CryptoKey, type JWK } from 'jose';
import { ConfigError } from '../../src/config/config.js';
import { JwtKeysUnavailable, JwtRefused, createJwtVerifier, type JwtVerifier } from '../../src/access/jwt.js';
import type { JwtSettings } from '../../src/config/access-schema.js';

const ISSUER = 'https://idp.test/';
const AUDIENCE = 'topicgate';
const dir = mkdtempSync(join(tmpdir(), 'topicgate-jwt-'));

interface Pair {
  kid: string;
  alg: string;
  privateKey: CryptoKey;
  jwk: JWK;
}
async function pair(kid: string, alg = 'RS256'): Promise<Pair> {
  const { publicKey, privateKey } = await generateKeyPair(alg, { extractable: true });
  return { kid, alg, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
}

/** A signed token; `claims` override the valid defaults (undefined removes one). */
async function token(
  key: { kid?: string; alg: string; privateKey: CryptoKey | Uint8Array },
  claims: Record<string, unknown> = {},
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const body: Record<string, unknown> = {
    iss: ISSUER,
    aud: AUDIENCE,
    sub: 'alice',
    roles: ['analyst'],
    iat: now,
    exp: now + 300,
    ...claims,
  };
  for (const k of Object.keys(body)) if (body[k] === undefined) delete body[k];
  return new SignJWT(body).setProtectedHeader({ alg: key.alg, kid: key.kid, typ: 'JWT' }).sign(key.privateKey);
}

const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');

/** The JWKS endpoint: serves `keys`, counts fetches; `down` answers 500. */
const jwks = { keys: [] as JWK[], fetches: 0, down: false };
let server: Server;
let jwksUrl: string;

let a: Pair;
let b: Pair;
let ec: Pair;
let settings: JwtSettings;

beforeAll(async () => {
  [a, b, ec] = await Promise.all([pair('key-a'), pair('key-b'), pair('key-ec', 'ES256')]);
  server = createServer((_req, res) => {
    jwks.fetches++;
    if (jwks.down) {
      res.writeHead(500).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: jwks.keys }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  jwksUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`;
  settings = { jwksUrl, issuer: ISSUER, audience: AUDIENCE };
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

/** The refusal `verify` gives (fails the test when it accepts). */
async function refusal(v: JwtVerifier, t: string): Promise<JwtRefused> {
  const err = await v.verify(t).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(JwtRefused);
  expect((err as Error).message).not.toContain(t);
  const payload = t.split('.')[1] ?? '';
  if (payload.length > 8) expect((err as Error).message).not.toContain(payload);
  return err as JwtRefused;
}

describe('a JWKS URL', () => {
  it('accepts a valid token: principal from sub, roles from roles', async () => {
    jwks.keys = [a.jwk];
    const v = createJwtVerifier(settings, { jwksCooldownMs: 0 });
    const p = await v.verify(await token(a));
    expect(p).toMatchObject({ name: 'alice', roles: ['analyst'], via: 'jwt' });
    expect(p.claims).toMatchObject({ sub: 'alice', iss: ISSUER });
  });

  it('an unknown kid fetches the key set again, so a rotated key is accepted without a restart', async () => {
    jwks.keys = [a.jwk];
    const v = createJwtVerifier(settings, { jwksCooldownMs: 0 });
    await v.verify(await token(a));
    const before = jwks.fetches;
    jwks.keys = [b.jwk]; // the provider rotates: key-a is gone, key-b is new
    expect((await v.verify(await token(b, { sub: 'bob' }))).name).toBe('bob');
    expect(jwks.fetches).toBe(before + 1);
    // A token of the retired key: fetched again, still unknown, refused.
    expect((await refusal(v, await token(a))).reason).toBe('ERR_JWKS_NO_MATCHING_KEY');
  });

  it('within the cooldown an unknown kid is refused without a fetch (a flood of bad kids cannot hammer the IdP)', async () => {
    jwks.keys = [a.jwk];
    const v = createJwtVerifier(settings, { jwksCooldownMs: 60_000 });
    await v.verify(await token(a));
    const before = jwks.fetches;
    for (let i = 0; i < 5; i++) await refusal(v, await token({ ...a, kid: `nope-${i}` }));
    expect(jwks.fetches).toBe(before);
  });

  it('a key set that cannot be fetched is not the client fault (JwtKeysUnavailable, not a refusal)', async () => {
    jwks.down = true;
    try {
      const v = createJwtVerifier(settings, { jwksCooldownMs: 0 });
      await expect(v.verify(await token(a))).rejects.toBeInstanceOf(JwtKeysUnavailable);
    } finally {
      jwks.down = false;
    }
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['expired', { exp: Math.floor(Date.now() / 1000) - 3600 }, 'the bearer token has expired'],
    ['wrong issuer', { iss: 'https://evil.test/' }, 'the bearer token was not accepted'],
    ['wrong audience', { aud: 'another-service' }, 'the bearer token was not accepted'],
    ['no exp', { exp: undefined }, 'the bearer token was not accepted'],
    ['no aud', { aud: undefined }, 'the bearer token was not accepted'],
    ['not yet valid', { nbf: Math.floor(Date.now() / 1000) + 3600 }, 'the bearer token was not accepted'],
    ['no principal claim', { sub: undefined }, 'the bearer token was not accepted'],
    ['an empty principal', { sub: '' }, 'the bearer token was not accepted'],
  ])('%s -> refused: %s', async (_label, claims, message) => {
    jwks.keys = [a.jwk];
    const v = createJwtVerifier(settings, { jwksCooldownMs: 0 });
    expect((await refusal(v, await token(a, claims))).message).toBe(message);
  });

  it('the clock tolerance accepts a token expired a few seconds ago, and is configurable', async () => {
    jwks.keys = [a.jwk];
    const t = await token(a, { exp: Math.floor(Date.now() / 1000) - 10 });
    expect((await createJwtVerifier(settings).verify(t)).name).toBe('alice');
    await refusal(createJwtVerifier({ ...settings, clockToleranceSeconds: 0 }), t);
  });

  it('alg none (a hand-built unsigned token) is refused', async () => {
    jwks.keys = [a.jwk];
    const now = Math.floor(Date.now() / 1000);
    const claims = { iss: ISSUER, aud: AUDIENCE, sub: 'mallory', roles: ['admin'], exp: now + 300 };
    const v = createJwtVerifier(settings, { jwksCooldownMs: 0 });
    for (const alg of ['none', 'None', 'NONE']) {
      await refusal(v, `${b64({ alg, typ: 'JWT' })}.${b64(claims)}.`);
      await refusal(v, `${b64({ alg, typ: 'JWT', kid: 'key-a' })}.${b64(claims)}.`);
    }
  });

  it('a symmetric key published in the JWKS is never used (HS256 is not allowed with a JWKS)', async () => {
    const secret = new Uint8Array(32).fill(7);
    jwks.keys = [{ kty: 'oct', kid: 'oct', alg: 'HS256', k: Buffer.from(secret).toString('base64url') }];
    const v = createJwtVerifier(settings, { jwksCooldownMs: 0 });
    await refusal(v, await token({ kid: 'oct', alg: 'HS256', privateKey: secret }));
  });

  it('HS/RS confusion: HS256 signed with the RSA public key text as the secret is refused', async () => {
    jwks.keys = [a.jwk];
    const { publicKey } = await generateKeyPair('RS256', { extractable: true });
    const pem = await exportSPKI(publicKey);
    jwks.keys = [{ ...(await exportJWK(publicKey)), kid: 'key-c', alg: 'RS256' }];
    const forged = await token({ kid: 'key-c', alg: 'HS256', privateKey: new TextEncoder().encode(pem) });
    expect((await refusal(createJwtVerifier(settings, { jwksCooldownMs: 0 }), forged)).reason).toBe(
      'ERR_JOSE_ALG_NOT_ALLOWED',
    );
  });

  it('a token longer than any real one is refused before parsing', async () => {
    const v = createJwtVerifier(settings);
    expect((await refusal(v, `${'a'.repeat(20_000)}.b.c`)).reason).toBe('too long');
  });
});

describe('a public key file', () => {
  it('RSA: RS256 accepted; HS256 signed with the same PEM as the secret refused (algorithm confusion)', async () => {
    const { publicKey, privateKey } = await generateKeyPair('RS256', { extractable: true });
    const pem = await exportSPKI(publicKey);
    const file = join(dir, 'rsa.pem');
    writeFileSync(file, pem);
    const v = createJwtVerifier({ publicKeyFile: file, issuer: ISSUER, audience: AUDIENCE });
    expect((await v.verify(await token({ alg: 'RS256', privateKey }))).name).toBe('alice');
    for (const secret of [pem, pem.trim(), Buffer.from(pem).toString('base64')]) {
      const forged = await token({ alg: 'HS256', privateKey: new TextEncoder().encode(secret) });
      expect((await refusal(v, forged)).reason).toBe('ERR_JOSE_ALG_NOT_ALLOWED');
    }
  });

  it('EC P-256: only ES256 (an RSA-signed token is refused)', async () => {
    const file = join(dir, 'ec.pem');
    const { publicKey } = await generateKeyPair('ES256', { extractable: true });
    writeFileSync(file, await exportSPKI(publicKey));
    const v = createJwtVerifier({ publicKeyFile: file, issuer: ISSUER, audience: AUDIENCE });
    await refusal(v, await token(ec)); // signed by another EC key
    await refusal(v, await token(a));
  });

  it('a file that is not a public key is a ConfigError naming the field, not the content', () => {
    const file = join(dir, 'junk.pem');
    writeFileSync(file, 'not a key at all');
    expect(() => createJwtVerifier({ publicKeyFile: file, issuer: ISSUER, audience: AUDIENCE })).toThrow(
      /auth\.jwt\.publicKeyFile: not a PEM public key or certificate/,
    );
    expect(() =>
      createJwtVerifier({ publicKeyFile: join(dir, 'missing.pem'), issuer: ISSUER, audience: AUDIENCE }),
    ).toThrow(/auth\.jwt\.publicKeyFile: cannot read \S*missing\.pem \(ENOENT\)/);
  });
});

describe('a secret file (HS256)', () => {
  const secret = 'a-secret-of-exactly-thirty-two-b';
  const file = join(dir, 'secret');

  it('accepts HS256 with the secret (a trailing newline is not part of it); refuses RS256 and other secrets', async () => {
    expect(secret).toHaveLength(32);
    writeFileSync(file, `${secret}\n`);
    const v = createJwtVerifier({ secretFile: file, issuer: ISSUER, audience: AUDIENCE });
    const key = new TextEncoder().encode(secret);
    expect((await v.verify(await token({ alg: 'HS256', privateKey: key }))).name).toBe('alice');
    await refusal(v, await token({ alg: 'HS384', privateKey: key }));
    await refusal(v, await token({ alg: 'HS256', privateKey: new TextEncoder().encode(`${secret}\n`) }));
    await refusal(v, await token(a));
  });

  it('a secret shorter than 32 bytes is refused at start-up, without showing it', () => {
    writeFileSync(file, 'short-secret\r\n');
    let err: unknown;
    try {
      createJwtVerifier({ secretFile: file, issuer: ISSUER, audience: AUDIENCE }, { configFile: 'tg.yaml' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).problems).toEqual([
      'TOPICGATE_CONFIG=tg.yaml: auth.jwt.secretFile: the secret has 12 bytes; HS256 needs at least 32',
    ]);
  });
});

describe('principal and roles from configurable claims', () => {
  it.each<[Partial<JwtSettings>, Record<string, unknown>, string, string[]]>([
    [{}, { roles: 'a b  c' }, 'alice', ['a', 'b', 'c']],
    [{}, { roles: ['a', 1, null, 'b'] }, 'alice', ['a', 'b']],
    [{}, { roles: undefined }, 'alice', []],
    [{ principalClaim: 'email' }, { email: 'a@x.test' }, 'a@x.test', ['analyst']],
    [{ rolesClaim: 'realm_access.roles' }, { realm_access: { roles: ['loader'] } }, 'alice', ['loader']],
    [{ rolesClaim: 'scope' }, { scope: 'read explain' }, 'alice', ['read', 'explain']],
  ])('%j with %j', async (extra, claims, name, roles) => {
    jwks.keys = [a.jwk];
    const v = createJwtVerifier({ ...settings, ...extra }, { jwksCooldownMs: 0 });
    expect(await v.verify(await token(a, claims))).toMatchObject({ name, roles });
  });
});
