/**
 * A batch of rows still as the JSON text Trino sent (`[v0,v1,...],[...],...`: the elements of a page's or a
 * segment's row array, without its brackets). A read whose rows the gateway only passes on (no filter, sort or
 * decoding of its own: the planner says which) gets its batches in this form, and the text encoders write each
 * output row from these bytes in one forward scan (encode/text/row-transcoder.ts) instead of building the rows as
 * JavaScript values first. Anything that must compute on values asks for them (`rowValues`): the same parse the
 * reader would have run.
 *
 * The bytes are a view of the page or segment they came from, not a copy: copying each batch out of its pooled
 * buffer cost a memcpy and as much new memory outside V8's heap as the read had rows, which made the garbage
 * collector run full collections. A pooled buffer goes back to its pool only once the reader is done with it and
 * every batch made from it has said it is done (`done()`, which the text encoders call once they have written the
 * batch); a batch that never says so, or is split, keeps its buffer from the pool for good (the garbage collector
 * frees it then), so a buffer is never reused while a batch of it may still be read.
 */

import { commaAfter } from './json-scan.js';

/** A row as JavaScript values (see result-stream.ts for how each Trino type arrives). */
export type Row = readonly unknown[];

export class TextRows {
  private lease: BytesLease | undefined;
  private view: Buffer | undefined;

  constructor(
    /** `count` JSON arrays separated by commas, and nothing else. */
    bytes: Buffer,
    readonly count: number,
    /** Parses JSON text as the reader does (lossless for BIGINT when the result has one). */
    readonly parse: (text: string) => unknown,
    /** The error to throw when the text is not rows (Trino sent something that is not JSON). */
    readonly bad: () => Error,
    /** The pooled buffer `bytes` is a view of (none: the bytes are never reused). */
    lease?: BytesLease,
  ) {
    this.view = bytes;
    this.lease = lease;
    lease?.hold();
  }

  /** `count` JSON arrays separated by commas, and nothing else. Throws once a leased batch is done. */
  get bytes(): Buffer {
    if (this.view === undefined) throw new Error('the rows of a batch were read after it was done');
    return this.view;
  }

  /**
   * Says the batch's bytes will not be read again (the encoder has written it): its pooled buffer may go back once
   * the other batches of it are done too. A batch that is no view of a pooled buffer stays readable.
   */
  done(): void {
    const lease = this.lease;
    if (lease === undefined) return;
    this.lease = undefined;
    this.view = undefined;
    lease.drop();
  }

  /** The rows as values. Throws `bad()` when the text is not JSON. */
  values(): unknown[][] {
    const bytes = this.bytes;
    try {
      return this.parse(`[${bytes.toString('utf8')}]`) as unknown[][];
    } catch {
      throw this.bad();
    }
  }

  /**
   * The first `n` rows and the rest, each a batch of its own (0 < n < count). Neither holds this batch's lease: its
   * pooled buffer is left to the garbage collector rather than reused while one of them may still be read.
   */
  split(n: number): [TextRows, TextRows] {
    const bytes = this.bytes;
    const at = commaAfter(bytes, n);
    if (at < 0) throw this.bad();
    const head = new TextRows(bytes.subarray(0, at), n, this.parse, this.bad);
    return [head, new TextRows(bytes.subarray(at + 1), this.count - n, this.parse, this.bad)];
  }
}

/**
 * A pooled buffer lent to the batches made from it: `give` runs once its lender (who holds it from the start) and
 * every batch that holds it have dropped it.
 */
export class BytesLease {
  private holders = 1;

  constructor(private give: (() => void) | undefined) {}

  hold(): void {
    this.holders++;
  }

  drop(): void {
    if (--this.holders > 0 || this.give === undefined) return;
    const give = this.give;
    this.give = undefined;
    give();
  }
}

/** A batch: rows as values, or as text. */
export type RowBatch = readonly Row[] | TextRows;

/** The number of rows in a batch. */
export function batchLength(batch: RowBatch): number {
  return batch instanceof TextRows ? batch.count : batch.length;
}

/** A batch's rows as values (text is parsed). */
export function rowValues(batch: RowBatch): readonly Row[] {
  return batch instanceof TextRows ? batch.values() : batch;
}
