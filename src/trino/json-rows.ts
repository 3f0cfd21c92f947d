/**
 * Rows kept as the JSON text Trino sent, parsed a batch at a time. A direct page holds some 18,000 rows and a
 * spooled segment up to 30,000: parsed whole, they are all alive at once, long enough to outlive V8's young
 * generation, and every page's worth is promoted and left for a full collection (the peak RSS of a read grew with
 * the page size, and with the length of the read until the old generation's limit stopped growing). Scanned for
 * the boundaries of its elements instead (commas at the array's top level, outside strings) and parsed a batch at
 * a time, a page's rows die young.
 *
 * The scan (core/json-scan.ts) checks structure only (one array, balanced brackets, closed strings); each batch is
 * parsed by JSON.parse, which checks the rest.
 */
import { elementEnd, skipSpace, stringEndBySearch } from '../core/json-scan.js';
import { parseLosslessJson } from '../core/lossless-json.js';
import { BytesLease, TextRows } from '../core/text-rows.js';

/** The elements of a JSON array in `bytes`, as byte ranges of `batchRows` elements each (the last one fewer). */
export class JsonRows {
  constructor(
    readonly bytes: Buffer,
    /** Each batch's elements without the array's brackets, `[start, end)`, and how many they are. */
    readonly ranges: readonly Batch[],
  ) {}

  /**
   * The batches, parsed one at a time, or as text (`text`: views of the page's bytes, parsed by whoever needs their
   * values); `lossless`: integers of 16 digits or more kept as strings. A batch that is not JSON throws `bad()`.
   */
  *batches(lossless: boolean, bad: () => Error, text = false): Generator<unknown[][] | TextRows> {
    if (this.spent) throw new Error('the rows of a page whose bytes were given back are read once only');
    const parse = lossless ? parseLosslessJson : JSON.parse;
    const release = this.release;
    if (release) this.spent = true;
    this.release = undefined;
    // Values are parsed from copies of their text: the bytes may be reused once read. Text batches are views of
    // them: the bytes go back once every batch yielded is done too (core/text-rows.ts).
    const lease = text ? new BytesLease(release) : undefined;
    try {
      for (const range of this.ranges)
        yield text ? textRows(this.bytes, range, parse, bad, lease) : parseBatch(this.bytes, range, parse, bad);
    } finally {
      if (lease) lease.drop();
      else release?.();
    }
  }

  /**
   * `release` is called once the batches have been read (or their reading stopped), and, read as text, every batch
   * yielded is done (core/text-rows.ts): the bytes are then reused.
   */
  releaseWhenRead(release: () => void): void {
    this.release = release;
  }

  private release: (() => void) | undefined;
  private spent = false;
}

/** A batch's elements in a page: `[start, end)` without the array's brackets, and how many they are. */
type Batch = readonly [start: number, end: number, count: number];

/** Thrown where the text is not the JSON structure expected. */
export class MalformedJson extends Error {}

const QUOTE = 0x22;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

/**
 * The rows of a JSON document that is one array (white space around it allowed), parsed `batchRows` at a time. The
 * array is scanned only as far as the batch asked for: scanned whole, a 16 MB segment would hold the event loop for
 * tens of milliseconds before its first row. `notArray`: the error for text that is not one array, found where the
 * scan reaches it; `notJson`: for a batch JSON.parse refuses.
 */
export function* arrayBatches(
  bytes: Buffer,
  batchRows: number,
  lossless: boolean,
  errors: { notArray: () => Error; notJson: () => Error },
  text = false,
  give?: () => void,
): Generator<unknown[][] | TextRows> {
  const parse = lossless ? parseLosslessJson : JSON.parse;
  // `give`: the bytes go back once read (or the reading stopped), and, as text, once every batch yielded is done.
  const lease = text ? new BytesLease(give) : undefined;
  try {
    const scan = structural(errors.notArray, () => new ArrayScan(bytes, skipSpace(bytes, 0), batchRows));
    for (;;) {
      const range = structural(errors.notArray, () => scan.next());
      if (!range) break;
      yield text
        ? textRows(bytes, range, parse, errors.notJson, lease)
        : parseBatch(bytes, range, parse, errors.notJson);
    }
    if (skipSpace(bytes, scan.end) !== bytes.length) throw errors.notArray();
  } finally {
    if (lease) lease.drop();
    else give?.();
  }
}

