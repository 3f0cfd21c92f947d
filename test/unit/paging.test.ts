/**
 * Page tokens (opaque, signed, bound to one query) and the position after a page, which must stay exact when
 * rows tie on broker time and when identical duplicates exist (VAST_TOPIC_TABLES.md). The PageCutter turns a
 * result of limit + 1 rows into one page and the next position.
 */
import { describe, expect, it } from 'vitest';
import { inMemoryResult } from '../fakes/in-memory-result.js';
import { PageTokens } from '../../src/query/page-tokens.js';
import { nextPosition, type PagePosition, type PageTimes } from '../../src/query/tree/page-position.js';
import { queryHash } from '../../src/query/passes/paging.js';
import { Keyring, sealBytes } from '../../src/core/signed-token.js';
import { PageCutter } from '../../src/read/page-cutter.js';
import { apiError } from '../cases/api-error.js';
import { GatewayMemory } from '../../src/read/gateway-memory.js';

/** A look-ahead budget nothing here reaches. */
const roomy = () => ({ memory: new GatewayMemory(2 ** 40).account(), maxBytes: 2 ** 40, mustSettle: false });

const tokens = new PageTokens('test-secret');
const H = queryHash({ t: 'orders', w: null });

describe('queryHash', () => {
  it('is 16 base64url characters, stable, and differs by meaning', () => {
    expect(queryHash({ a: 1 })).toMatch(/^[A-Za-z0-9_-]{16}$/);
    expect(queryHash({ a: 1 })).toBe(queryHash({ a: 1 }));
    expect(queryHash({ a: 1 })).not.toBe(queryHash({ a: 2 }));
  });
});

describe('PageTokens', () => {
  const POSITIONS: PagePosition[] = [
    { h: H, m: 'offset', s: 0 },
    { h: H, m: 'offset', s: 9_007_199_254_740_991 },
    { h: H, m: 'anchor', s: 0 },
    { h: H, m: 'anchor', a: '2026-11-30 07:59:00.123', s: 12, lo: 1_796_000_000_000, hi: 1_796_083_200_000 },
    { h: H, m: 'anchor', a: '2026-11-30 07:59:00.123456789012', s: 1 },
    { h: H, m: 'anchor', a: '2026-11-30 07:59:00', s: 1, lo: -5 },
  ];
  it.each(POSITIONS)('round trip %j', (p) => {
    const t = tokens.encode(p);
    expect(t).toMatch(/^p1\.[A-Za-z0-9_-]{8}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/);
    expect(tokens.decode(t, H)).toEqual(p);
  });

  it('the token is opaque text safe in a URL', () => {
    const t = tokens.encode(POSITIONS[3]!);
    expect(encodeURIComponent(t)).toBe(t);
    expect(t).not.toContain('2026');
  });

  const good = tokens.encode({ h: H, m: 'anchor', a: '2026-11-30 07:59:00.123', s: 3 });
  const [kind, kid, body, sig] = good.split('.') as [string, string, string, string];
  const head = `${kind}.${kid}`;
  const flip = (s: string, i: number) => s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);
  const forged = (p: object) => {
    const b = Buffer.from(JSON.stringify(p)).toString('base64url');
    return `${head}.${b}.${sig}`;
  };
  // [label, token, message]
  const BAD: [string, string, string][] = [
    ['empty', '', 'cursor: not a page cursor'],
    ['no signature', `${head}.${body}`, 'cursor: not a page cursor'],
    ['empty signature', `${head}.${body}.`, 'cursor: not a page cursor'],
    ['five parts', `${good}.x`, 'cursor: not a page cursor'],
    ['too long', `${head}.${body}${'A'.repeat(2048)}.${sig}`, 'cursor: not a page cursor'],
    ['the unversioned form of before', `${body}.${sig}`, 'cursor: not a page cursor'],
    ['another kind (a batch token)', `b1.${kid}.${body}.${sig}`, 'cursor: not a page cursor'],
    ['a body byte changed', `${head}.${flip(body, 5)}.${sig}`, 'cursor: not a cursor this service issued'],
    ['a signature byte changed', `${head}.${body}.${flip(sig, 0)}`, 'cursor: not a cursor this service issued'],
    ['a shorter signature', `${head}.${body}.${sig.slice(1)}`, 'cursor: not a cursor this service issued'],
    ['a key id changed', `${kind}.${flip(kid, 0)}.${body}.${sig}`, 'cursor: not a cursor this service issued'],
    [
      'a body re-encoded with a bigger skip',
      forged({ h: H, m: 'anchor', a: '2026-11-30 07:59:00.123', s: 4 }),
      'cursor: not a cursor this service issued',
    ],
    [
      'signed by another secret',
      new PageTokens('other').encode({ h: H, m: 'offset', s: 0 }),
      'cursor: not a cursor this service issued',
    ],
    [
      'signed, but not JSON',
      sealBytes(Keyring.fromSecrets('test-secret'), 'p1', Buffer.from('not json')),
      'cursor: not a page cursor',
    ],
  ];
  it.each(BAD)('%s -> TG_BAD_CURSOR', (_label, token, message) => {
    const e = apiError(() => tokens.decode(token, H));
    expect([e.code, e.status, e.message, e.details]).toEqual(['TG_BAD_CURSOR', 400, message, { parameter: 'cursor' }]);
  });

  it('a token of another query -> TG_BAD_CURSOR', () => {
    const e = apiError(() => tokens.decode(good, queryHash({ t: 'orders', w: '"key" IS NULL' })));
    expect([e.code, e.message]).toEqual([
      'TG_BAD_CURSOR',
      'cursor: belongs to another query (the filters, order or select changed)',
    ]);
  });

  // Signed with the service's own secret (a defect elsewhere could issue these): each is still refused.
  const BAD_POSITIONS: [string, object][] = [
    ['negative skip', { h: H, m: 'offset', s: -1 }],
    ['fractional skip', { h: H, m: 'offset', s: 1.5 }],
    ['skip as text', { h: H, m: 'offset', s: '1' }],
    ['unsafe skip', { h: H, m: 'offset', s: 2 ** 53 }],
    ['unknown mode', { h: H, m: 'keyset', s: 0 }],
    ['no mode', { h: H, s: 0 }],
    ['fractional lo', { h: H, m: 'anchor', s: 0, lo: 1.5 }],
    ['hi as text', { h: H, m: 'anchor', s: 0, hi: '1' }],
    ['anchor not a timestamp', { h: H, m: 'anchor', s: 0, a: "2026-11-30' OR 1=1 --" }],
    ['anchor in ISO form', { h: H, m: 'anchor', s: 0, a: '2026-11-30T07:59:00.123Z' }],
    ['anchor with 13 fraction digits', { h: H, m: 'anchor', s: 0, a: '2026-11-30 07:59:00.1234567890123' }],
  ];
  it.each(BAD_POSITIONS)('signed %s -> TG_BAD_CURSOR bad position', (_label, p) => {
    const e = apiError(() => tokens.decode(tokens.encode(p as PagePosition), H));
    expect([e.code, e.message]).toEqual(['TG_BAD_CURSOR', 'cursor: bad position']);
  });
});

