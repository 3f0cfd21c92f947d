/**
 * JWT bearer tokens (API.md "Access", `auth.jwt`), verified with jose. The key comes from one of:
 * - `jwksUrl`: fetched, cached, and fetched again when a token names a `kid` the cache lacks (so a key rotation
 *   at the identity provider needs no restart);
 * - `publicKeyFile`: a PEM public key (or certificate);
 * - `secretFile`: an HS256 secret of at least 32 bytes.
 * Algorithms are pinned by the kind of key: HS256 only for a secret, asymmetric ones only for public keys and
 * JWKS. So `alg: none` is refused, and so is a token signed with HS256 using a public key's text as the secret
 * (algorithm confusion). `iss`, `aud` and `exp` are required and checked, with a small clock tolerance.
 */
import { createPublicKey, type KeyObject } from 'node:crypto';
import { createRemoteJWKSet, errors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { readSecretFile, SecretFileError } from '../core/secret-file.js';
import { ConfigError } from '../config/config.js';
import type { JwtSettings } from '../config/access-schema.js';
import { jwtPrincipalId } from '../core/principal-ids.js';
import type { Principal } from './principal.js';
import { claimValue } from './row-filter.js';

const RSA = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512'];
const EC_BY_CURVE: Record<string, string> = { prime256v1: 'ES256', secp384r1: 'ES384', secp521r1: 'ES512' };
/** Every algorithm a JWKS key may be used with: asymmetric only, so a symmetric key published there is never used. */
const ASYMMETRIC = [...RSA, 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];
/** A token is a header line, not a document: anything longer is refused before parsing. */
const MAX_TOKEN_LENGTH = 16_384;

/** The token is not acceptable; `reason` is for the log (never the token), `message` for the client. */
export class JwtRefused extends Error {
  constructor(
    readonly reason: string,
    message = 'the bearer token was not accepted',
  ) {
    super(message);
    this.name = 'JwtRefused';
  }
}

/** The keys cannot be fetched from the identity provider right now: not the client's fault. */
export class JwtKeysUnavailable extends Error {
  constructor(readonly reason: string) {
    super('the keys that verify bearer tokens cannot be fetched right now');
    this.name = 'JwtKeysUnavailable';
  }
}

export interface JwtVerifier {
  verify(token: string): Promise<Principal>;
}

export interface JwtOptions {
  /** Least time between two JWKS fetches (an unknown kid within it is refused without a fetch). */
  jwksCooldownMs?: number;
  /** Longest a fetched JWKS is trusted before it is fetched again. */
  jwksMaxAgeMs?: number;
  jwksTimeoutMs?: number;
  /** Where the config came from, for start-up problems. */
  configFile?: string;
}

type Key = { key: KeyObject | Uint8Array | JWTVerifyGetKey; algorithms: string[] };

function publicKeyAlgorithms(key: KeyObject): string[] | undefined {
  switch (key.asymmetricKeyType) {
    case 'rsa':
      return RSA;
    case 'rsa-pss':
      return RSA.filter((a) => a.startsWith('PS'));
    case 'ec': {
      const alg = EC_BY_CURVE[key.asymmetricKeyDetails?.namedCurve ?? ''];
      return alg ? [alg] : undefined;
    }
    case 'ed25519':
      return ['EdDSA', 'Ed25519'];
    default:
      return undefined;
  }
}

function loadKey(s: JwtSettings, opts: JwtOptions): Key {
  const where = (field: string) => `TOPICGATE_CONFIG=${opts.configFile ?? '(config)'}: auth.jwt.${field}`;
  const read = (field: 'publicKeyFile' | 'secretFile', path: string): Buffer => {
    try {
      return readSecretFile(where(field), path, { multiline: field === 'publicKeyFile' });
    } catch (err) {
      if (err instanceof SecretFileError) throw new ConfigError([err.message]);
      throw err;
    }
  };
  if (s.secretFile !== undefined) {
    const bytes = read('secretFile', s.secretFile);
    if (bytes.length < 32) {
      throw new ConfigError([`${where('secretFile')}: the secret has ${bytes.length} bytes; HS256 needs at least 32`]);
    }
    return { key: new Uint8Array(bytes), algorithms: ['HS256'] };
  }
  if (s.publicKeyFile !== undefined) {
    let key: KeyObject;
    try {
      key = createPublicKey(read('publicKeyFile', s.publicKeyFile));
    } catch (err) {
      if (err instanceof ConfigError) throw err;
      throw new ConfigError([`${where('publicKeyFile')}: not a PEM public key or certificate`]);
    }
    const algorithms = publicKeyAlgorithms(key);
    if (!algorithms)
      throw new ConfigError([`${where('publicKeyFile')}: use an RSA, EC (P-256/384/521) or Ed25519 key`]);
    return { key, algorithms };
  }
  if (s.jwksUrl === undefined)
    throw new ConfigError([`${where('jwksUrl')}: name jwksUrl, publicKeyFile or secretFile`]);
  const jwks = createRemoteJWKSet(new URL(s.jwksUrl), {
    cooldownDuration: opts.jwksCooldownMs ?? 30_000,
    cacheMaxAge: opts.jwksMaxAgeMs ?? 600_000,
    timeoutDuration: opts.jwksTimeoutMs ?? 5_000,
  });
  // A failure to fetch the key set is the provider's, not the token's: told apart so it is not a 401.
  const getKey: JWTVerifyGetKey = async (header, token) => {
    try {
      return await jwks(header, token);
    } catch (err) {
      if (
        err instanceof errors.JWKSNoMatchingKey ||
        err instanceof errors.JWKSMultipleMatchingKeys ||
        err instanceof errors.JOSENotSupported ||
        err instanceof errors.JOSEAlgNotAllowed
      ) {
        throw err;
      }
      throw new JwtKeysUnavailable(err instanceof errors.JOSEError ? err.code : 'fetch failed');
    }
  };
  return { key: getKey, algorithms: ASYMMETRIC };
}

function principalOf(payload: JWTPayload, s: JwtSettings): Principal {
  const name = claimValue(payload, s.principalClaim ?? 'sub');
  if (typeof name !== 'string' || name.length === 0 || name.length > 256) {
    throw new JwtRefused('no principal claim');
  }
  const raw = claimValue(payload, s.rolesClaim ?? 'roles');
  // Roles as a list, or as one space-separated string (the way `scope` is written).
  const roles = Array.isArray(raw)
    ? raw.filter((r): r is string => typeof r === 'string')
    : typeof raw === 'string'
      ? raw.split(/\s+/).filter(Boolean)
      : [];
  return Object.freeze({
    // The configured issuer: jose checked that the token's `iss` is exactly it.
    id: jwtPrincipalId(s.issuer, name),
    name,
    roles: Object.freeze(roles),
    claims: Object.freeze({ ...payload }),
    via: 'jwt' as const,
  });
}

/** Builds the verifier; a key file that cannot be used is a ConfigError naming it. */
export function createJwtVerifier(s: JwtSettings, opts: JwtOptions = {}): JwtVerifier {
  const { key, algorithms } = loadKey(s, opts);
  const options = {
    algorithms,
    issuer: s.issuer,
    audience: s.audience,
    clockTolerance: s.clockToleranceSeconds ?? 30,
    requiredClaims: ['exp', 'iss', 'aud'],
  };
  return {
    async verify(token) {
      if (token.length > MAX_TOKEN_LENGTH) throw new JwtRefused('too long');
      try {
        const { payload } = await jwtVerify(token, key as KeyObject, options);
        return principalOf(payload, s);
      } catch (err) {
        if (err instanceof JwtRefused || err instanceof JwtKeysUnavailable) throw err;
        if (err instanceof errors.JWTExpired) throw new JwtRefused(err.code, 'the bearer token has expired');
        if (err instanceof errors.JWTClaimValidationFailed) throw new JwtRefused(`${err.code}:${err.claim}`);
        if (err instanceof errors.JOSEError) throw new JwtRefused(err.code);
        throw new JwtRefused('malformed');
      }
    },
  };
}
