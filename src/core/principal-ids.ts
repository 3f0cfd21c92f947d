/**
 * How principals are named: by how they authenticated, so that ids of different kinds never
 * coincide. `key:<principal>` for an API key (its `principal` in the config), `jwt:<issuer>:<claim>` for a bearer
 * token (the configured issuer, which the token's `iss` must equal, and the principal claim's value), `anonymous`
 * for no credentials. access/principal.ts gives every caller its id; cursors (cursors/cursor-keys.ts) and read
 * sessions store it.
 */

export const ANONYMOUS_ID = 'anonymous';

/** The id of an API key's principal. */
export function keyPrincipalId(name: string): string {
  return `key:${name}`;
}

/** The id of a bearer token's principal. */
export function jwtPrincipalId(issuer: string, name: string): string {
  return `jwt:${issuer}:${name}`;
}

/**
 * Whom something stored before ids existed belongs to, from the bare name it was stored with: an API key of that
 * name (only the operator's configuration could be sure to give a name), or `anonymous` for the open gateway's
 * caller; never a token whose claim repeats the name.
 */
export function legacyOwnerId(bare: string): string {
  return bare === ANONYMOUS_ID ? ANONYMOUS_ID : keyPrincipalId(bare);
}