describe('nextPosition', () => {
  const T0 = '2026-11-30 07:00:00.000';
  const T1 = '2026-11-30 07:00:00.001';
  const times = (last: string, trailing: number, total: number): PageTimes => ({ last, trailing, total });
  const base = { h: H, lo: 10, hi: 20 };
  // [label, current, times of the page, rows in the page, next]
  const CASES: [string, PagePosition, PageTimes | null, number, PagePosition][] = [
    ['offset mode adds the rows', { ...base, m: 'offset', s: 40 }, null, 20, { ...base, m: 'offset', s: 60 }],
    [
      'offset mode ignores times',
      { ...base, m: 'offset', s: 40 },
      times(T1, 3, 20),
      20,
      { ...base, m: 'offset', s: 60 },
    ],
    [
      'anchor mode without times (page not settled): skip on from the same anchor, marked loose (not sliced)',
      { ...base, m: 'anchor', a: T0, s: 2 },
      null,
      20,
      { ...base, m: 'anchor', a: T0, s: 22, loose: true },
    ],
    [
      'anchor mode, empty page',
      { ...base, m: 'anchor', a: T0, s: 2 },
      times('', 0, 0),
      0,
      { ...base, m: 'anchor', a: T0, s: 2 },
    ],
    [
      'first page: anchor at the last row, skip the rows sharing its ms',
      { ...base, m: 'anchor', s: 0 },
      times(T1, 2, 20),
      20,
      { ...base, m: 'anchor', a: T1, s: 2 },
    ],
    [
      'the last ms has one row',
      { ...base, m: 'anchor', a: T0, s: 3 },
      times(T1, 1, 20),
      20,
      { ...base, m: 'anchor', a: T1, s: 1 },
    ],
    [
      'a page entirely within the old anchor ms: the skips add up',
      { ...base, m: 'anchor', a: T0, s: 3 },
      times(T0, 20, 20),
      20,
      { ...base, m: 'anchor', a: T0, s: 23 },
    ],
    [
      'a page entirely within one new ms: skip only this page',
      { ...base, m: 'anchor', a: T0, s: 3 },
      times(T1, 20, 20),
      20,
      { ...base, m: 'anchor', a: T1, s: 20 },
    ],
    [
      'a page of one row at the old anchor',
      { ...base, m: 'anchor', a: T0, s: 7 },
      times(T0, 1, 1),
      1,
      { ...base, m: 'anchor', a: T0, s: 8 },
    ],
    [
      'first page all in one ms',
      { ...base, m: 'anchor', s: 0 },
      times(T0, 5, 5),
      5,
      { ...base, m: 'anchor', a: T0, s: 5 },
    ],
  ];
  it.each(CASES)('%s', (_label, cur, t, rows, next) => {
    expect(nextPosition(cur, t, rows)).toEqual(next);
  });
});

