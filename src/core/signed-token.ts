/**
 * Sealed opaque tokens: page cursors, batch tokens, follow ids and session streams are all made and opened here.
 * A token is encrypted and authenticated (AES-256-GCM): its holder can neither read its body (roles, claims such
 * as a tenant id, a request) nor change a byte of it.
 *
 * A token is `<kind>.<key id>.<body>.<tag>`, all base64url text safe in a URL:
 * - `kind` names what the token is and its version (`p1`, `b1`). It is authenticated (AAD) and keys are derived per
 *   kind, so a token of one kind can never be relabelled as another, and a new body version gets a new kind
 *   instead of guessing from the body.
 * - `key id` names the keyring key that sealed it, so the secret can rotate: one current key seals, every key in
 *   the ring opens. A key made from a bare secret gets an id derived from a hash of the secret, so a single
 *   configured secret needs no id of its own. It is authenticated too.
 * - `body` is the 12-byte IV then the ciphertext of the JSON of the caller's body (deflated first for a kind that
 *   says so: a session's stream carries a whole request); once opened it must match the caller's TypeBox schema,
 *   so a validly sealed but malformed body (a defect elsewhere, or an older layout) is refused rather than trusted.
 * - `tag` is GCM's 128-bit authentication tag (22 characters).
 * Decoding never throws: it answers a fault, which each caller maps to its own coded error.
 */
import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  hkdfSync,
  timingSafeEqual,
  type KeyObject,
  createSecretKey,
} from 'node:crypto';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { Static, TSchema } from 'typebox';
import { Value } from 'typebox/value';

/** Why a token was refused. */
export type TokenFault =
  /** Not four non-empty base64url parts, or an opened body that is not JSON. */
  | 'malformed'
  /** Longer than the kind allows (checked before anything else is read). */
  | 'oversize'
  /** Another kind of token, or another version of this one. */
  | 'kind'
  /** No key of this id in the ring, or the tag (or the synthetic IV) does not match: not sealed by us, or altered. */
  | 'signature'
  /** Sealed by us, but the body does not match the schema. */
  | 'shape';

export type Opened<T> = { ok: true; body: T; keyId: string } | { ok: false; fault: TokenFault };

export interface TokenKey {
  /** 1-16 base64url characters. */
  id: string;
  secret: string;
}

const ID = /^[A-Za-z0-9_-]{1,16}$/;
const PART = /^[A-Za-z0-9_-]+$/;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** The key id of a bare secret: a hash of it, so a configured secret needs no id and ids differ between secrets. */
export function keyIdOf(secret: string): string {
  return createHash('sha256').update(`topicgate token key id\0${secret}`).digest('base64url').slice(0, 8);
}

/** The two keys of one kind under one secret: GCM's, and the HMAC key of its synthetic IV. */
export interface KindKeys {
  aead: Buffer;
  siv: KeyObject;
}

/** The keys tokens are sealed and opened with: `current` seals, it and every one of `previous` open. */
export class Keyring {
  readonly currentId: string;
  private readonly secrets = new Map<string, Buffer>();
  private readonly derived = new Map<string, KindKeys>();

  constructor(current: TokenKey, previous: readonly TokenKey[] = []) {
    const seen = new Map<string, string>();
    for (const k of [current, ...previous]) {
      if (!ID.test(k.id)) throw new Error(`token key id ${JSON.stringify(k.id)} must be 1-16 base64url characters`);
      if (k.secret === '') throw new Error(`token key ${k.id} has an empty secret`);
      const other = seen.get(k.id);
      if (other !== undefined && other !== k.secret) throw new Error(`two token keys have the id ${k.id}`);
      seen.set(k.id, k.secret);
      this.secrets.set(k.id, Buffer.from(k.secret, 'utf8'));
    }
    this.currentId = current.id;
  }

  /** A ring of bare secrets (ids derived from them): the first seals. */
  static fromSecrets(current: string, ...previous: string[]): Keyring {
    const key = (secret: string): TokenKey => ({ id: keyIdOf(secret), secret });
    return new Keyring(key(current), previous.map(key));
  }

  /**
   * The keys of tokens of `kind` under the key `id`, derived with HKDF-SHA256 (RFC 5869) from its secret, one pair
   * per kind (a key never serves two kinds); null when the ring has no such key.
   */
  keysOf(kind: string, id: string = this.currentId): KindKeys | null {
    const cached = this.derived.get(`${id}\0${kind}`);
    if (cached) return cached;
    const secret = this.secrets.get(id);
    if (!secret) return null;
    const derive = (use: string) => Buffer.from(hkdfSync('sha256', secret, 'topicgate tokens', `${kind}\0${use}`, 32));
    const keys = { aead: derive('aes-256-gcm'), siv: createSecretKey(derive('synthetic iv')) };
    this.derived.set(`${id}\0${kind}`, keys);
    return keys;
  }
}

