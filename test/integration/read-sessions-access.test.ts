/**
 * Read sessions and access (API.md "Read sessions", "Access"): a stream is bound to the principal that
 * made the session and to its row scope, checked again on every read, by any instance with the same secret: a
 * revoked grant is a 403, an expired stream a 410, an altered one a 400; a presigned stream needs no credentials, an
 * unpresigned one the same principal's; row policies (and their claims) apply on every stream, never widened.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignJWT } from 'jose';
import { stringify } from 'yaml';
import { buildApp } from '../../src/server/app.js';
import { apiKeyHash } from '../../src/access/api-keys.js';
import { Keyring } from '../../src/core/signed-token.js';
import { StreamTokens } from '../../src/sessions/stream-token.js';
import { sql, testConfig } from '../helpers.js';
import { createSession, expectUnionIsBulk, ndjsonLines, readStream } from '../session-reads.js';

const dir = mkdtempSync(join(tmpdir(), 'topicgate-session-access-'));
const SECRET = 'session-access-test-secret-of-32-bytes-or-more';
const CURSOR_SECRET = 'session-cursor-secret-0123456789abcdef';
const EU = 'key-eu-000000000000000000000000000';
const ALL = 'key-all-00000000000000000000000000';
const WINDOW = { since: '2026-11-01T00:00:00Z', until: '2026-11-04T00:00:00Z' };

function config(name: string, grant: boolean) {
  const file = join(dir, name);
  writeFileSync(
    file,
    stringify({
      topics: { orders: { expand: { country: { path: '$.customer.address.country', type: 'varchar' } } } },
      auth: {
        apiKeys: [
          { principal: 'eu-1', sha256: apiKeyHash(EU), roles: ['analyst', 'analyst-eu'] },
          { principal: 'all-1', sha256: apiKeyHash(ALL), roles: grant ? ['analyst'] : ['nobody'] },
        ],
        jwt: { secretFile: join(dir, 'secret'), issuer: 'https://idp.test/', audience: 'topicgate' },
      },
      access: [{ roles: ['analyst', 'tenant'], topics: ['orders*', 's3_events'], actions: ['read'] }],
      rowPolicies: {
        default: 'allow',
        orders: [
          { roles: ['analyst-eu'], filter: grant ? 'country=in.(DE,FR)' : 'country=eq.DE' },
          { roles: ['tenant'], filter: 'key=in.({claims.order_keys})' },
        ],
      },
    }),
  );
  return testConfig({ TOPICGATE_CONFIG: file, TOPICGATE_CURSOR_SECRET: CURSOR_SECRET });
}

/** Two instances with one secret; the second no longer grants `all-1` anything, and narrows `eu-1`'s policy. */
let app: FastifyInstance;
let revoked: FastifyInstance;
beforeAll(async () => {
  writeFileSync(join(dir, 'secret'), SECRET);
  app = await buildApp(config('a.yaml', true), { logger: false });
  revoked = await buildApp(config('b.yaml', false), { logger: false });
});
afterAll(async () => {
  await Promise.all([app?.close(), revoked?.close()]);
  rmSync(dir, { recursive: true, force: true });
});

const eu = { 'x-api-key': EU };
const all = { 'x-api-key': ALL };
const tenant = (claims: Record<string, unknown>) =>
  new SignJWT({ sub: 'tenant-1', roles: ['tenant'], iss: 'https://idp.test/', aud: 'topicgate', exp: 4e9, ...claims })
    .setProtectedHeader({ alg: 'HS256' })
    .sign(new TextEncoder().encode(SECRET));
const code = (res: { statusCode: number; json(): { error: { code: string } } }) => [
  res.statusCode,
  res.json().error.code,
];

describe('row policies on every stream', () => {
  it('a restricted principal: the union is its limit=all read, only its rows', async () => {
    const body = { ...WINDOW, select: ['key', 'country', 'timestamp_broker'], streams: 4 };
    const { rows } = await expectUnionIsBulk(app, 'orders', body, eu);
    const [[n]] = (await sql(
      `SELECT count(*) FROM orders WHERE timestamp_broker >= TIMESTAMP '2026-11-01 00:00:00' AND timestamp_broker < TIMESTAMP '2026-11-04 00:00:00' AND json_extract_scalar(from_utf8(value), '$.customer.address.country') IN ('DE', 'FR')`,
    )) as [[number]];
    expect(rows).toBe(Number(n));
  });

  it('a claim-bound policy, presigned: read without the token, the claims it carries still bind it', async () => {
    const jwt = await tenant({ order_keys: ['order-1000002', 'order-1000007'], email: 'x@example.com' });
    const auth = { authorization: `Bearer ${jwt}` };
    const body = { ...WINDOW, select: ['key'], streams: 3, presign: true };
    const s = await createSession(app, 'orders', body, auth);
    // Only the claim a policy reads travels in the URL.
    const token = new URL(s.streams[0]!.url, 'http://x').searchParams.get('token')!;
    const opened = new StreamTokens(Keyring.fromSecrets(CURSOR_SECRET)).open(token);
    expect(opened.c).toEqual({ order_keys: ['order-1000002', 'order-1000007'] });
    const lines = (await Promise.all(s.streams.map((x) => readStream(app, x.url, 'ndjson')))).flatMap(ndjsonLines);
    expect(new Set(lines)).toEqual(new Set(['{"key":"order-1000002"}', '{"key":"order-1000007"}']));
  });
});

