/**
 * A read session's stream tokens (sessions/stream-token.ts) and their binding to a principal
 * (sessions/stream-principal.ts): sealed and deflated, every alteration a 400 TG_BAD_SESSION, expiry a 410 checked
 * after the seal, past a JWT's exp a 401, rotation honoured; a presigned stream carries only the roles and claims
 * its topic's grants and policies need, and its principal keeps only the roles the config still gives it.
 */
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/core/errors.js';
import { Keyring } from '../../src/core/signed-token.js';
import type { Principal } from '../../src/access/principal.js';
import { RowPolicies } from '../../src/access/row-policy.js';
import { resolver } from '../../src/query/request/resolver.js';
import { readRequestFromQuery } from '../../src/query/request/parse-read-request.js';
import { MAX_STREAM_TOKEN, StreamTokens, type StreamBody } from '../../src/sessions/stream-token.js';
import {
  bindStream,
  checkStreamCaller,
  checkStreamRows,
  presignedPrincipal,
  rowScopeHash,
  sessionExpiry,
} from '../../src/sessions/stream-principal.js';
import { Grants } from '../../src/access/grants.js';
import { DEV_CURSOR_SECRET } from '../../src/config/serving-settings.js';
import { table, topicOf } from '../cases/columns.js';

const ring = Keyring.fromSecrets('stream-secret-a');
const tokens = new StreamTokens(ring);
const NOW = Date.UTC(2026, 10, 5);
const body: StreamBody = {
  i: 'sess-1',
  n: 2,
  t: 'orders',
  q: { select: ['key'], where: { field: 'key', op: 'eq', value: 'order-1' }, order: 'time' },
  f: Date.UTC(2026, 10, 1),
  u: Date.UTC(2026, 10, 2),
  p: 'loader',
  v: 'api-key',
  h: 'h1',
  x: NOW + 3_600_000,
  s: false,
  rv: {},
};

/** The code an action throws (or 'ok'). */
function outcome(f: () => unknown): string {
  try {
    f();
    return 'ok';
  } catch (err) {
    if (err instanceof ApiError) return `${err.status} ${err.code}`;
    throw err;
  }
}

describe('StreamTokens', () => {
  const token = tokens.seal(body);

  it('round-trips the description, deflated, in URL-safe text that does not show the request', () => {
    expect(token.startsWith('s1.')).toBe(true);
    expect(encodeURIComponent(token)).toBe(token);
    expect(token).not.toContain('order-1');
    expect(tokens.open(token, NOW)).toEqual(body);
  });

  it('any changed character is a 400 TG_BAD_SESSION, never a stream', () => {
    for (let i = 0; i < token.length; i += 7) {
      const c = token[i] === 'A' ? 'B' : 'A';
      const altered = token.slice(0, i) + c + token.slice(i + 1);
      if (altered !== token) expect(outcome(() => tokens.open(altered, NOW))).toBe('400 TG_BAD_SESSION');
    }
    for (const bad of [undefined, '', 'x', `${token}.x`, token.replace(/^s1/, 'p1'), 'a'.repeat(MAX_STREAM_TOKEN + 1)])
      expect(outcome(() => tokens.open(bad, NOW))).toBe('400 TG_BAD_SESSION');
  });

  it('expired: 410 TG_SESSION_EXPIRED from expiresAt on; a forged expiry is a 400 first', () => {
    expect(outcome(() => tokens.open(token, body.x - 1))).toBe('ok');
    expect(outcome(() => tokens.open(token, body.x))).toBe('410 TG_SESSION_EXPIRED');
    const other = new StreamTokens(Keyring.fromSecrets('another-secret'));
    expect(outcome(() => tokens.open(other.seal({ ...body, x: body.x + 1e9 }), NOW))).toBe('400 TG_BAD_SESSION');
  });

  it('a rotated ring still opens streams the previous secret signed; a retired one does not', () => {
    const rotated = new StreamTokens(Keyring.fromSecrets('stream-secret-b', 'stream-secret-a'));
    expect(rotated.open(token, NOW)).toEqual(body);
    const retired = new StreamTokens(Keyring.fromSecrets('stream-secret-b'));
    expect(outcome(() => retired.open(token, NOW))).toBe('400 TG_BAD_SESSION');
  });

  it('a request too large for a URL is a 422 when the session is made', () => {
    const values = Array.from({ length: 5000 }, (_, i) => `k-${(i * 7919).toString(36)}-${i}`);
    const big = { ...body, q: { where: { field: 'key', op: 'in', value: values } } };
    expect(outcome(() => tokens.seal(big))).toBe('422 TG_TOO_EXPENSIVE');
  });
});