describe('PageCutter', () => {
  const T = (ms: number) => `2026-11-30 07:00:00.${String(ms).padStart(3, '0')}`;
  const cols = [
    { name: 'timestamp_broker', type: 'timestamp(3)' },
    { name: 'n', type: 'integer' },
  ];
  const rows = (...ms: number[]) => ms.map((m, i) => [T(m), i]);

  async function drain(c: PageCutter): Promise<unknown[][]> {
    const out: unknown[][] = [];
    for await (const b of c.batches()) out.push(...(b as unknown[][]));
    return out;
  }

  // [label, batches from Trino (limit + 1 rows at most), limit, position, rows passed on, next position]
  const CASES: [string, unknown[][][], number, PagePosition, number, PagePosition | null][] = [
    [
      'an extra row: a next page anchored at the last row',
      [rows(1, 2, 2), rows(2, 3)],
      3,
      { h: H, m: 'anchor', s: 0 },
      3,
      { h: H, m: 'anchor', a: T(2), s: 2 },
    ],
    ['exactly limit rows: the last page', [rows(1, 2, 3)], 3, { h: H, m: 'anchor', s: 0 }, 3, null],
    ['fewer rows: the last page', [rows(1)], 3, { h: H, m: 'anchor', s: 0 }, 1, null],
    ['no rows: the last page', [], 3, { h: H, m: 'anchor', s: 0 }, 0, null],
    [
      'the page stays in the old anchor ms',
      [rows(5, 5), rows(5)],
      2,
      { h: H, m: 'anchor', a: T(5), s: 4 },
      2,
      { h: H, m: 'anchor', a: T(5), s: 6 },
    ],
    [
      'the extra row arrives alone in a later batch',
      [rows(1, 2), [], rows(9)],
      2,
      { h: H, m: 'anchor', s: 0 },
      2,
      { h: H, m: 'anchor', a: T(2), s: 1 },
    ],
  ];
  it.each(CASES)('%s', async (_label, batches, limit, pos, passed, next) => {
    const result = inMemoryResult(cols, batches);
    const c = new PageCutter(result, limit, 0);
    expect(await drain(c)).toHaveLength(passed);
    expect(c.next(pos)).toEqual(next);
  });

  it('offset mode (no time column): the next skip is the old one plus the rows', async () => {
    const c = new PageCutter(inMemoryResult(cols, [rows(1, 2, 3, 4)]), 3, null);
    expect(await drain(c)).toHaveLength(3);
    expect(c.next({ h: H, m: 'offset', s: 6 })).toEqual({ h: H, m: 'offset', s: 9 });
  });

  it('reads no further than the extra row, and closes the result', async () => {
    const result = inMemoryResult(cols, [rows(1, 2), rows(3, 4), rows(5, 6)]);
    const c = new PageCutter(result, 2, 0);
    await c.lookAhead(100, roomy());
    expect(c.settled).toBe(true);
    expect(c.more).toBe(true);
    expect(result.pulled).toBe(2);
    expect(result.closed).toBe(true);
  });

  it('before the page is settled, the next position is presumed from the limit', async () => {
    const c = new PageCutter(inMemoryResult(cols, [rows(1, 2), rows(3, 4), rows(5)]), 4, 0);
    await c.lookAhead(1, roomy());
    expect(c.settled).toBe(false);
    expect(c.next({ h: H, m: 'anchor', a: T(0), s: 1 })).toEqual({ h: H, m: 'anchor', a: T(0), s: 5, loose: true });
    expect(c.presumedNext({ h: H, m: 'offset', s: 0 })).toEqual({ h: H, m: 'offset', s: 4 });
  });
});
