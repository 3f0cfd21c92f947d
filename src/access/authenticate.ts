/**
 * Authentication (API.md "Access"): `X-API-Key: <key>`, or `Authorization: Bearer <key or JWT>`. Without an `auth`
 * block every caller is anonymous. A refusal is a 401 TG_UNAUTHENTICATED whose message says only what the client
 * can act on (send a credential, send one, get a new token); why a token failed goes to the log, never the token.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { ApiError } from '../core/errors.js';
import type { AuthSettings } from '../config/access-schema.js';
import { ApiKeys } from './api-keys.js';
import { JwtKeysUnavailable, JwtRefused, createJwtVerifier, type JwtOptions, type JwtVerifier } from './jwt.js';
import { ANONYMOUS, type Principal } from './principal.js';

/** A refusal, with the reason for the log (never a credential). */
export class AuthRefused extends ApiError {
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super('TG_UNAUTHENTICATED', message);
  }
}

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

export class Authenticator {
  private readonly keys: ApiKeys;
  private readonly jwt: JwtVerifier | undefined;

  constructor(
    private readonly auth: AuthSettings | undefined,
    opts: JwtOptions = {},
  ) {
    this.keys = new ApiKeys(auth?.apiKeys ?? []);
    this.jwt = auth?.jwt ? createJwtVerifier(auth.jwt, opts) : undefined;
  }

  /** Is there an `auth` block (else every caller is anonymous)? */
  get enabled(): boolean {
    return this.auth !== undefined;
  }

  /** The caller's principal; throws AuthRefused (401) or a 503 when the token keys cannot be fetched. */
  async authenticate(headers: IncomingHttpHeaders): Promise<Principal> {
    if (!this.auth) return ANONYMOUS;
    const apiKey = headers['x-api-key'];
    const authorization = headers.authorization;
    if (apiKey === undefined && authorization === undefined) {
      throw new AuthRefused('none', 'credentials are required: send Authorization: Bearer <token> or X-API-Key: <key>');
    }
    if (apiKey !== undefined && authorization !== undefined) {
      throw new AuthRefused('both', 'send one credential: Authorization or X-API-Key, not both');
    }
    if (apiKey !== undefined) {
      if (Array.isArray(apiKey)) throw new AuthRefused('several keys', 'send one X-API-Key header');
      const p = this.keys.find(apiKey.trim());
      if (!p) throw new AuthRefused('unknown key', 'the API key was not accepted');
      return p;
    }
    const m = /^Bearer[ ]+(\S+)[ ]*$/i.exec(authorization ?? '');
    if (!m) throw new AuthRefused('not bearer', 'the Authorization header must be Bearer <token>');
    const token = m[1]!;
    const p = this.keys.find(token);
    if (p) return p;
    if (!this.jwt || !JWT_SHAPE.test(token))
      throw new AuthRefused('unknown bearer', 'the bearer token was not accepted');
    try {
      return await this.jwt.verify(token);
    } catch (err) {
      if (err instanceof JwtRefused) throw new AuthRefused(err.reason, err.message);
      if (err instanceof JwtKeysUnavailable) {
        throw new ApiError('TG_AUTH_UNAVAILABLE', err.message, undefined, undefined, 5);
      }
      throw err;
    }
  }
}
