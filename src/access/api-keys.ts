/**
 * API keys (API.md "Access"): the config holds only the hex SHA-256 of each key. A presented key is hashed and
 * compared with every configured hash in constant time, so neither a match's position nor a near miss shows
 * in the response time.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { ApiKeySettings } from '../config/access-schema.js';
import { keyPrincipalId } from '../core/principal-ids.js';
import type { Principal } from './principal.js';

/** Longest key accepted: hashing an arbitrarily long header is work an attacker chooses. */
const MAX_KEY_LENGTH = 512;

export class ApiKeys {
  private readonly entries: { hash: Buffer; principal: Principal }[];

  constructor(keys: readonly ApiKeySettings[]) {
    this.entries = keys.map((k) => ({
      hash: Buffer.from(k.sha256, 'hex'),
      principal: Object.freeze({
        id: keyPrincipalId(k.principal),
        name: k.principal,
        roles: Object.freeze([...(k.roles ?? [])]),
        claims: Object.freeze({ sub: k.principal }),
        via: 'api-key' as const,
      }),
    }));
  }

  get size(): number {
    return this.entries.length;
  }

  /** The principal of a presented key, or undefined when no configured key matches. */
  find(presented: string): Principal | undefined {
    if (presented.length === 0 || presented.length > MAX_KEY_LENGTH) return undefined;
    const hash = createHash('sha256').update(presented, 'utf8').digest();
    let found: Principal | undefined;
    // Every entry is compared (no early exit), so the time does not depend on which one matched.
    for (const e of this.entries) if (timingSafeEqual(e.hash, hash) && !found) found = e.principal;
    return found;
  }
}

/** The hex SHA-256 of a key, as the config file wants it. */
export function apiKeyHash(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}
