/**
 * Who is calling: a principal, its roles and (for JWT callers) its claims. Without an `auth` block every caller is
 * the anonymous principal; with one, only public routes see it.
 *
 * A principal is identified by how it authenticated (core/principal-ids.ts): `key:<principal>`, `jwt:<issuer>:<claim>`
 * or `anonymous`. Ids of different kinds never coincide, so a token whose claim repeats a key's name is another
 * principal: cursors, read sessions, page tokens, held queries and quotas go by the id.
 * The bare `name` keeps its config meaning (an API key's `principal`, the claim's value) for logs and for Trino
 * (query/planner.ts trinoUser); roles and claims decide grants and row policies as configured.
 */
import { ANONYMOUS_ID } from '../core/principal-ids.js';

export interface Principal {
  /** How it authenticated and who: `key:<name>`, `jwt:<issuer>:<name>` or `anonymous`. */
  readonly id: string;
  /** The name as its credential gave it: an API key's `principal`, a JWT's principal claim, or `anonymous`. */
  readonly name: string;
  readonly roles: readonly string[];
  /** JWT claims (row policies may name them); an API key's principal has `sub` only. */
  readonly claims: Readonly<Record<string, unknown>>;
  /** How the caller proved who it is. */
  readonly via: 'anonymous' | 'api-key' | 'jwt';
}

export const ANONYMOUS: Principal = Object.freeze({
  id: ANONYMOUS_ID,
  name: ANONYMOUS_ID,
  roles: Object.freeze([]),
  claims: Object.freeze({}),
  via: 'anonymous',
});

export function isAnonymous(p: Principal): boolean {
  return p.via === 'anonymous';
}

/**
 * The key that quotas count a caller under: its principal's id, or its client address when anonymous (anonymous
 * callers share a name, not a budget). The prefixes keep a principal named like an address apart from it.
 */
export function quotaKey(p: Principal, clientAddress: string): string {
  return isAnonymous(p) ? `address:${clientAddress}` : `principal:${p.id}`;
}

/**
 * When the principal's credential stops being valid, epoch ms: a bearer token's `exp` (its roles and claims hold
 * until then only); undefined for a credential without one (an API key, anonymous).
 */
export function credentialExpiry(p: Principal): number | undefined {
  const exp = p.via === 'jwt' ? p.claims.exp : undefined;
  return typeof exp === 'number' && Number.isFinite(exp) ? Math.floor(exp * 1000) : undefined;
}
