/**
 * The file cache (src/files/file-cache.ts): one make for concurrent callers, a failed make leaving nothing, eviction
 * by bytes with the least recently used first, an evicted file still readable through the descriptor a response
 * holds, a waiter making the file itself when the maker's requester went away, and files of an earlier run used again.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FileCache, type FileLease } from '../../src/files/file-cache.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function cache(maxBytes = 1000) {
  const dir = mkdtempSync(join(tmpdir(), 'topicgate-file-cache-'));
  dirs.push(dir);
  const counts = { hits: 0, made: 0, evicted: 0, bytes: 0 };
  const c = new FileCache(dir, maxBytes, {
    hit: () => void counts.hits++,
    made: () => void counts.made++,
    evicted: () => void counts.evicted++,
    held: (bytes) => void (counts.bytes = bytes),
  });
  return { c, dir, counts };
}

const live = new AbortController().signal;
const writer = (text: string) => (path: string) => writeFile(path, text);
async function text(lease: FileLease): Promise<string> {
  const { buffer } = await lease.handle.read(Buffer.alloc(lease.size), 0, lease.size, 0);
  await lease.handle.close();
  return buffer.toString();
}

describe('FileCache', () => {
  it('concurrent callers of one key: one make, then hits', async () => {
    const { c, counts } = cache();
    let makes = 0;
    const make = async (path: string) => {
      makes++;
      await new Promise((r) => setTimeout(r, 20));
      await writeFile(path, 'abc');
    };
    const leases = await Promise.all([1, 2, 3].map(() => c.open('"k"', 'csv', live, make)));
    expect(makes).toBe(1);
    expect(await Promise.all(leases.map(text))).toEqual(['abc', 'abc', 'abc']);
    expect(leases.map((l) => l.hit).sort()).toEqual([false, true, true]);
    expect((await c.open('"k"', 'csv', live, make)).hit).toBe(true);
    expect(counts).toMatchObject({ made: 1, hits: 3 });
  });

  it('a failed make leaves no file, and every waiter gets its error', async () => {
    const { c, dir } = cache();
    const make = async (path: string) => {
      await writeFile(path, 'partial');
      throw new Error('Trino failed');
    };
    const outcomes = await Promise.allSettled([1, 2].map(() => c.open('"k"', 'parquet', live, make)));
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a maker whose requester went away: a waiter makes the file itself', async () => {
    const { c } = cache();
    const gone = new AbortController();
    const first = c.open('"k"', 'csv', gone.signal, async () => {
      gone.abort();
      throw new Error('the client went away');
    });
    const second = c.open('"k"', 'csv', live, writer('made by the waiter'));
    await expect(first).rejects.toThrow('went away');
    expect(await text(await second)).toBe('made by the waiter');
  });

  it('evicts the least recently used past its bytes; an open descriptor still reads its evicted file', async () => {
    const { c, dir, counts } = cache(10);
    const a = await c.open('"a"', 'csv', live, writer('aaaa'));
    await (await c.open('"b"', 'csv', live, writer('bbbb'))).handle.close();
    await (await c.open('"a"', 'csv', live, writer('never'))).handle.close(); // a is now the most recent
    await (await c.open('"c"', 'csv', live, writer('cccc'))).handle.close(); // 12 bytes: b goes
    expect(counts).toMatchObject({ evicted: 1, bytes: 8 });
    expect(readdirSync(dir).sort()).toEqual([FileCache.nameOf('"a"', 'csv'), FileCache.nameOf('"c"', 'csv')].sort());
    await (await c.open('"d"', 'csv', live, writer('dddddddd'))).handle.close(); // a and c go
    expect(readdirSync(dir)).toEqual([FileCache.nameOf('"d"', 'csv')]);
    expect(await text(a)).toBe('aaaa');
  });

  it('a new cache on the same directory uses the files made before and removes temporary ones', async () => {
    const { c, dir } = cache();
    await (await c.open('"k"', 'ndjson', live, writer('kept'))).handle.close();
    writeFileSync(join(dir, '.tmp-0123-crashed.parquet'), 'partial');
    const again = new FileCache(dir, 1000, { hit() {}, made() {}, evicted() {}, held() {} });
    expect(readdirSync(dir)).toEqual([FileCache.nameOf('"k"', 'ndjson')]);
    const lease = await again.open('"k"', 'ndjson', live, writer('never'));
    expect([lease.hit, await text(lease)]).toEqual([true, 'kept']);
  });
});
