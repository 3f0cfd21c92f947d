/**
 * The token module (src/core/signed-token.ts) that every token kind shares: the layout is pinned by an AES-256-GCM
 * token made here independently (HKDF keys, a synthetic IV), a body is not readable in the token's text, and every
 * defect (any byte changed) is refused with its own fault.
 */
import { createCipheriv, createHash, createHmac, hkdfSync } from 'node:crypto';
import { inflateRawSync } from 'node:zlib';
import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { Keyring, SignedTokens, keyIdOf, sealBytes, type TokenFault } from '../../src/core/signed-token.js';

const Body = Type.Object(
  { n: Type.Integer({ minimum: 0 }), s: Type.String(), r: Type.Optional(Type.Array(Type.String())) },
  { additionalProperties: false },
);
const tokensOf = (keys: Keyring, kind = 'x1', maxLength = 256, deflate = false) =>
  new SignedTokens({ kind, schema: Body, maxLength, keys, ...(deflate ? { deflate: { maxBytes: 4096 } } : {}) });

const ring = Keyring.fromSecrets('secret-a');
const tokens = tokensOf(ring);
const body = { n: 7, s: 'seven' };
const good = tokens.seal(body);
const [kind, kid, text, tag] = good.split('.') as [string, string, string, string];

/** An AES-256-GCM token made here, without the module: the layout the module must keep. */
function handMade(secret: string, payload: string, k = 'x1', id = keyIdOf(secret)): string {
  const derive = (use: string) => Buffer.from(hkdfSync('sha256', secret, 'topicgate tokens', `${k}\0${use}`, 32));
  const aad = `${k}.${id}`;
  const iv = createHmac('sha256', derive('synthetic iv')).update(`${aad}\0${payload}`).digest().subarray(0, 12);
  const c = createCipheriv('aes-256-gcm', derive('aes-256-gcm'), iv);
  c.setAAD(Buffer.from(aad));
  const sealed = Buffer.concat([iv, c.update(payload), c.final()]);
  return `${aad}.${sealed.toString('base64url')}.${c.getAuthTag().toString('base64url')}`;
}

const fault = (t: unknown, s: SignedTokens<typeof Body> = tokens): TokenFault | 'ok' => {
  const r = s.open(t);
  return r.ok ? 'ok' : r.fault;
};

/** Everything a holder can read from a token's text: each part decoded, raw and inflated. */
function readable(token: string): string {
  const out: string[] = [token];
  for (const part of token.split('.')) {
    const bytes = Buffer.from(part, 'base64url');
    out.push(bytes.toString('utf8'), bytes.toString('latin1'));
    for (const at of [0, 12]) {
      try {
        out.push(inflateRawSync(bytes.subarray(at)).toString('utf8'));
      } catch {
        // not deflated from here
      }
    }
  }
  return out.join('\n');
}

