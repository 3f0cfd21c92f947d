/**
 * What the gateway holds, in bytes (limits.maxGatewayBytes): the estimate of a value's retained
 * size, the shared budget and each response's account, and the look-ahead before a page's headers, which holds at
 * most its share and stops early (or, when the page must settle first, is refused) instead of holding rows.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/core/errors.js';
import { retainedBytes } from '../../src/read/retained-bytes.js';
import { TextRows } from '../../src/core/text-rows.js';
import { GatewayMemory } from '../../src/read/gateway-memory.js';
import { PageCutter } from '../../src/read/page-cutter.js';
import { limitsOf, gatewayBytesOf, concurrentQueriesOf } from '../../src/config/access-schema.js';
import { inMemoryResult } from '../fakes/in-memory-result.js';

describe('retained bytes: an estimate that errs high', () => {
  it.each([
    ['a Latin-1 string, one byte a character', 'x'.repeat(1000), 8 + 24 + 1000],
    ['any wider character makes the whole string two bytes a character', `${'x'.repeat(999)}\u4e2d`, 8 + 24 + 2000],
    ['a small integer is a slot', 7, 8],
    ['a double is a heap number', 0.5, 24],
    ['null', null, 8],
    ['bytes: their length and a Buffer', Buffer.alloc(500), 8 + 96 + 500],
  ])('%s', (_label, value, bytes) => {
    expect(retainedBytes(value)).toBe(bytes);
  });

  it('arrays and objects count every member, nested', () => {
    expect(retainedBytes(['ab', [1, 2]])).toBe(8 + 48 + (8 + 24 + 2) + (8 + 48 + 8 + 8));
    expect(retainedBytes({ a: 'xy' })).toBe(8 + 32 + (8 + 24 + 1) + (8 + 24 + 2));
  });

  it('rows still as text count their bytes', () => {
    const rows = new TextRows(Buffer.from('[1,"a"],[2,"b"]'), 2, JSON.parse, () => new Error('bad'));
    expect(retainedBytes(rows)).toBe(8 + 96 + 15);
  });

  it('is at least what V8 really keeps for rows parsed as Trino sends them', () => {
    // Collected before and after, so the growth is what the rows keep, not garbage of anything else.
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const text = JSON.stringify(
      Array.from({ length: 20_000 }, (_, i) => [
        i,
        `customer-${i}`,
        'b3JkZXItMTAwMDAwMQ==',
        '2026-11-01 00:00:00.000',
        { country: 'DE', city: `c${i % 50}` },
        [1.5 + i, `${i}`.repeat(20)],
        null,
      ]),
    );
    gc();
    const before = process.memoryUsage().heapUsed;
    const held = JSON.parse(text) as unknown[];
    gc();
    const grown = process.memoryUsage().heapUsed - before;
    expect(grown).toBeGreaterThan(0);
    expect(retainedBytes(held)).toBeGreaterThanOrEqual(grown);
    // And not wildly more: within twice (about 1.35 measured).
    expect(retainedBytes(held)).toBeLessThan(2 * grown);
    expect(held).toHaveLength(20_000);
  });
});

describe('the budget shared by every response', () => {
  it('a response alone past the limit: 422; past it because others hold the rest: 429 with Retry-After', () => {
    const gateway = new GatewayMemory(1000);
    const a = gateway.account();
    const b = gateway.account();
    a.hold(600, 'a sort');
    const busy = errorOf(() => b.hold(500, 'a sort'));
    expect([busy.code, busy.retryAfterS, busy.details]).toEqual([
      'TG_TOO_MANY_REQUESTS',
      2,
      { limit: 'limits.maxGatewayBytes', max: 1000 },
    ]);
    const alone = errorOf(() => a.hold(500, 'a sort'));
    expect([alone.code, alone.status, alone.details]).toEqual([
      'TG_TOO_EXPENSIVE',
      422,
      { limit: 'limits.maxGatewayBytes', max: 1000 },
    ]);
    expect(alone.message).toContain('a sort holds more than 1000 bytes in the gateway (limits.maxGatewayBytes)');
    expect(gateway.held).toBe(600);
    a.close();
    b.hold(500, 'a sort');
    expect([a.bytes, b.bytes, gateway.held]).toEqual([0, 500, 500]);
    // A closed account holds nothing more.
    expect(a.tryHold(1)).toBe(false);
  });

  it('defaults: a quarter of the heap limit, and 16 queries at once per caller', () => {
    expect(gatewayBytesOf(limitsOf(undefined), 4 * 1024 ** 3)).toBe(1024 ** 3);
    expect(gatewayBytesOf(limitsOf({ maxGatewayBytes: 65_536 }), 4 * 1024 ** 3)).toBe(65_536);
    expect(concurrentQueriesOf(limitsOf(undefined))).toBe(16);
    expect(concurrentQueriesOf(limitsOf({ concurrentQueries: 2 }))).toBe(2);
  });
});

describe('look-ahead before the headers, in bytes', () => {
  const COLUMNS = [
    { name: 'n', type: 'bigint' },
    { name: 'text', type: 'varchar' },
  ];
  /** Ten batches of ten rows of about 1 KB each. */
  const batches = Array.from({ length: 10 }, (_, b) =>
    Array.from({ length: 10 }, (_, i) => [b * 10 + i, 'x'.repeat(1000)]),
  );

  it('stops once its share is held, holding what it read until the body takes it', async () => {
    const gateway = new GatewayMemory(1 << 20);
    const memory = gateway.account();
    const result = inMemoryResult(COLUMNS, batches);
    const cutter = new PageCutter(result, 1000, null);
    await cutter.lookAhead(10_000, { memory, maxBytes: 30_000, mustSettle: false });
    // Two batches of ~10.5 KB fit the share, the third does not: it is read (one batch always is), not held.
    expect(result.pulled).toBe(3);
    expect(cutter.settled).toBe(false);
    expect(memory.bytes).toBe(retainedBytes(batches[0]) + retainedBytes(batches[1]));
    const rows: unknown[] = [];
    for await (const b of cutter.view().batches) rows.push(...(b as unknown[][]));
    expect(rows).toHaveLength(100);
    expect(gateway.held).toBe(0);
  });

  it('stops early when the gateway has no room left, and says nothing of it', async () => {
    const gateway = new GatewayMemory(15_000);
    const other = gateway.account();
    other.hold(14_000, 'another response');
    const memory = gateway.account();
    const cutter = new PageCutter(inMemoryResult(COLUMNS, batches), 1000, null);
    await cutter.lookAhead(10_000, { memory, maxBytes: 1 << 20, mustSettle: false });
    expect([memory.bytes, cutter.settled]).toEqual([0, false]);
  });

  it('a page that must settle before its headers is refused past the limit', async () => {
    const memory = new GatewayMemory(25_000).account();
    const cutter = new PageCutter(inMemoryResult(COLUMNS, batches), 1000, null, () => true);
    const err = await cutter.lookAhead(1001, { memory, maxBytes: 1000, mustSettle: true }).catch((e: unknown) => e);
    expect([(err as ApiError).code, (err as ApiError).details]).toEqual([
      'TG_TOO_EXPENSIVE',
      { limit: 'limits.maxGatewayBytes', max: 25_000 },
    ]);
  });
});

function errorOf(f: () => void): ApiError {
  try {
    f();
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error('no error');
}
