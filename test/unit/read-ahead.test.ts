/** Pages read ahead (issue 12): the cache's bounds, and the page cutter's rows past the page. */
import { describe, expect, it } from 'vitest';
import { PageCutter } from '../../src/read/page-cutter.js';
import { ReadAheadCache, readAheadResult, type ReadAheadEntry } from '../../src/read/read-ahead.js';
import { inMemoryResult } from '../fakes/in-memory-result.js';

const COLUMNS = [
  { name: 'n', type: 'bigint' },
  { name: 'timestamp_broker', type: 'timestamp(3)' },
];
const row = (i: number) => [i, `2026-11-01 00:00:00.${String(Math.floor(i / 3)).padStart(3, '0')}`];
const rows = (from: number, to: number) => Array.from({ length: to - from }, (_, k) => row(from + k));
const entry = (n: number, ended = false): ReadAheadEntry => ({
  queryId: 'q',
  columns: COLUMNS,
  rows: rows(0, n),
  ended,
});

async function drain(c: PageCutter): Promise<unknown[][]> {
  const out: unknown[][] = [];
  for await (const b of c.batches()) out.push(...(b as unknown[][]));
  return out;
}

describe('ReadAheadCache', () => {
  it('hands an entry out once, under its token only', () => {
    const cache = new ReadAheadCache(100);
    cache.put('t1', entry(10));
    expect(cache.take('t2')).toBeUndefined();
    expect(cache.take('t1')?.rows).toHaveLength(10);
    expect(cache.take('t1')).toBeUndefined();
    expect(cache.rows).toBe(0);
  });

  it('holds at most maxRows rows in all: the oldest entries go first, one too large is not kept', () => {
    const cache = new ReadAheadCache(100);
    cache.put('a', entry(40));
    cache.put('b', entry(40));
    cache.put('c', entry(40));
    expect(cache.rows).toBe(80);
    expect(cache.take('a')).toBeUndefined();
    cache.put('huge', entry(101));
    expect(cache.take('huge')).toBeUndefined();
    expect(cache.take('b')?.rows).toHaveLength(40);
    expect(cache.take('c')?.rows).toHaveLength(40);
  });

  it('forgets entries after their time to live', () => {
    let now = 0;
    const cache = new ReadAheadCache(100, 1000, () => now);
    cache.put('a', entry(5));
    now = 999;
    cache.put('b', entry(5));
    now = 1000;
    expect(cache.take('a')).toBeUndefined();
    expect(cache.take('b')?.rows).toHaveLength(5);
  });

  it('a page reads up to nine pages more, half the cache at most; none with no cache', () => {
    expect(new ReadAheadCache(100_000).extraRows(100)).toBe(900);
    expect(new ReadAheadCache(100_000).extraRows(10_000)).toBe(50_000);
    expect(new ReadAheadCache(0).extraRows(100)).toBe(0);
  });
});

describe('PageCutter rows past the page', () => {
  it('keeps the rows after the page up to its capacity, reading on after the page; the query is then closed', async () => {
    const source = inMemoryResult(COLUMNS, [rows(0, 4), rows(4, 8), rows(8, 12), rows(12, 16)]);
    const cutter = new PageCutter(source, 5, 1, undefined, 6);
    expect(await drain(cutter)).toEqual(rows(0, 5));
    expect(cutter.more).toBe(true);
    expect(cutter.spilled()).toEqual({ rows: rows(5, 11), ended: false });
    expect(source.closed).toBe(true);
    expect(source.pulled).toBe(3);
  });

  it('says when the result ended within the rows kept', async () => {
    const cutter = new PageCutter(inMemoryResult(COLUMNS, [rows(0, 4), rows(4, 9)]), 5, 1, undefined, 10);
    await drain(cutter);
    expect(cutter.spilled()).toEqual({ rows: rows(5, 9), ended: true });
  });

  it('keeps nothing for a last page, or without a capacity (the query ends with the page)', async () => {
    const last = new PageCutter(inMemoryResult(COLUMNS, [rows(0, 4)]), 5, 1, undefined, 10);
    expect(await drain(last)).toEqual(rows(0, 4));
    expect(last.spilled()).toBeNull();
    const source = inMemoryResult(COLUMNS, [rows(0, 4), rows(4, 8), rows(8, 12)]);
    const none = new PageCutter(source, 5, 1);
    await drain(none);
    expect(none.spilled()).toBeNull();
    expect(source.pulled).toBe(2);
  });

  it('a page served from kept rows is the page a query from its position reads, with the same next position', async () => {
    const all = rows(0, 30);
    const position = { h: 'x', m: 'anchor' as const, a: String(row(0)[1]), s: 0 };
    // Page 1 from the query, its rows past the page kept; page 2 from them, and from a query of its own.
    const first = new PageCutter(inMemoryResult(COLUMNS, [all]), 7, 1, undefined, 20);
    await drain(first);
    const p2 = first.next(position)!;
    const kept = { ...entry(0), rows: first.spilled()!.rows };
    const fromKept = new PageCutter(readAheadResult(kept), 7, 1, undefined, 20);
    const fromQuery = new PageCutter(inMemoryResult(COLUMNS, [all.slice(7)]), 7, 1);
    expect(await drain(fromKept)).toEqual(await drain(fromQuery));
    expect(fromKept.next(p2)).toEqual(fromQuery.next(p2));
    expect(fromKept.next(p2)).toMatchObject({ m: 'anchor', a: String(row(13)[1]) });
  });
});
