/**
 * What the ceiling client reads of a page of Trino's client protocol: `nextUri`, `error`, and either the number of
 * rows (a direct page) or the segments (a spooled-protocol page), never the rows themselves. A direct page's rows
 * are counted by scanning its bytes for the top-level elements of `data`: string contents are skipped with
 * Buffer.indexOf (native), so the scan touches little more than the brackets, and no row becomes a JavaScript
 * value. The rest of the page (ids, columns, stats, error) is parsed with `data` cut out.
 */

export interface SegmentInfo {
  type: 'inline' | 'spooled';
  /** Inline segments: the bytes, base64. */
  data?: string;
  uri?: string;
  ackUri?: string;
  /** Headers to send with a spooled segment's GET and acknowledgement. */
  headers?: Record<string, string[]>;
  metadata: { segmentSize: number; uncompressedSize?: number; rowsCount?: number };
}

export interface PageSummary {
  nextUri?: string;
  error?: { errorName?: string; message?: string };
  /** Rows of a direct page (0 on a spooled-protocol page: its rows are the segments'). */
  rows: number;
  /** A spooled-protocol page's data. */
  spooled?: { encoding: string; segments: SegmentInfo[] };
}

interface PageHead {
  nextUri?: string;
  error?: PageSummary['error'];
  data?: unknown;
}

// Trino's JSON is compact: the key is followed by its value without whitespace. The first `"data":` of a page is
// the top-level one: it comes after `id`, the URIs and `columns`, none of which has a key of that name, and a
// quote inside a string value is escaped.
const DATA_KEY = Buffer.from('"data":');
const [QUOTE, BACKSLASH, OPEN_ARRAY, CLOSE_ARRAY, OPEN_OBJECT, CLOSE_OBJECT] = [0x22, 0x5c, 0x5b, 0x5d, 0x7b, 0x7d];

export function readPage(body: Buffer): PageSummary {
  const at = body.indexOf(DATA_KEY);
  const start = at + DATA_KEY.length;
  if (at < 0 || body[start] !== OPEN_ARRAY) {
    // No rows, or segment descriptors (an inline segment's bytes are one string): small enough to parse whole.
    const page = JSON.parse(body.toString('utf8')) as PageHead;
    const data = page.data as PageSummary['spooled'] | unknown[] | undefined;
    if (Array.isArray(data)) return { nextUri: page.nextUri, error: page.error, rows: data.length };
    return { nextUri: page.nextUri, error: page.error, rows: 0, ...(data ? { spooled: data } : {}) };
  }
  const { end, rows } = countRows(body, start);
  const page = JSON.parse(`${body.toString('utf8', 0, at)}"data":0${body.toString('utf8', end)}`) as PageHead;
  return { nextUri: page.nextUri, error: page.error, rows };
}

/**
 * The elements of the JSON array opening at `start` (Trino's rows: each an array), and the index just past its
 * closing bracket.
 */
export function countRows(b: Buffer, start: number): { end: number; rows: number } {
  let depth = 0;
  let rows = 0;
  for (let i = start; i < b.length; i++) {
    const c = b[i];
    if (c === QUOTE) i = stringEnd(b, i);
    else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (depth === 1) rows++;
      depth++;
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      if (--depth === 0) return { end: i + 1, rows };
    }
  }
  throw new Error('a page whose data array does not end');
}

/** The index of the quote closing the string that opens at `open` (a quote after an odd run of `\` is escaped). */
function stringEnd(b: Buffer, open: number): number {
  for (let q = b.indexOf(QUOTE, open + 1); q >= 0; q = b.indexOf(QUOTE, q + 1)) {
    let k = q - 1;
    while (b[k] === BACKSLASH) k--;
    if ((q - 1 - k) % 2 === 0) return q;
  }
  throw new Error('a page with an unterminated string');
}
