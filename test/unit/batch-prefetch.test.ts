/** One page fetched ahead, never more, and an early stop ends the source (which cancels its Trino query). */
import { describe, expect, it } from 'vitest';
import { prefetchBatches } from '../../src/read/batch-prefetch.js';
import type { ResultStream } from '../../src/core/result-stream.js';

function source(pages: number) {
  const log: string[] = [];
  async function* batches() {
    try {
      for (let i = 0; i < pages; i++) {
        log.push(`fetch ${i}`);
        yield [[i]];
      }
    } finally {
      log.push('ended');
    }
  }
  const stream: ResultStream = { queryId: 'q', columns: [{ name: 'n', type: 'integer' }], batches: batches() };
  return { stream, log };
}

describe('prefetchBatches', () => {
  it('keeps exactly one page ahead of the consumer', async () => {
    const { stream, log } = source(4);
    const it = prefetchBatches(stream).batches[Symbol.asyncIterator]();
    expect((await it.next()).value).toEqual([[0]]);
    await new Promise((r) => setTimeout(r, 10));
    expect(log).toEqual(['fetch 0', 'fetch 1']);
    expect((await it.next()).value).toEqual([[1]]);
    await new Promise((r) => setTimeout(r, 10));
    expect(log).toEqual(['fetch 0', 'fetch 1', 'fetch 2']);
  });

  it('passes every page on, in order, and ends', async () => {
    const { stream, log } = source(5);
    const seen: unknown[] = [];
    for await (const b of prefetchBatches(stream).batches) seen.push(b);
    expect(seen).toEqual([[[0]], [[1]], [[2]], [[3]], [[4]]]);
    expect(log.at(-1)).toBe('ended');
  });

  it('stopping early ends the source', async () => {
    const { stream, log } = source(100);
    for await (const b of prefetchBatches(stream).batches) if ((b as number[][])[0]![0] === 2) break;
    expect(log.at(-1)).toBe('ended');
    expect(log.filter((l) => l.startsWith('fetch')).length).toBeLessThanOrEqual(4);
  });
});