/** `scan()`, its MalformedJson as `error()`. */
function structural<T>(error: () => Error, scan: () => T): T {
  try {
    return scan();
  } catch (err) {
    throw err instanceof MalformedJson ? error() : err;
  }
}

/** The rows of one batch as text: a view of their bytes, holding the lease of the buffer they are in. */
function textRows(
  bytes: Buffer,
  [start, end, count]: Batch,
  parse: (text: string) => unknown,
  bad: () => Error,
  lease: BytesLease | undefined,
) {
  return new TextRows(bytes.subarray(start, end), count, parse, bad, lease);
}

/** The rows of one batch, `[start, end)` of `bytes` without the array's brackets. */
function parseBatch(
  bytes: Buffer,
  [start, end]: Batch,
  parse: (text: string) => unknown,
  bad: () => Error,
): unknown[][] {
  try {
    return parse(`[${bytes.toString('utf8', start, end)}]`) as unknown[][];
  } catch {
    throw bad();
  }
}

/**
 * A JSON object with its top-level member `name`, when that is an array, taken out as rows: the rest of the
 * document is returned as text with `null` in its place (small: a page's id, columns and stats). Without such a
 * member, the whole text and no rows.
 */
export function memberRows(bytes: Buffer, name: string, batchRows: number): { rest: string; rows?: JsonRows } {
  const key = Buffer.from(JSON.stringify(name));
  let i = skipSpace(bytes, 0);
  if (bytes[i] !== OPEN_OBJECT) return { rest: bytes.toString('utf8') };
  let depth = 0;
  while (i < bytes.length) {
    const c = bytes[i]!;
    if (c === QUOTE) {
      const end = stringEndBySearch(bytes, i);
      if (end < 0) throw new MalformedJson('an unclosed string');
      if (depth === 1 && end - i === key.length && bytes.compare(key, 0, key.length, i, end) === 0) {
        const colon = skipSpace(bytes, end);
        const value = skipSpace(bytes, colon + 1);
        if (bytes[colon] === COLON && bytes[value] === OPEN_ARRAY) {
          const { rows, end: after } = scanArray(bytes, value, batchRows);
          return { rest: `${bytes.toString('utf8', 0, value)}null${bytes.toString('utf8', after)}`, rows };
        }
      }
      i = end;
      continue;
    }
    if (c === OPEN_ARRAY || c === OPEN_OBJECT) depth++;
    else if ((c === CLOSE_ARRAY || c === CLOSE_OBJECT) && --depth === 0) break;
    i++;
  }
  return { rest: bytes.toString('utf8') };
}

/** The array opening at `from`: its elements in batches, and the index after its closing bracket. */
function scanArray(bytes: Buffer, from: number, batchRows: number): { rows: JsonRows; end: number } {
  const scan = new ArrayScan(bytes, from, batchRows);
  const ranges: Batch[] = [];
  for (let range = scan.next(); range; range = scan.next()) ranges.push(range);
  return { rows: new JsonRows(bytes, ranges), end: scan.end };
}

/** The elements of the array opening at `from`, found a batch at a time (commas at its top level, outside strings). */
class ArrayScan {
  /** The index after the closing bracket, once the scan has reached it; -1 before. */
  end = -1;
  private readonly first: number;
  /** Where the next batch starts. */
  private start: number;

  constructor(
    private readonly bytes: Buffer,
    from: number,
    private readonly batchRows: number,
  ) {
    if (bytes[from] !== OPEN_ARRAY) throw new MalformedJson('not an array');
    this.first = this.start = from + 1;
  }

  /** The next batch's range (`batchRows` elements, the last one fewer), or null after the last one. */
  next(): Batch | null {
    if (this.end >= 0) return null;
    const bytes = this.bytes;
    const start = this.start;
    let count = 0;
    for (let i = start; ; i++) {
      i = elementEnd(bytes, i);
      if (i < 0) throw new MalformedJson('an unclosed array or string');
      if (bytes[i] !== COMMA) {
        this.end = i + 1;
        // The last batch. `[]` has none; `[1,]` is not JSON.
        if (skipSpace(bytes, start) < i) return [start, i, count + 1];
        if (start !== this.first) throw new MalformedJson('an empty element');
        return null;
      }
      if (++count === this.batchRows) {
        this.start = i + 1;
        return [start, i, count];
      }
    }
  }
}
