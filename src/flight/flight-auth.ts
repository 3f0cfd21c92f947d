/**
 * Who a Flight call is (API.md "Flight SQL", credentials), decided by the same authenticator as the REST API's
 * (access/authenticate.ts, the access in force): `authorization: Bearer <API key or JWT>` on each call, or the bearer
 * token a Handshake answered.
 *
 * The Handshake takes Basic `<principal>:<API key>` and answers `authorization: Bearer <token>` in its response
 * headers, as ADBC and pyarrow's `authenticate_basic_token` read it. The token is the credential sealed
 * (core/signed-token.ts, kind `fh1`: encrypted and authenticated under the gateway's keyring) with an expiry. It is
 * not the key itself, so the key is never sent back or held by the client beyond the handshake; and each call
 * opens it and authenticates the credential inside again, so a key removed by a reload of the access blocks stops
 * working at once, and the token dies at its expiry (or its JWT's) without any state on any instance.
 */
import type { Metadata } from '@grpc/grpc-js';
import { Type } from 'typebox';
import { AuthRefused, type Authenticator } from '../access/authenticate.js';
import type { Principal } from '../access/principal.js';
import { SignedTokens, type Keyring } from '../core/signed-token.js';

/** How long a handshake's bearer token is accepted. */
export const HANDSHAKE_TOKEN_MS = 60 * 60 * 1000;

const HandshakeBody = Type.Object({
  /** The credential the handshake proved (an API key). */
  k: Type.String({ maxLength: 512 }),
  /** Accepted until, epoch ms. */
  exp: Type.Integer(),
});

/** The bearer tokens a Handshake answers. */
export class HandshakeTokens {
  private readonly tokens: SignedTokens<typeof HandshakeBody>;

  constructor(keys: Keyring) {
    this.tokens = new SignedTokens({ kind: 'fh1', schema: HandshakeBody, maxLength: 1024, keys });
  }

  seal(credential: string, now = Date.now()): string {
    return this.tokens.seal({ k: credential, exp: now + HANDSHAKE_TOKEN_MS });
  }

  /** The credential inside a token of ours; null for any other bearer (a key, a JWT); refused when expired or forged. */
  open(bearer: string, now = Date.now()): string | null {
    if (!bearer.startsWith('fh1.')) return null;
    const opened = this.tokens.open(bearer);
    if (!opened.ok) throw new AuthRefused(`handshake token ${opened.fault}`, 'the bearer token was not accepted');
    if (opened.body.exp <= now)
      throw new AuthRefused('handshake token expired', 'the bearer token has expired: handshake again');
    return opened.body.k;
  }
}

/** The one value of a metadata key, or undefined; several values are refused (as several headers are). */
function single(metadata: Metadata, key: string): string | undefined {
  const values = metadata.get(key);
  if (values.length > 1) throw new AuthRefused(`several ${key}`, `send one ${key} header`);
  const v = values[0];
  return v === undefined ? undefined : String(v);
}

/** The caller of a call: its `authorization` (or `x-api-key`) checked by the authenticator in force. */
export async function authenticateCall(
  authenticator: Authenticator,
  tokens: HandshakeTokens,
  metadata: Metadata,
): Promise<Principal> {
  const authorization = single(metadata, 'authorization');
  const apiKey = single(metadata, 'x-api-key');
  const bearer = /^Bearer[ ]+(\S+)[ ]*$/i.exec(authorization ?? '')?.[1];
  const inside = bearer === undefined ? null : tokens.open(bearer);
  if (inside !== null) return authenticator.authenticate({ authorization: `Bearer ${inside}` });
  return authenticator.authenticate({
    ...(authorization !== undefined && { authorization }),
    ...(apiKey !== undefined && { 'x-api-key': apiKey }),
  });
}

/**
 * A Handshake's caller and the bearer token to answer: Basic `<principal>:<API key>` (the key must be that
 * principal's), or a bearer credential, which is checked and answered as sent.
 */
export async function handshake(
  authenticator: Authenticator,
  tokens: HandshakeTokens,
  metadata: Metadata,
): Promise<{ principal: Principal; bearer: string }> {
  const authorization = single(metadata, 'authorization') ?? '';
  const basic = /^Basic[ ]+([A-Za-z0-9+/=]+)[ ]*$/i.exec(authorization)?.[1];
  if (basic === undefined) {
    const principal = await authenticateCall(authenticator, tokens, metadata);
    const bearer = /^Bearer[ ]+(\S+)/i.exec(authorization)?.[1];
    return { principal, bearer: bearer ?? tokens.seal('') };
  }
  const text = Buffer.from(basic, 'base64').toString('utf8');
  const colon = text.indexOf(':');
  const [name, key] = colon < 0 ? [text, ''] : [text.slice(0, colon), text.slice(colon + 1)];
  if (!authenticator.enabled) return { principal: await authenticator.authenticate({}), bearer: tokens.seal('') };
  if (!key) throw new AuthRefused('basic without key', 'the handshake needs Basic <principal>:<API key>');
  const principal = await authenticator.authenticate({ authorization: `Bearer ${key}` });
  // The key must be the named principal's (without an `auth` block every caller is anonymous, answered above).
  if (principal.name !== name) throw new AuthRefused('basic principal mismatch', 'the API key was not accepted');
  return { principal, bearer: tokens.seal(key) };
}
