/**
 * The signed-token module (src/query/signed-token.ts) that page cursors and batch tokens share: the layout is
 * pinned by an HMAC computed here independently, and every defect is refused with its own fault.
 */
import { createHash, createHmac } from 'node:crypto';
import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { Keyring, SignedTokens, keyIdOf, type TokenFault } from '../../src/core/signed-token.js';

const Body = Type.Object({ n: Type.Integer({ minimum: 0 }), s: Type.String() }, { additionalProperties: false });
const tokensOf = (keys: Keyring, kind = 'x1', maxLength = 256) =>
  new SignedTokens({ kind, schema: Body, maxLength, keys });

const ring = Keyring.fromSecrets('secret-a');
const tokens = tokensOf(ring);
const body = { n: 7, s: 'seven' };
const good = tokens.seal(body);
const [kind, kid, text, sig] = good.split('.') as [string, string, string, string];

/** An HMAC-SHA256 token made here, without the module: the layout the module must keep. */
function handMade(secret: string, payload: string, k = 'x1', id = keyIdOf(secret)): string {
  const signed = `${k}.${id}.${Buffer.from(payload).toString('base64url')}`;
  return `${signed}.${createHmac('sha256', secret).update(signed).digest('base64url').slice(0, 22)}`;
}

const fault = (t: unknown, s: SignedTokens<typeof Body> = tokens): TokenFault | 'ok' => {
  const r = s.open(t);
  return r.ok ? 'ok' : r.fault;
};

describe('SignedTokens', () => {
  it('round-trips a body, in URL-safe text that does not show it', () => {
    expect(good).toMatch(/^x1\.[A-Za-z0-9_-]{8}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/);
    expect(encodeURIComponent(good)).toBe(good);
    expect(good).not.toContain('seven');
    expect(tokens.open(good)).toEqual({ ok: true, body, keyId: keyIdOf('secret-a') });
  });

  it('is HMAC-SHA256 over kind, key id and body, the key id a hash of the secret', () => {
    expect(good).toBe(handMade('secret-a', JSON.stringify(body)));
    expect(kid).toBe(createHash('sha256').update('topicgate token key id\0secret-a').digest('base64url').slice(0, 8));
    expect(keyIdOf('secret-b')).not.toBe(kid);
  });

  const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);
  const reencoded = Buffer.from(JSON.stringify({ n: 8, s: 'seven' })).toString('base64url');
  // [label, token, fault]
  const CASES: [string, unknown, TokenFault][] = [
    ['not a string', 42, 'malformed'],
    ['empty', '', 'malformed'],
    ['three parts', `${kind}.${kid}.${text}`, 'malformed'],
    ['five parts', `${good}.x`, 'malformed'],
    ['an empty part', `${kind}..${text}.${sig}`, 'malformed'],
    ['a character outside base64url', `${kind}.${kid}.${text}=.${sig}`, 'malformed'],
    ['signed, but not JSON', handMade('secret-a', '{"n":'), 'malformed'],
    ['one character over the cap', `${kind}.${kid}.${text}${'A'.repeat(257 - good.length)}.${sig}`, 'oversize'],
    ['far over the cap', 'A'.repeat(100_000), 'oversize'],
    ['another kind', `y1.${kid}.${text}.${sig}`, 'kind'],
    ['another version of the kind', `x2.${kid}.${text}.${sig}`, 'kind'],
    ['another kind, correctly signed', handMade('secret-a', JSON.stringify(body), 'y1'), 'kind'],
    ['a body byte changed', `${kind}.${kid}.${flip(text, 3)}.${sig}`, 'signature'],
    ['a body re-encoded', `${kind}.${kid}.${reencoded}.${sig}`, 'signature'],
    ['a signature byte changed', `${kind}.${kid}.${text}.${flip(sig, 21)}`, 'signature'],
    ['a signature one character short', `${kind}.${kid}.${text}.${sig.slice(1)}`, 'signature'],
    ['a signature one character long', `${good}A`, 'signature'],
    ['signed by another key', tokensOf(Keyring.fromSecrets('secret-b')).seal(body), 'signature'],
    ['another key under this key id', handMade('secret-b', JSON.stringify(body), 'x1', kid), 'signature'],
    ['an unknown key id', `${kind}.${flip(kid, 0)}.${text}.${sig}`, 'signature'],
    ['signed, a field of the wrong type', handMade('secret-a', '{"n":"7","s":"seven"}'), 'shape'],
    ['signed, a field missing', handMade('secret-a', '{"n":7}'), 'shape'],
    ['signed, a field too many', handMade('secret-a', '{"n":7,"s":"seven","admin":true}'), 'shape'],
    ['signed, a negative count', handMade('secret-a', '{"n":-1,"s":"seven"}'), 'shape'],
    ['signed, not an object', handMade('secret-a', '[7,"seven"]'), 'shape'],
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
  it('a rotated key still verifies what it signed, while the new key signs', () => {
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

  it('answers null for a key it does not hold', () => {
    expect(ring.mac('text', 'nope')).toBeNull();
    expect(ring.mac('text')).toBe(ring.mac('text', kid));
  });
});