describe('binding a stream to its principal', () => {
  const orders = topicOf([table('key', 'varbinary'), table('tenant', 'varchar')], 'orders');
  const policies = new RowPolicies({
    orders: [
      { roles: ['tenant'], filter: 'tenant=eq.{claims.org.tenant}' },
      { roles: ['other'], filter: 'key=eq.{claims.other}' },
    ],
  });
  const who: Principal = {
    id: 'jwt:https://idp.test/:jo',
    name: 'jo',
    via: 'jwt',
    roles: ['tenant'],
    claims: { sub: 'jo', email: 'jo@example.com', org: { tenant: 'acme', secret: 's' }, other: 'x' },
  };
  const grants = new Grants([{ roles: ['tenant', 'reader'], topics: ['orders'], actions: ['read'] }], true);
  const access = { grants, policies };
  const scope = { filter: policies.filterFor(orders, who), principal: who.id };
  const idp = { auth: { jwt: { issuer: 'https://idp.test/', audience: 'topicgate', secretFile: '/none' } } };

  it('presigned: the roles and only the claims its policies read; unpresigned: neither', () => {
    const b = bindStream(who, scope, access, orders, true);
    expect(b).toEqual({
      p: 'jwt:https://idp.test/:jo',
      v: 'jwt',
      h: rowScopeHash(scope),
      s: true,
      r: ['tenant'],
      c: { org: { tenant: 'acme' } },
    });
    expect(bindStream(who, scope, access, orders, false)).toEqual({
      p: 'jwt:https://idp.test/:jo',
      v: 'jwt',
      h: rowScopeHash(scope),
      s: false,
    });
  });

  it('presigned: only the roles that grant the topic or that its policies name', () => {
    const many: Principal = { ...who, roles: ['tenant', 'payroll-admin', 'reader', 'hr'] };
    const wide = { filter: policies.filterFor(orders, many), principal: many.id };
    const b = bindStream(many, wide, access, orders, true);
    expect(b.r).toEqual(['tenant', 'reader']);
    const p = presignedPrincipal({ ...body, ...b }, idp);
    expect(rowScopeHash({ filter: policies.filterFor(orders, p), principal: p.id })).toBe(b.h);
    expect(grants.can(p, 'orders', 'read')).toBe(true);
  });

  it("a JWT principal's session expires no later than its token, and is refused (401) past it", () => {
    const exp = NOW / 1000 + 60;
    expect(sessionExpiry({ ...who, claims: { ...who.claims, exp } }, 3_600_000, NOW)).toEqual({
      x: NOW + 60_000,
      credential: NOW + 60_000,
    });
    expect(sessionExpiry({ ...who, claims: { ...who.claims, exp: NOW / 1000 + 7200 } }, 3_600_000, NOW).x).toBe(
      NOW + 3_600_000,
    );
    expect(sessionExpiry({ ...who, via: 'api-key', claims: { exp } }, 3_600_000, NOW)).toEqual({ x: NOW + 3_600_000 });
    // A token whose own expiry (x) was stretched is another token: only `e` is what a forger could not change.
    const t = tokens.seal({ ...body, x: NOW + 3_600_000, e: NOW + 60_000 });
    expect(outcome(() => tokens.open(t, NOW + 59_999))).toBe('ok');
    expect(outcome(() => tokens.open(t, NOW + 60_000))).toBe('401 TG_UNAUTHENTICATED');
  });

  it('a presigned stream forged under the public development key is refused by a gateway with its own secret', () => {
    const forged = new StreamTokens(Keyring.fromSecrets(DEV_CURSOR_SECRET)).seal({
      ...body,
      s: true,
      r: ['admin'],
      c: { tenant: 'victim' },
    });
    const own = new StreamTokens(Keyring.fromSecrets('a-gateway-secret-of-32-bytes-or-more!'));
    expect(outcome(() => own.open(forged, NOW))).toBe('400 TG_BAD_SESSION');
  });

  it('the presigned principal recomputes the same row scope without the token', () => {
    const b = bindStream(who, scope, access, orders, true);
    const p = presignedPrincipal({ ...body, ...b }, idp);
    expect([p.id, p.name]).toEqual([who.id, 'jo']);
    expect(rowScopeHash({ filter: policies.filterFor(orders, p), principal: p.id })).toBe(b.h);
  });

  it('a stream whose principal the config no longer names (another issuer, a name made before ids) is a 403', () => {
    const b = bindStream(who, scope, access, orders, true);
    const other = { auth: { jwt: { ...idp.auth.jwt, issuer: 'https://other.test/' } } };
    expect(outcome(() => presignedPrincipal({ ...body, ...b }, other))).toBe('403 TG_FORBIDDEN');
    expect(outcome(() => presignedPrincipal({ ...body, ...b, v: 'api-key', p: 'loader' }, idp))).toBe(
      '403 TG_FORBIDDEN',
    );
  });

  it("an API key's presigned principal keeps only the roles the config still gives it", () => {
    const s = { ...body, v: 'api-key' as const, p: 'key:loader', r: ['a', 'b'], c: {} };
    const key = (roles: string[]) => ({ auth: { apiKeys: [{ principal: 'loader', sha256: '0'.repeat(64), roles }] } });
    expect(presignedPrincipal(s, key(['b', 'c'])).roles).toEqual(['b']);
    expect(presignedPrincipal(s, { auth: { apiKeys: [] } }).roles).toEqual([]);
  });

  it('another principal, or a changed row scope, is a 403', () => {
    const s = { ...body, ...bindStream(who, scope, access, orders, false) };
    expect(outcome(() => checkStreamCaller(s, who))).toBe('ok');
    expect(outcome(() => checkStreamCaller(s, { ...who, id: 'jwt:https://idp.test/:eve' }))).toBe('403 TG_FORBIDDEN');
    // An API key named like the token's claim is another principal.
    const key = { ...who, id: 'key:jo', via: 'api-key' as const };
    expect(outcome(() => checkStreamCaller(s, key))).toBe('403 TG_FORBIDDEN');
    expect(outcome(() => checkStreamRows(s, scope))).toBe('ok');
    const wider = { filter: null, principal: who.id };
    const other = { filter: readRequestFromQuery({ tenant: 'eq.zeta' }, resolver(orders)).where, principal: who.id };
    expect(outcome(() => checkStreamRows(s, wider))).toBe('403 TG_FORBIDDEN');
    expect(outcome(() => checkStreamRows(s, other))).toBe('403 TG_FORBIDDEN');
  });
});
