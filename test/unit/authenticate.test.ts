/**
 * Authentication: API keys stored as SHA-256, sent as `X-API-Key` or `Authorization: Bearer`;
 * JWTs through the same header; every refusal a 401 TG_UNAUTHENTICATED whose message never holds the credential.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SignJWT, generateKeyPair } from 'jose';
import type { ApiError } from '../../src/core/errors.js';
import { ApiKeys, apiKeyHash } from '../../src/access/api-keys.js';
import { AuthRefused, Authenticator } from '../../src/access/authenticate.js';
import { ANONYMOUS, quotaKey } from '../../src/access/principal.js';
import { apiErrorOf } from '../cases/api-error.js';

const dir = mkdtempSync(join(tmpdir(), 'topicgate-auth-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const KEY = 'k-3f9a0c1e5b7d4a2f8e6c0b1d3a5f7e9c';
const OTHER = 'k-other-0000000000000000000000000';

describe('ApiKeys', () => {
  const keys = new ApiKeys([
    { principal: 'loader-orders', sha256: apiKeyHash(KEY), roles: ['loader'] },
    { principal: 'upper', sha256: apiKeyHash(OTHER).toUpperCase() },
  ]);

  it('finds the principal of a configured key (hex in either case)', () => {
    expect(keys.find(KEY)).toEqual({
      id: 'key:loader-orders',
      name: 'loader-orders',
      roles: ['loader'],
      claims: { sub: 'loader-orders' },
      via: 'api-key',
    });
    expect(keys.find(OTHER)?.name).toBe('upper');
    expect(keys.find(OTHER)?.roles).toEqual([]);
  });

  it.each([
    ['empty', ''],
    ['a prefix', KEY.slice(0, -1)],
    ['one more character', `${KEY}x`],
    ['the hash itself', apiKeyHash(KEY)],
    ['other case', KEY.toUpperCase()],
    ['too long', 'k'.repeat(10_000)],
  ])('%s -> no principal', (_label, presented) => {
    expect(keys.find(presented)).toBeUndefined();
  });

  it('apiKeyHash is the hex SHA-256 (what `printf %s key | sha256sum` prints)', () => {
    expect(apiKeyHash('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});

async function refusal(a: Authenticator, headers: Record<string, string | string[]>): Promise<ApiError> {
  const err = await apiErrorOf(a.authenticate(headers));
  for (const v of Object.values(headers).flat()) {
    if (v.length > 6) expect(err.message).not.toContain(v.replace(/^Bearer /, ''));
  }
  return err;
}

describe('Authenticator', () => {
  const secret = 'an-hs256-secret-of-32-bytes-or-more';
  const secretFile = join(dir, 'secret');
  writeFileSync(secretFile, secret);
  const auth = new Authenticator({
    apiKeys: [{ principal: 'loader-orders', sha256: apiKeyHash(KEY), roles: ['loader'] }],
    jwt: { secretFile, issuer: 'https://idp.test/', audience: 'topicgate' },
  });
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
      .sign(new TextEncoder().encode(secret));

  it('without an auth block every caller is anonymous, whatever it sends', async () => {
    const open = new Authenticator(undefined);
    expect(open.enabled).toBe(false);
    expect(await open.authenticate({})).toBe(ANONYMOUS);
    expect(await open.authenticate({ authorization: 'Bearer junk' })).toBe(ANONYMOUS);
  });

  it.each([
    ['X-API-Key', { 'x-api-key': KEY }],
    ['Authorization: Bearer', { authorization: `Bearer ${KEY}` }],
    ['a lower-case scheme', { authorization: `bearer ${KEY}` }],
  ])('an API key as %s', async (_label, headers) => {
    expect(await auth.authenticate(headers)).toMatchObject({ name: 'loader-orders', roles: ['loader'] });
  });

  it('a JWT as Authorization: Bearer', async () => {
    expect(await auth.authenticate({ authorization: `Bearer ${await jwt()}` })).toMatchObject({
      name: 'alice',
      roles: ['analyst'],
      via: 'jwt',
    });
  });

  it('principals are named by how they authenticated, so a claim never names a key', async () => {
    const p = await auth.authenticate({ authorization: `Bearer ${await jwt()}` });
    expect(p.id).toBe('jwt:https://idp.test/:alice');
    expect((await auth.authenticate({ 'x-api-key': KEY })).id).toBe('key:loader-orders');
    expect(ANONYMOUS.id).toBe('anonymous');
    const quota = [quotaKey(p, '10.0.0.1'), quotaKey({ ...p, id: 'key:alice', via: 'api-key' }, '10.0.0.1')];
    expect(quota).toEqual(['principal:jwt:https://idp.test/:alice', 'principal:key:alice']);
    expect(quotaKey(ANONYMOUS, '10.0.0.1')).toBe('address:10.0.0.1');
  });

  it.each<[string, Record<string, string | string[]>, string]>([
    ['nothing', {}, 'credentials are required: send Authorization: Bearer <token> or X-API-Key: <key>'],
    ['a wrong key', { 'x-api-key': OTHER }, 'the API key was not accepted'],
    ['a wrong bearer key', { authorization: `Bearer ${OTHER}` }, 'the bearer token was not accepted'],
    [
      'Basic',
      { authorization: `Basic ${Buffer.from(`u:${KEY}`).toString('base64')}` },
      'the Authorization header must be Bearer <token>',
    ],
    ['Bearer without a token', { authorization: 'Bearer' }, 'the Authorization header must be Bearer <token>'],
    ['two X-API-Key headers', { 'x-api-key': [KEY, KEY] }, 'send one X-API-Key header'],
    [
      'both headers',
      { 'x-api-key': KEY, authorization: `Bearer ${KEY}` },
      'send one credential: Authorization or X-API-Key, not both',
    ],
    [
      'a JWT of another key',
      { authorization: 'Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJlLW9mLWFub3RoZXIta2V5' },
      'the bearer token was not accepted',
    ],
  ])('%s -> 401', async (_label, headers, message) => {
    const err = await refusal(auth, headers);
    expect(err).toBeInstanceOf(AuthRefused);
    expect([err.code, err.status, err.message]).toEqual(['TG_UNAUTHENTICATED', 401, message]);
  });

  it('an expired JWT says so (the client can fix that), and nothing else', async () => {
    const t = await jwt({ exp: Math.floor(Date.now() / 1000) - 3600 });
    const err = await refusal(auth, { authorization: `Bearer ${t}` });
    expect(err.message).toBe('the bearer token has expired');
  });

  it('a JWT with the wrong audience says only that it was not accepted; the reason is for the log', async () => {
    const t = await jwt({ aud: 'other' });
    const err = await refusal(auth, { authorization: `Bearer ${t}` });
    expect(err.message).toBe('the bearer token was not accepted');
    expect((err as AuthRefused).reason).toBe('ERR_JWT_CLAIM_VALIDATION_FAILED:aud');
  });

  it('a key set that cannot be fetched is a 503 TG_AUTH_UNAVAILABLE with Retry-After', async () => {
    const down = new Authenticator(
      { jwt: { jwksUrl: 'http://127.0.0.1:9/jwks.json', issuer: 'https://idp.test/', audience: 'topicgate' } },
      { jwksTimeoutMs: 2_000 },
    );
    const { privateKey } = await generateKeyPair('RS256');
    const t = await new SignJWT({ sub: 'alice', iss: 'https://idp.test/', aud: 'topicgate', exp: 4_000_000_000 })
      .setProtectedHeader({ alg: 'RS256', kid: 'k1' })
      .sign(privateKey);
    const err = await refusal(down, { authorization: `Bearer ${t}` });
    expect([err.code, err.status, err.retryAfterS]).toEqual(['TG_AUTH_UNAVAILABLE', 503, 5]);
  });
});