/**
 * The IV of a plaintext: an HMAC of the kind, key id and plaintext, truncated to 96 bits (a synthetic IV, as
 * RFC 5297's SIV and AES-GCM-SIV make it). Deterministic on purpose: the same body seals to the same token, which
 * the contract needs (API.md "Cursors": reading again without committing returns the same batch, same token; page
 * cursors compare equal). GCM's rule is never to reuse an IV with two different plaintexts; an IV repeats here only
 * for the same plaintext (the same token, which tells only that two bodies are equal) or by a 96-bit collision.
 */
function syntheticIv(keys: KindKeys, aad: string, plain: Buffer): Buffer {
  return createHmac('sha256', keys.siv).update(aad).update('\0').update(plain).digest().subarray(0, IV_BYTES);
}

/** The token of `plain` (bytes: JSON, deflated or not) of `kind` under the ring's current key. */
export function sealBytes(keys: Keyring, kind: string, plain: Buffer): string {
  const k = keys.keysOf(kind)!;
  const aad = `${kind}.${keys.currentId}`;
  const iv = syntheticIv(k, aad, plain);
  const cipher = createCipheriv('aes-256-gcm', k.aead, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(Buffer.from(aad));
  const text = Buffer.concat([iv, cipher.update(plain), cipher.final()]);
  return `${aad}.${text.toString('base64url')}.${cipher.getAuthTag().toString('base64url')}`;
}

/** The plaintext of a token's body and tag, or null when no key of `keyId` opens it unaltered. */
function openBytes(keys: Keyring, kind: string, keyId: string, body: string, tag: string): Buffer | null {
  const k = keys.keysOf(kind, keyId);
  const text = Buffer.from(body, 'base64url');
  const mac = Buffer.from(tag, 'base64url');
  // Base64url text whose last character carries unused bits decodes like another: only the canonical text opens.
  const canonical = text.toString('base64url') === body && mac.toString('base64url') === tag;
  if (!k || !canonical || text.length < IV_BYTES || mac.length !== TAG_BYTES) return null;
  const aad = `${kind}.${keyId}`;
  const iv = text.subarray(0, IV_BYTES);
  try {
    const decipher = createDecipheriv('aes-256-gcm', k.aead, iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(aad));
    decipher.setAuthTag(mac);
    const plain = Buffer.concat([decipher.update(text.subarray(IV_BYTES)), decipher.final()]);
    // The IV must be the one its plaintext makes: the tag already vouches for it, this keeps the construction SIV.
    return timingSafeEqual(syntheticIv(k, aad, plain), iv) ? plain : null;
  } catch {
    return null;
  }
}

export interface SignedTokenOptions<S extends TSchema> {
  /** Kind and version, e.g. `p1`: lowercase letters then digits. */
  kind: string;
  /** The body's shape, checked on every decode. */
  schema: S;
  /** Longest token accepted, in characters. */
  maxLength: number;
  keys: Keyring;
  /** Bodies are deflated (raw DEFLATE) before sealing; inflating stops at `maxBytes` (a sealed body is ours). */
  deflate?: { maxBytes: number };
}

/** Seals and opens the tokens of one kind. */
export class SignedTokens<S extends TSchema> {
  private readonly kind: string;

  constructor(private readonly opts: SignedTokenOptions<S>) {
    if (!/^[a-z]{1,4}\d{1,4}$/.test(opts.kind)) throw new Error(`token kind ${JSON.stringify(opts.kind)}`);
    this.kind = opts.kind;
  }

  /** The token of a body. The body is our own and is not checked here; `open` checks it. */
  seal(body: Static<S>): string {
    const json = Buffer.from(JSON.stringify(body));
    // Compressed before encryption: a body holds only what its own caller sent or was given, never another's secret
    // beside text an attacker chooses, so the length tells nothing a compression oracle could use.
    return sealBytes(this.opts.keys, this.kind, this.opts.deflate ? deflateRawSync(json, { level: 9 }) : json);
  }

  /** The body of a token, or why it is refused. */
  open(token: unknown): Opened<Static<S>> {
    const fail = (fault: TokenFault) => ({ ok: false, fault }) as const;
    if (typeof token !== 'string') return fail('malformed');
    if (token.length > this.opts.maxLength) return fail('oversize');
    const parts = token.split('.');
    if (parts.length !== 4 || !parts.every((p) => PART.test(p))) return fail('malformed');
    const [kind, keyId, body, tag] = parts as [string, string, string, string];
    if (kind !== this.kind) return fail('kind');
    const packed = openBytes(this.opts.keys, kind, keyId, body, tag);
    if (packed === null) return fail('signature');
    let value: unknown;
    try {
      const { deflate } = this.opts;
      const json = deflate ? inflateRawSync(packed, { maxOutputLength: deflate.maxBytes }) : packed;
      value = JSON.parse(json.toString('utf8'));
    } catch {
      return fail('malformed');
    }
    if (!Value.Check(this.opts.schema, value)) return fail('shape');
    return { ok: true, body: value, keyId };
  }
}
