/**
 * Who a stream belongs to (API.md "Read sessions"): the principal that made the session and its row scope, bound
 * into the stream's token, and checked again on every read against the grants in force then. Nothing in a token
 * can widen what its principal may read: the row filter a read applies is always recomputed from the current row
 * policies, and a read is refused when it no longer hashes as it did when the session was made.
 */
import type { Config } from '../config/config.js';
import { ApiError } from '../core/errors.js';
import type { Grants } from '../access/grants.js';
import type { Principal } from '../access/principal.js';
import { jwtPrincipalId, keyPrincipalId } from '../core/principal-ids.js';
import type { RowPolicies } from '../access/row-policy.js';
import { canonicalWhere, queryHash } from '../query/passes/paging.js';
import type { RowScope } from '../query/tree/read-policy.js';
import type { TopicModel } from '../query/tree/topic-model.js';
import type { StreamBody } from './stream-token.js';

/** A row scope as a short hash: its filter's tree and its principal's id. */
export function rowScopeHash(rows: RowScope): string {
  return queryHash({ r: canonicalWhere(rows.filter), p: rows.principal });
}

/** The members of a stream's token that bind it to its principal. */
export type StreamBinding = Pick<StreamBody, 'p' | 'v' | 'r' | 'c' | 'h' | 's'>;

/** What a presigned stream's roles are checked against: the grants and row policies in force. */
export interface StreamAccess {
  grants: Grants;
  policies: RowPolicies;
}

/**
 * The binding of a session made by `principal` with row scope `rows` on `topic`. A presigned one carries the least
 * a read without credentials needs to be checked again: the roles that grant the topic or that its row policies
 * name, and the claims those policies read.
 */
export function bindStream(
  principal: Principal,
  rows: RowScope,
  access: StreamAccess,
  topic: TopicModel,
  presign: boolean,
): StreamBinding {
  const binding: StreamBinding = { p: principal.id, v: principal.via, h: rowScopeHash(rows), s: presign };
  if (presign) {
    binding.r = rolesNeeded(principal, rows, access, topic);
    binding.c = access.policies.claimsRead(topic.id, principal);
  }
  return binding;
}

/**
 * The principal's roles that matter on `topic`: each that alone grants it, or alone gets another row filter than
 * none. Kept only when they give the same grant and the same row scope as all of them; else all of them.
 */
function rolesNeeded(principal: Principal, rows: RowScope, access: StreamAccess, topic: TopicModel): string[] {
  const as = (roles: readonly string[]): Principal => ({ ...principal, roles });
  const scope = (roles: readonly string[]): string =>
    rowScopeHash({ filter: access.policies.filterFor(topic, as(roles)), principal: principal.id });
  const none = scope([]);
  const needed = principal.roles.filter((r) => access.grants.sees(as([r]), topic.id) || scope([r]) !== none);
  const same =
    access.grants.can(as(needed), topic.id, 'read') === access.grants.can(principal, topic.id, 'read') &&
    scope(needed) === rowScopeHash(rows);
  return same ? needed : [...principal.roles];
}

/**
 * The principal a presigned stream is read as: its id, the roles and claims it carries. An API key's principal
 * keeps only the roles the config still gives it (a key removed or a role taken away revokes the stream); a JWT's
 * roles are known only from its token, so the stream's (bounded by the session's expiry).
 */
export function presignedPrincipal(s: StreamBody, config: Pick<Config, 'auth'>): Principal {
  const name = nameOf(s, config);
  let roles = s.r ?? [];
  if (s.v === 'api-key') {
    const now = new Set((config.auth?.apiKeys ?? []).filter((k) => k.principal === name).flatMap((k) => k.roles ?? []));
    roles = roles.filter((r) => now.has(r));
  }
  return Object.freeze({
    id: s.p,
    name,
    via: s.v,
    roles: Object.freeze(roles),
    claims: Object.freeze(s.c ?? {}),
  });
}

/**
 * The bare name inside a stream's principal id, as the config in force reads it: a token made for an issuer no
 * longer configured (or before ids existed) names no principal now, and is refused.
 */
function nameOf(s: StreamBody, config: Pick<Config, 'auth'>): string {
  const issuer = config.auth?.jwt?.issuer;
  const prefix = s.v === 'api-key' ? keyPrincipalId('') : s.v === 'jwt' && issuer ? jwtPrincipalId(issuer, '') : null;
  if (prefix !== null && s.p.startsWith(prefix)) return s.p.slice(prefix.length);
  if (s.v === 'anonymous' && s.p === 'anonymous') return s.p;
  throw new ApiError(
    'TG_FORBIDDEN',
    'this stream was made by a principal the service no longer knows: create a new session',
    {
      parameter: 'token',
    },
  );
}

/**
 * When a session made by `principal` now expires, epoch ms: `ttlMs` from now, never after the credential's own
 * expiry (a JWT's `exp`: its roles and claims hold until then only). `credential` is that expiry, when it has one.
 */
export function sessionExpiry(principal: Principal, ttlMs: number, now: number): { x: number; credential?: number } {
  const exp = principal.via === 'jwt' ? principal.claims.exp : undefined;
  if (typeof exp !== 'number' || !Number.isFinite(exp)) return { x: now + ttlMs };
  const credential = Math.floor(exp * 1000);
  return { x: Math.min(now + ttlMs, credential), credential };
}

/** A read of the stream by `caller` (with credentials): only the principal that made the session reads it. */
export function checkStreamCaller(s: StreamBody, caller: Principal): void {
  if (caller.id !== s.p || caller.via !== s.v) {
    throw new ApiError('TG_FORBIDDEN', 'this stream belongs to a session another principal made', {
      parameter: 'token',
    });
  }
}

/**
 * The grants in force now: a principal that may no longer read the topic gets a 403 (it made the session, so the
 * topic's existence is no secret to it), whether the grant went with a rule, a role or the whole key.
 */
export function checkStreamGrant(s: StreamBody, caller: Principal, grants: Grants): void {
  if (!grants.can(caller, s.t, 'read')) {
    throw new ApiError('TG_FORBIDDEN', `this caller may no longer read topic ${JSON.stringify(s.t)}`, {
      action: 'read',
    });
  }
}

/** The caller's row scope now, against the one the session was made with: changed is a 403, never other rows. */
export function checkStreamRows(s: StreamBody, rows: RowScope): void {
  if (rowScopeHash(rows) !== s.h) {
    throw new ApiError(
      'TG_FORBIDDEN',
      "the caller's row policies on this topic changed since the session was made: create a new session",
      { parameter: 'token' },
    );
  }
}
