/**
 * A result read by a consumer that never waits (an encoder writing to a fast socket) still lets the event loop
 * turn: the reader yields to it every few milliseconds, so other requests, timers and the load-shedding check are
 * not held for a whole segment. A segment is scanned a batch at a time: its first rows come before the scan has
 * reached the end of the segment.
 */
import { describe, expect, it } from 'vitest';
import { ResultReader, type Page, type PageSource } from '../../src/trino/result-reader.js';
import { decodeSegment } from '../../src/trino/segment-decoder.js';
import { TrinoUnavailableError } from '../../src/trino/trino-errors.js';
import { batchLength } from '../../src/core/text-rows.js';

const noSource: PageSource = {
  page: () => Promise.reject(new Error('one page only')),
  segment: () => Promise.reject(new Error('no segments')),
  release: () => {},
};

/** Holds the thread for `ms`, as parsing and encoding a batch does. */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

describe('the reader lets the event loop turn', () => {
  it('a page of 60 batches read by a consumer busy 2 ms a batch: the loop turns every few batches', async () => {
    const rows = Array.from({ length: 60 * 1024 }, (_, i) => [i]);
    const page: Page = { id: 'q', columns: [{ name: 'n', type: 'integer' }], data: rows };
    const reader = new ResultReader(page, noSource, { queryId: 'q', window: 1, lossless: false, encodings: [] });
    let turns = 0;
    let reading = true;
    const turn = () => {
      turns++;
      if (reading) setImmediate(turn);
    };
    setImmediate(turn);
    let read = 0;
    for await (const batch of reader.rows()) {
      read += batchLength(batch);
      busy(2);
    }
    reading = false;
    expect(read).toBe(rows.length);
    // 120 ms of work with a turn at least every 10 ms (and a batch's 2 ms past it).
    expect(turns).toBeGreaterThanOrEqual(8);
  });
});

describe('a segment scanned a batch at a time', () => {
  it('gives its first batch before the scan reaches text that is not JSON further on', () => {
    const text = `[[1],[2],[3],${'[4],'.repeat(1000)}[5] not json`;
    const it = decodeSegment('json', Buffer.from(text), { segmentSize: text.length }, false, 2);
    expect(it.next().value).toEqual([[1], [2]]);
    expect(() => [...it]).toThrow(TrinoUnavailableError);
  });
});
