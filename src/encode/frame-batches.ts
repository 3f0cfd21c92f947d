import { batchLength, type RowBatch } from '../core/text-rows.js';

/** How an encoder frames its body around the rows: each part returns the chunk to write (or nothing). */
export interface Framing<Out> {
  /** Written before the first page (header, schema). */
  start(): Out | undefined;
  /** One Trino batch (never empty) as one chunk: per-page writes, not per-row. */
  page(rows: RowBatch): Out | undefined;
  /** Written after the last page of a complete result: the format's "complete" mark. */
  end(): Out | undefined;
  /**
   * The format's in-body "cut" mark after a failure once output has started (undefined: none). Either way the
   * error is rethrown after it, so the HTTP body is aborted too (docs/reading.md, "Complete or visibly not").
   */
  cut(err: unknown): Out | undefined;
}

/**
 * Drives an encoder: pulls one batch, yields its chunk, and pulls the next only when the consumer asks for more
 * (an async generator pauses at `yield`), so memory holds one page whatever the result size. Output starts with
 * the first non-empty batch (or at the end): errors before it are rethrown for a normal error response; errors
 * after it yield the format's `cut` mark and are then rethrown, so the response is also a broken HTTP transfer
 * (a reader that ignores the mark still sees an error). Closing the generator early closes `batches` (which
 * cancels the query).
 */
export async function* frameBatches<Out>(
  batches: AsyncIterable<RowBatch>,
  framing: Framing<Out>,
): AsyncGenerator<Out, void, undefined> {
  let started = false;
  try {
    for await (const rows of batches) {
      if (batchLength(rows) === 0) continue; // Trino sends empty pages while a query is queued or running
      if (!started) {
        // Encode the first page before yielding the head, so that even an encoding failure can still become
        // a normal error response.
        const head = framing.start();
        const first = framing.page(rows);
        started = true;
        if (head !== undefined) yield head;
        if (first !== undefined) yield first;
        continue;
      }
      const chunk = framing.page(rows);
      if (chunk !== undefined) yield chunk;
    }
  } catch (err) {
    if (!started) throw err;
    const tail = framing.cut(err);
    if (tail !== undefined) yield tail;
    throw err;
  }
  if (!started) {
    const head = framing.start();
    if (head !== undefined) yield head;
  }
  const tail = framing.end();
  if (tail !== undefined) yield tail;
}
