/**
 * A batch of rows still as the JSON text Trino sent (`[v0,v1,...],[...],...`: the elements of a page's or a
 * segment's row array, without its brackets). A read whose rows the gateway only passes on (no filter, sort or
 * decoding of its own: the planner says which) gets its batches in this form, and the text encoders write each
 * output row from these bytes in one forward scan (encode/text/row-transcoder.ts) instead of building the rows as
 * JavaScript values first. Anything that must compute on values asks for them (`rowValues`): the same parse the
 * reader would have run.
 *
 * The bytes are the batch's own (copied out of the page or segment they came from), so a batch may be held while
 * the reader moves on and gives its buffers back.
 */

/** A row as JavaScript values (see result-stream.ts for how each Trino type arrives). */
export type Row = readonly unknown[];

export class TextRows {
  constructor(
    /** `count` JSON arrays separated by commas, and nothing else. */
    readonly bytes: Buffer,
    readonly count: number,
    /** Parses JSON text as the reader does (lossless for BIGINT when the result has one). */
    readonly parse: (text: string) => unknown,
    /** The error to throw when the text is not rows (Trino sent something that is not JSON). */
    readonly bad: () => Error,
  ) {}

  /** The rows as values. Throws `bad()` when the text is not JSON. */
  values(): unknown[][] {
    try {
      return this.parse(`[${this.bytes.toString('utf8')}]`) as unknown[][];
    } catch {
      throw this.bad();
    }
  }

  /** The first `n` rows and the rest, each a batch of its own (0 < n < count). */
  split(n: number): [TextRows, TextRows] {
    const at = rowBoundary(this.bytes, n);
    if (at < 0) throw this.bad();
    const head = new TextRows(this.bytes.subarray(0, at), n, this.parse, this.bad);
    return [head, new TextRows(this.bytes.subarray(at + 1), this.count - n, this.parse, this.bad)];
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

/** The index of the comma after the `n`-th top-level element of `bytes`, or -1. */
function rowBoundary(bytes: Buffer, n: number): number {
  let depth = 0;
  let seen = 0;
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i]!;
    if (c === 0x22) {
      i = closingQuote(bytes, i);
      if (i < 0) return -1;
    } else if (c === 0x5b || c === 0x7b) depth++;
    else if (c === 0x5d || c === 0x7d) depth--;
    else if (c === 0x2c && depth === 0 && ++seen === n) return i;
  }
  return -1;
}

/** The index of the quote closing the string that opens at `from`, or -1. */
function closingQuote(bytes: Buffer, from: number): number {
  for (let i = from + 1; i < bytes.length; i++) {
    const c = bytes[i]!;
    if (c === 0x5c) i++;
    else if (c === 0x22) return i;
  }
  return -1;
}
