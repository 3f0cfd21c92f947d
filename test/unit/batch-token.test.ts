/**
 * Batch tokens (src/cursors/batch-token.ts): signed like page cursors but never interchangeable with them, and
 * their body checked field by field on commit, as page cursors are.
 */
import { describe, expect, it } from 'vitest';
import { BatchTokens, batchId, type BatchBody } from '../../src/cursors/batch-token.js';
import { PageTokens } from '../../src/query/page-tokens.js';
import { queryHash } from '../../src/query/passes/paging.js';
import { Keyring, sealBytes } from '../../src/core/signed-token.js';
import { refusal } from '../cases/api-error.js';

const SECRET = 'test-secret';
const tokens = new BatchTokens(SECRET);
const BODY: BatchBody = {
  c: 'orders-loader',
  i: '2f1c6a3e-8d4b-4c1e-9a7f-0b5d3e2a1c94',
  g: 2,
  f: { ts: null, skip: 0 },
  t: { ts: '2026-11-30 07:59:00.123', skip: 3 },
  u: '2026-11-30 08:00:00.000',
  n: 10,
};

/** A token sealed with the service's own key around any body: what a defect elsewhere could issue. */
function signed(body: object): string {
  return sealBytes(Keyring.fromSecrets(SECRET), 'b1', Buffer.from(JSON.stringify(body)));
}

const REFUSED = ['TG_BAD_BATCH', 400, 'batch: not a batch token this service issued'];

describe('BatchTokens', () => {
  it('round-trips a body; the id is a stable hash of the token', () => {
    const { token, id } = tokens.seal(BODY);
    expect(token).toMatch(/^b1\.[A-Za-z0-9_-]{8}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/);
    expect(tokens.open(token)).toEqual(BODY);
    expect(id).toBe(batchId(token));
    expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(tokens.seal(BODY).token).toBe(token);
    expect(signed(BODY)).toBe(token);
  });

  it('the longest body makes a token well under the 1024-character cap', () => {
    const ts = '2026-11-30 07:59:00.123456789012';
    const n = Number.MAX_SAFE_INTEGER;
    const longest = { c: 'c'.repeat(128), i: 'i'.repeat(64), g: n, f: { ts, skip: n }, t: { ts, skip: n }, u: ts, n };
    const t = tokens.seal(longest).token;
    expect(tokens.open(t)).toEqual(longest);
    expect(t.length).toBeLessThan(800);
  });

  it('a token signed by a key kept in the ring for rotation still opens', () => {
    const { token } = tokens.seal(BODY);
    const rotated = new BatchTokens(Keyring.fromSecrets('next-secret', SECRET));
    expect(rotated.open(token)).toEqual(BODY);
    expect(rotated.valid(token)).toBe(true);
    expect(new BatchTokens('next-secret').valid(token)).toBe(false);
  });

  it('a page cursor is not a batch token, and a batch token is not a page cursor', () => {
    const page = new PageTokens(SECRET).encode({ h: queryHash({}), m: 'offset', s: 0 });
    expect(refusal(() => tokens.open(page))).toEqual(REFUSED);
    const batch = tokens.seal(BODY).token;
    expect(refusal(() => new PageTokens(SECRET).decode(batch, queryHash({})))).toEqual([
      'TG_BAD_CURSOR',
      400,
      'cursor: not a page cursor',
    ]);
  });

  const { token } = tokens.seal(BODY);
  const [, , text, sig] = token.split('.') as [string, string, string, string];
  // [label, token]
  const BAD: [string, unknown][] = [
    ['not a string', 7],
    ['garbage', 'garbage'],
    ['the two-part form of before', `${text}.${sig}`],
    ['signed by another secret', new BatchTokens('other').seal(BODY).token],
    [
      'a body of another cursor under this signature',
      `${signed({ ...BODY, c: 'x' })
        .split('.')
        .slice(0, 3)
        .join('.')}.${sig}`,
    ],
    ['over 1024 characters', `b1.${'A'.repeat(1024)}.${text}.${sig}`],
    // Signed with the service's own key, each still refused: the fields are checked, not trusted.
    ['signed, negative rows', signed({ ...BODY, n: -1 })],
    ['signed, generation as text', signed({ ...BODY, g: '2' })],
    ['signed, fractional skip', signed({ ...BODY, t: { ts: BODY.t.ts, skip: 1.5 } })],
    ['signed, a position time that is not Trino text', signed({ ...BODY, t: { ts: "2026' OR 1=1 --", skip: 0 } })],
    ['signed, a position without skip', signed({ ...BODY, f: { ts: null } })],
    ['signed, until in ISO form', signed({ ...BODY, u: '2026-11-30T08:00:00.000Z' })],
    ['signed, an empty cursor name', signed({ ...BODY, c: '' })],
    ['signed, a field missing', signed({ c: BODY.c, g: 2, f: BODY.f, t: BODY.t, u: BODY.u })],
    ['signed, an extra field', signed({ ...BODY, admin: true })],
    ['signed, not JSON', sealBytes(Keyring.fromSecrets(SECRET), 'b1', Buffer.from('{'))],
  ];
  it.each(BAD)('%s -> TG_BAD_BATCH', (_label, bad) => {
    expect(refusal(() => tokens.open(bad))).toEqual(REFUSED);
    if (typeof bad === 'string') expect(tokens.valid(bad)).toBe(false);
  });
});