describe('SignedTokens', () => {
  it('round-trips a body, in URL-safe text', () => {
    expect(good).toMatch(/^x1\.[A-Za-z0-9_-]{8}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/);
    expect(encodeURIComponent(good)).toBe(good);
    expect(tokens.open(good)).toEqual({ ok: true, body, keyId: keyIdOf('secret-a') });
  });

  it('hides the body: a claim value or a role is not readable in the token, deflated or not', () => {
    const secretish = { n: 1, s: 'tenant-acme-0042', r: ['payments-admin'] };
    for (const deflate of [false, true]) {
      const token = tokensOf(ring, 'x1', 1024, deflate).seal(secretish);
      const shown = readable(token);
      expect(shown).not.toContain('tenant-acme-0042');
      expect(shown).not.toContain('payments-admin');
      expect(shown).not.toContain('"n"');
      expect(tokensOf(ring, 'x1', 1024, deflate).open(token)).toMatchObject({ ok: true, body: secretish });
    }
  });

  it('is deterministic (the same body, the same token) and tells apart bodies that differ', () => {
    expect(tokens.seal({ n: 7, s: 'seven' })).toBe(good);
    const other = tokens.seal({ n: 8, s: 'seven' });
    expect(other).not.toBe(good);
    // Different plaintexts never share an IV (GCM's one rule).
    expect(other.split('.')[2]!.slice(0, 16)).not.toBe(text.slice(0, 16));
  });

  it('is AES-256-GCM under HKDF keys per kind with a synthetic IV, the key id a hash of the secret', () => {
    expect(good).toBe(handMade('secret-a', JSON.stringify(body)));
    expect(kid).toBe(createHash('sha256').update('topicgate token key id\0secret-a').digest('base64url').slice(0, 8));
    expect(keyIdOf('secret-b')).not.toBe(kid);
    // Another kind of the same body is another ciphertext: its keys are its own.
    expect(sealBytes(ring, 'y1', Buffer.from(JSON.stringify(body))).split('.')[2]).not.toBe(text);
  });

  it('refuses a token with any one character changed, wherever it is', () => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    for (let i = 0; i < good.length; i++) {
      if (good[i] === '.') continue;
      for (const c of [
        alphabet[(alphabet.indexOf(good[i]!) + 1) % 64]!,
        alphabet[(alphabet.indexOf(good[i]!) + 32) % 64]!,
      ]) {
        const altered = good.slice(0, i) + c + good.slice(i + 1);
        expect(fault(altered), `character ${i} -> ${c}`).not.toBe('ok');
      }
    }
  });

  const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);
  // [label, token, fault]
  const CASES: [string, unknown, TokenFault][] = [
    ['not a string', 42, 'malformed'],
    ['empty', '', 'malformed'],
    ['three parts', `${kind}.${kid}.${text}`, 'malformed'],
    ['five parts', `${good}.x`, 'malformed'],
    ['an empty part', `${kind}..${text}.${tag}`, 'malformed'],
    ['a character outside base64url', `${kind}.${kid}.${text}=.${tag}`, 'malformed'],
    ['sealed, but not JSON', handMade('secret-a', '{"n":'), 'malformed'],
    ['one character over the cap', `${kind}.${kid}.${text}${'A'.repeat(257 - good.length)}.${tag}`, 'oversize'],
    ['far over the cap', 'A'.repeat(100_000), 'oversize'],
    ['another kind', `y1.${kid}.${text}.${tag}`, 'kind'],
    ['another version of the kind', `x2.${kid}.${text}.${tag}`, 'kind'],
    ['another kind, correctly sealed', handMade('secret-a', JSON.stringify(body), 'y1'), 'kind'],
    ['a body byte changed', `${kind}.${kid}.${flip(text, 20)}.${tag}`, 'signature'],
    ['an IV byte changed', `${kind}.${kid}.${flip(text, 3)}.${tag}`, 'signature'],
    [
      'a body in plain base64url',
      `${kind}.${kid}.${Buffer.from(JSON.stringify(body)).toString('base64url')}.${tag}`,
      'signature',
    ],
    ['a body shorter than an IV', `${kind}.${kid}.AAAA.${tag}`, 'signature'],
    ['a tag byte changed', `${kind}.${kid}.${text}.${flip(tag, 0)}`, 'signature'],
    ['the unused bits of the last tag character', `${kind}.${kid}.${text}.${flip(tag, 21)}`, 'signature'],
    ['a tag one character short', `${kind}.${kid}.${text}.${tag.slice(1)}`, 'signature'],
    ['a tag one character long', `${good}A`, 'signature'],
    ['sealed by another key', tokensOf(Keyring.fromSecrets('secret-b')).seal(body), 'signature'],
    ['another key under this key id', handMade('secret-b', JSON.stringify(body), 'x1', kid), 'signature'],
    ['an unknown key id', `${kind}.${flip(kid, 0)}.${text}.${tag}`, 'signature'],
    ['sealed, a field of the wrong type', handMade('secret-a', '{"n":"7","s":"seven"}'), 'shape'],
    ['sealed, a field missing', handMade('secret-a', '{"n":7}'), 'shape'],
    ['sealed, a field too many', handMade('secret-a', '{"n":7,"s":"seven","admin":true}'), 'shape'],
    ['sealed, a negative count', handMade('secret-a', '{"n":-1,"s":"seven"}'), 'shape'],
    ['sealed, not an object', handMade('secret-a', '[7,"seven"]'), 'shape'],
  ];
  it.each(CASES)('%s -> %s', (_label, token, want) => {
    expect(fault(token)).toBe(want);
  });

  it('accepts a token exactly at the cap', () => {
    expect(fault(good, tokensOf(ring, 'x1', good.length))).toBe('ok');
    expect(fault(good, tokensOf(ring, 'x1', good.length - 1))).toBe('oversize');
  });

  it('refuses a kind that is not letters then digits', () => {
    for (const k of ['', 'x', '1', 'X1', 'x.1', 'xxxxx1']) expect(() => tokensOf(ring, k), k).toThrow(/token kind/);
  });
});

describe('Keyring', () => {
  it('a rotated key still opens what it sealed, while the new key seals', () => {
    const before = tokensOf(Keyring.fromSecrets('old'));
    const after = tokensOf(Keyring.fromSecrets('new', 'old'));
    const oldToken = before.seal(body);
    expect(after.open(oldToken)).toEqual({ ok: true, body, keyId: keyIdOf('old') });
    const newToken = after.seal(body);
    expect(newToken.split('.')[1]).toBe(keyIdOf('new'));
    expect(after.open(newToken)).toEqual({ ok: true, body, keyId: keyIdOf('new') });
    // Once the old key is retired, its tokens are refused; the old ring never knew the new key.
    expect(fault(oldToken, tokensOf(Keyring.fromSecrets('new')))).toBe('signature');
    expect(fault(newToken, before)).toBe('signature');
  });

  it('takes explicit key ids', () => {
    const keys = new Keyring({ id: '2026-11', secret: 'november' }, [{ id: '2026-10', secret: 'october' }]);
    const oct = tokensOf(new Keyring({ id: '2026-10', secret: 'october' })).seal(body);
    expect(oct.split('.')[1]).toBe('2026-10');
    expect(tokensOf(keys).open(oct)).toMatchObject({ ok: true, keyId: '2026-10' });
    expect(tokensOf(keys).seal(body).split('.')[1]).toBe('2026-11');
  });

  it('refuses bad ids, empty secrets and two secrets under one id', () => {
    expect(() => new Keyring({ id: 'a.b', secret: 's' })).toThrow(/key id/);
    expect(() => new Keyring({ id: '', secret: 's' })).toThrow(/key id/);
    expect(() => new Keyring({ id: 'x'.repeat(17), secret: 's' })).toThrow(/key id/);
    expect(() => new Keyring({ id: 'k', secret: '' })).toThrow(/empty secret/);
    expect(() => new Keyring({ id: 'k', secret: 's' }, [{ id: 'k', secret: 't' }])).toThrow(/two token keys/);
    expect(() => Keyring.fromSecrets('same', 'same')).not.toThrow();
  });

  it('answers null for a key it does not hold, and one pair of keys per kind', () => {
    expect(ring.keysOf('x1', 'nope')).toBeNull();
    expect(ring.keysOf('x1')).toBe(ring.keysOf('x1', kid));
    expect(ring.keysOf('x1')!.aead.equals(ring.keysOf('y1')!.aead)).toBe(false);
  });
});
