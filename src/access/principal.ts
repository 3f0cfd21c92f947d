/**
 * Who is calling: a principal name, its roles and (for JWT callers) its claims. Without an `auth` block every
 * caller is the anonymous principal; with one, only public routes see it.
 */

export interface Principal {
  readonly name: string;
  readonly roles: readonly string[];
  /** JWT claims (row policies may name them); an API key's principal has `sub` only. */
  readonly claims: Readonly<Record<string, unknown>>;
  /** How the caller proved who it is. */
  readonly via: 'anonymous' | 'api-key' | 'jwt';
}

export const ANONYMOUS: Principal = Object.freeze({
  name: 'anonymous',
  roles: Object.freeze([]),
  claims: Object.freeze({}),
  via: 'anonymous',
});

export function isAnonymous(p: Principal): boolean {
  return p.via === 'anonymous';
}

/**
 * The key that quotas count a caller under: its principal, or its client address when anonymous (anonymous
 * callers share a name, not a budget). The prefixes keep a principal named like an address apart from it.
 */
export function quotaKey(p: Principal, clientAddress: string): string {
  return isAnonymous(p) ? `address:${clientAddress}` : `principal:${p.name}`;
}
