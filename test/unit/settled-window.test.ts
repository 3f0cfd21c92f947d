/**
 * Settled windows (API.md "Caching settled windows"): decided on the window the planner resolved. The edges: an
 * `until` exactly at now minus settle (settled: it is exclusive), a millisecond later (not), sub-millisecond
 * digits (rounded up, so not), relative times and a missing `until` (never), a page token's pinned window.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTLE, settleMsOf } from '../../src/config/config.js';
import { plan } from '../../src/query/planner.js';
import { isSettledWindow } from '../../src/query/settled-window.js';
import type { PagePosition } from '../../src/query/tree/page-position.js';
import type { ReadRequest } from '../../src/query/tree/read-request.js';
import { table, topicOf } from '../cases/columns.js';
import { testPolicy } from '../cases/read-policy.js';

const COLUMNS = [table('key', 'varbinary'), table('value', 'varbinary'), table('timestamp_broker', 'timestamp(3)')];
const orders = topicOf(COLUMNS, 'orders');
const items = topicOf([table('id', 'bigint')], 'items', { kind: 'table' });
const NOW = Date.parse('2026-11-30T08:00:00.000Z');
const SETTLE = 30_000;
const iso = (ms: number) => new Date(ms).toISOString();

function settled(read: Partial<ReadRequest>, o: { token?: PagePosition; topic?: typeof orders } = {}): boolean {
  const r: ReadRequest = { where: null, ...read };
  const token = o.token;
  const p = plan(
    { kind: 'read', topic: o.topic ?? orders, read: r, token: token ? (h) => ({ ...token, h }) : null },
    testPolicy(),
    NOW,
  );
  return isSettledWindow({ plan: p, read: r, token: token !== undefined, settleMs: SETTLE, now: NOW });
}

describe('isSettledWindow', () => {
  it.each([
    ['until exactly at now - settle (exclusive: its events are older)', { until: iso(NOW - SETTLE) }, true],
    ['until one millisecond after now - settle', { until: iso(NOW - SETTLE + 1) }, false],
    ['until an hour ago, since absolute', { since: iso(NOW - 2 * 3_600_000), until: iso(NOW - 3_600_000) }, true],
    ['sub-millisecond digits past now - settle round the end up', { until: '2026-11-30T07:59:30.0005Z' }, false],
    ['sub-millisecond zeros are no digits', { until: '2026-11-30T07:59:30.000000Z' }, true],
    ['a date (midnight UTC)', { until: '2026-11-29' }, true],
    ['no until: the window ends now', {}, false],
    ['no until, since absolute', { since: iso(NOW - 3_600_000) }, false],
    ['until=now', { until: 'now' }, false],
    ['until relative, however old: the same URL names other events later', { until: '-1h' }, false],
    ['since relative, until absolute', { since: '-2h', until: iso(NOW - 3_600_000) }, false],
    ['a bulk read in order', { until: iso(NOW - 3_600_000), since: iso(NOW - 7_200_000), limit: 'all' }, true],
    [
      'a bulk read in no order (slices interleave)',
      { until: iso(NOW - 3_600_000), since: iso(NOW - 7_200_000), limit: 'all', unordered: true },
      false,
    ],
  ] as const)('%s', (_name, read, expected) => {
    expect(settled(read as Partial<ReadRequest>)).toBe(expected);
  });

  it("a page token's pinned window decides, whatever since/until say", () => {
    const pinned = { h: '', m: 'anchor', s: 3, a: '2026-11-30 06:30:00.000', lo: NOW - 7_200_000 } as const;
    expect(settled({ since: '-2h', until: '-1h' }, { token: { ...pinned, hi: NOW - 3_600_000 } })).toBe(true);
    // A first page read without until pinned hi = its now: its later pages settle once that is settle old.
    expect(settled({}, { token: { ...pinned, hi: NOW - SETTLE } })).toBe(true);
    expect(settled({}, { token: { ...pinned, hi: NOW - SETTLE + 1 } })).toBe(false);
  });

  it('a table without broker time is never settled', () => {
    expect(settled({}, { topic: items })).toBe(false);
  });
});

describe('settleMsOf', () => {
  it('is the topic setting, else 30 s', () => {
    expect(DEFAULT_SETTLE).toBe('30s');
    expect(settleMsOf(undefined)).toBe(30_000);
    expect(settleMsOf({})).toBe(30_000);
    expect(settleMsOf({ settle: '5m' })).toBe(300_000);
    expect(settleMsOf({ settle: '0s' })).toBe(0);
  });
});