describe('who may read a stream', () => {
  let session: Awaited<ReturnType<typeof createSession>>;
  let presigned: Awaited<ReturnType<typeof createSession>>;
  beforeAll(async () => {
    session = await createSession(app, 'orders', { ...WINDOW, select: ['key'], streams: 2 }, all);
    presigned = await createSession(app, 'orders', { ...WINDOW, select: ['key'], streams: 2, presign: true }, all);
  });

  it('the principal that made it, from any instance with the secret', async () => {
    const here = await readStream(app, session.streams[1]!.url, 'ndjson', all);
    const other = await buildApp(config('c.yaml', true), { logger: false });
    try {
      expect((await readStream(other, session.streams[1]!.url, 'ndjson', all)).equals(here)).toBe(true);
    } finally {
      await other.close();
    }
  });

  it('unpresigned: no credentials is a 401, another principal a 403, never data', async () => {
    const url = `${session.streams[0]!.url}&format=ndjson`;
    expect(code(await app.inject({ url }))).toEqual([401, 'TG_UNAUTHENTICATED']);
    expect(code(await app.inject({ url, headers: eu }))).toEqual([403, 'TG_FORBIDDEN']);
    const jwt = await tenant({ order_keys: ['order-1000002'] });
    expect(code(await app.inject({ url, headers: { authorization: `Bearer ${jwt}` } }))).toEqual([403, 'TG_FORBIDDEN']);
  });

  it('presigned: the URL alone reads it, the same bytes as with credentials', async () => {
    const bare = await readStream(app, presigned.streams[0]!.url, 'ndjson');
    const authed = await readStream(app, presigned.streams[0]!.url, 'ndjson', all);
    expect(bare.equals(authed)).toBe(true);
    expect(ndjsonLines(bare).length).toBeGreaterThan(100);
    expect(code(await app.inject({ url: presigned.streams[0]!.url, headers: eu }))).toEqual([403, 'TG_FORBIDDEN']);
  });

  it('a revoked grant is a 403, with credentials or presigned', async () => {
    for (const [s, headers] of [
      [session, all],
      [presigned, {}],
    ] as const) {
      const res = await revoked.inject({ url: `${s.streams[0]!.url}&format=ndjson`, headers });
      expect(code(res)).toEqual([403, 'TG_FORBIDDEN']);
      expect(res.body).not.toContain('order-');
    }
  });

  it("a row policy changed since: 403, not the new policy's rows nor the old", async () => {
    const s = await createSession(app, 'orders', { ...WINDOW, select: ['key'], streams: 1 }, eu);
    const res = await revoked.inject({ url: `${s.streams[0]!.url}&format=ndjson`, headers: eu });
    expect(code(res)).toEqual([403, 'TG_FORBIDDEN']);
    expect(res.json().error.message).toContain('row policies');
  });

  it('expired: 410 TG_SESSION_EXPIRED; altered: 400 TG_BAD_SESSION; another stream path: 400', async () => {
    const tokens = new StreamTokens(Keyring.fromSecrets(CURSOR_SECRET));
    const url = new URL(presigned.streams[0]!.url, 'http://x');
    const body = tokens.open(url.searchParams.get('token'));
    const expired = tokens.seal({ ...body, x: Date.now() - 1 });
    const at = (token: string, path = url.pathname) => app.inject({ url: `${path}?token=${token}&format=ndjson` });
    const res = await at(expired);
    expect(code(res)).toEqual([410, 'TG_SESSION_EXPIRED']);
    const token = url.searchParams.get('token')!;
    const parts = token.split('.');
    const flipped = parts[2]!.slice(0, 10) + (parts[2]![10] === 'A' ? 'B' : 'A') + parts[2]!.slice(11);
    for (const bad of [[parts[0], parts[1], flipped, parts[3]].join('.'), `${token}x`, 'nonsense', '']) {
      expect(code(await at(bad))).toEqual([400, 'TG_BAD_SESSION']);
    }
    // A genuine token under another stream's path, or another topic's.
    expect(code(await at(token, url.pathname.replace(/\/0$/, '/1')))).toEqual([400, 'TG_BAD_SESSION']);
    expect(code(await at(token, url.pathname.replace('/orders/', '/clicks/')))).toEqual([400, 'TG_BAD_SESSION']);
    // Signed with another secret: not ours.
    const foreign = new StreamTokens(Keyring.fromSecrets('another-secret-0123456789abcdef0123')).seal(body);
    expect(code(await at(foreign))).toEqual([400, 'TG_BAD_SESSION']);
  });

  it('after a key rotation the streams signed with the previous secret still read', async () => {
    const file = config('d.yaml', true);
    const rotated = await buildApp(
      { ...file, cursorSecret: 'a-new-cursor-secret-0123456789abcdef', cursorPreviousSecrets: [CURSOR_SECRET] },
      { logger: false },
    );
    try {
      const before = await readStream(app, presigned.streams[1]!.url, 'ndjson');
      expect((await readStream(rotated, presigned.streams[1]!.url, 'ndjson')).equals(before)).toBe(true);
    } finally {
      await rotated.close();
    }
  });
});
