/**
 * Batch prefetch: one Trino page fetched ahead. While the encoder writes a page, the next one is already on its
 * way, so Trino's production and the encoding overlap. Bounded: at most one page waits here, and it is
 * asked for only after the previous one was taken, so a slow client still paces Trino.
 */
import type { ResultStream } from '../core/result-stream.js';
import type { RowBatch } from '../core/text-rows.js';

type Rows = RowBatch;

export function prefetchBatches(stream: ResultStream): ResultStream {
  const source = stream.batches[Symbol.asyncIterator]();
  async function* batches(): AsyncGenerator<Rows> {
    let ahead = source.next();
    // Handled where it is awaited; this only keeps an early stop from leaving it unobserved.
    ahead.catch(() => undefined);
    try {
      for (;;) {
        const r = await ahead;
        if (r.done) return;
        ahead = source.next();
        ahead.catch(() => undefined);
        yield r.value;
      }
    } finally {
      // Stopping early (client gone, page full) ends the source, which cancels its Trino query.
      await source.return?.();
    }
  }
  return { queryId: stream.queryId, columns: stream.columns, batches: batches() };
}
