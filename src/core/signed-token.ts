/**
 * Signed opaque tokens: page cursors and batch tokens are both made and checked here.
 *
 * A token is `<kind>.<key id>.<body>.<mac>`, all base64url text safe in a URL:
 * - `kind` names what the token is and its version (`p1`, `b1`). It is inside the MAC, so a token of one kind can
 *   never be relabelled as another, and a new body version gets a new kind instead of guessing from the body.
 * - `key id` names the keyring key that signed it, so the secret can rotate: one current key signs, every key in
 *   the ring verifies. A key made from a bare secret gets an id derived from a hash of the secret, so a single
 *   configured secret needs no id of its own.
 * - `body` is the JSON of the caller's body (deflated first for a kind that says so: a session's stream carries a
 *   whole request); on the way in it must match the caller's TypeBox schema, so a validly signed but malformed body
 *   (a defect elsewhere, or an older layout) is refused rather than trusted.
 * - `mac` is HMAC-SHA256 over everything before it, truncated to 132 bits (22 characters), compared in constant
 *   time.
 * Decoding never throws: it answers a fault, which each caller maps to its own coded error.
 */
import { createHash, createHmac, createSecretKey, timingSafeEqual, type KeyObject } from 'node:crypto';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { Static, TSchema } from 'typebox';
import { Value } from 'typebox/value';

/** Why a token was refused. */
export type TokenFault =
  /** Not four non-empty base64url parts, or a signed body that is not JSON. */
  | 'malformed'
  /** Longer than the kind allows (checked before anything else is read). */
  | 'oversize'
  /** Another kind of token, or another version of this one. */
  | 'kind'
  /** No key of this id in the ring, or the MAC does not match. */
  | 'signature'
  /** Signed by us, but the body does not match the schema. */
  | 'shape';

export type Opened<T> = { ok: true; body: T; keyId: string } | { ok: false; fault: TokenFault };

export interface TokenKey {
  /** 1-16 base64url characters. */
  id: string;
  secret: string;
}

const ID = /^[A-Za-z0-9_-]{1,16}$/;
const PART = /^[A-Za-z0-9_-]+$/;
const MAC_CHARS = 22;

/** The key id of a bare secret: a hash of it, so a configured secret needs no id and ids differ between secrets. */
export function keyIdOf(secret: string): string {
  return createHash('sha256').update(`topicgate token key id\0${secret}`).digest('base64url').slice(0, 8);
}

/** The keys tokens are signed and verified with: `current` signs, it and every one of `previous` verify. */
export class Keyring {
  readonly currentId: string;
  private readonly keys = new Map<string, KeyObject>();

  constructor(current: TokenKey, previous: readonly TokenKey[] = []) {
    const secrets = new Map<string, string>();
    for (const k of [current, ...previous]) {
      if (!ID.test(k.id)) throw new Error(`token key id ${JSON.stringify(k.id)} must be 1-16 base64url characters`);
      if (k.secret === '') throw new Error(`token key ${k.id} has an empty secret`);
      const seen = secrets.get(k.id);
      if (seen !== undefined && seen !== k.secret) throw new Error(`two token keys have the id ${k.id}`);
      secrets.set(k.id, k.secret);
      this.keys.set(k.id, createSecretKey(Buffer.from(k.secret, 'utf8')));
    }
    this.currentId = current.id;
  }

  /** A ring of bare secrets (ids derived from them): the first signs. */
  static fromSecrets(current: string, ...previous: string[]): Keyring {
    const key = (secret: string): TokenKey => ({ id: keyIdOf(secret), secret });
    return new Keyring(key(current), previous.map(key));
  }

  /** The MAC of `text` under the key `id` (the current key by default); null when the ring has no such key. */
  mac(text: string, id: string = this.currentId): string | null {
    const key = this.keys.get(id);
    return key ? createHmac('sha256', key).update(text).digest('base64url').slice(0, MAC_CHARS) : null;
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
  /** Bodies are deflated (raw DEFLATE) before base64url; inflating stops at `maxBytes` (a signed body is ours). */
  deflate?: { maxBytes: number };
}

/** Signs and opens the tokens of one kind. */
export class SignedTokens<S extends TSchema> {
  private readonly kind: string;

  constructor(private readonly opts: SignedTokenOptions<S>) {
    if (!/^[a-z]{1,4}\d{1,4}$/.test(opts.kind)) throw new Error(`token kind ${JSON.stringify(opts.kind)}`);
    this.kind = opts.kind;
  }

  /** The token of a body. The body is our own and is not checked here; `open` checks it. */
  seal(body: Static<S>): string {
    const keys = this.opts.keys;
    const json = Buffer.from(JSON.stringify(body));
    const packed = this.opts.deflate ? deflateRawSync(json, { level: 9 }) : json;
    const signed = `${this.kind}.${keys.currentId}.${packed.toString('base64url')}`;
    return `${signed}.${keys.mac(signed)!}`;
  }

  /** The body of a token, or why it is refused. */
  open(token: unknown): Opened<Static<S>> {
    const fail = (fault: TokenFault) => ({ ok: false, fault }) as const;
    if (typeof token !== 'string') return fail('malformed');
    if (token.length > this.opts.maxLength) return fail('oversize');
    const parts = token.split('.');
    if (parts.length !== 4 || !parts.every((p) => PART.test(p))) return fail('malformed');
    const [kind, keyId, body, sig] = parts as [string, string, string, string];
    if (kind !== this.kind) return fail('kind');
    const expected = this.opts.keys.mac(token.slice(0, token.length - sig.length - 1), keyId);
    if (expected === null) return fail('signature');
    const want = Buffer.from(expected);
    const got = Buffer.from(sig);
    // Lengths are public (the MAC's length is fixed); only the comparison of equal lengths must be constant-time.
    if (got.length !== want.length || !timingSafeEqual(got, want)) return fail('signature');
    let value: unknown;
    try {
      const packed = Buffer.from(body, 'base64url');
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
