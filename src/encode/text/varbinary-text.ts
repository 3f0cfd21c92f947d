/**
 * How bytes (Trino `varbinary`: `key`, `value`, and any varbinary inside arrays, rows and maps) are written in the
 * text formats (JSON, NDJSON, CSV). This block is written to be lifted into the OpenAPI document:
 *
 * > **Bytes in text formats.** A varbinary value is shown, in this order of preference:
 * > 1. **As JSON**, when the bytes are UTF-8 text of a JSON object or array (`{...}` / `[...]`). In JSON and NDJSON
 * >    the JSON is embedded as a value, with every digit of its numbers kept as sent (`9007199254740993` is not
 * >    rounded). In CSV the cell holds the JSON text. JSON text that spans several lines is written on one line
 * >    (whitespace between tokens removed; strings untouched), so each NDJSON row stays one line.
 * > 2. **As text**, when the bytes are valid UTF-8 (a JSON string in JSON/NDJSON, the cell text in CSV).
 * > 3. **As `\x` followed by lowercase hex**, two digits per byte (PostgreSQL's `bytea` hex notation), when the
 * >    bytes are not valid UTF-8, so nothing is ever replaced by U+FFFD. Example: bytes `ff 00 41` -> `\xff0041`.
 * >    UTF-8 text that itself starts with `\x` is written in hex too, so a shown value starting with `\x` always
 * >    means hex: `\x41` is the one byte 0x41, and the four-character text `\x41` is shown as `\x5c783431`.
 * >    Filters on varbinary columns accept the same notation.
 * > A JSON scalar (`42`, `"a"`, `true`) is shown as text, never as a number or boolean, so its type cannot change
 * > from one event to the next. Arrow carries the exact bytes as Binary.
 */
import { Buffer } from 'node:buffer';
import { CSV_SPECIAL, csvFieldFrom, quoteCsvFrom } from './csv-field.js';
import { isJsonSpace, minifyBytes, minifyJson } from './json-minify.js';
import { JSON_LINES, JsonScanner, utf8Sequence } from './validating-json-scanner.js';
import type { PageBuffer } from './page-buffer.js';

/** How a varbinary is shown (`classify`). */
const HEX = 0;
const TEXT = 1;
const JSON_ONE_LINE = 2;
const JSON_MULTI_LINE = 3;

/** `scanText` flags: the text needs escapes in a JSON string; it needs quotes in a CSV field. */
const JSON_ESCAPE = 1;
const CSV_QUOTE = 2;
/** Per ASCII byte: its `scanText` flags. */
const TEXT_BYTE = Uint8Array.from(
  { length: 128 },
  (_, c) => (c < 0x20 || c === 0x22 || c === 0x5c ? JSON_ESCAPE : 0) | (CSV_SPECIAL[c] !== 0 ? CSV_QUOTE : 0),
);

/**
 * The varbinary writers of one value writer. They decode the base64 straight into the output page, decide there
 * how the bytes are shown, and rewrite them in place: JSON bytes stay as they are, text is quoted around the bytes
 * when it needs no escapes, hex is expanded back to front over the bytes. No Buffer or string is made for a value
 * on these paths. What a scan finds (flags, quote counts) is kept in this object's fields, read right after the
 * scan by the same call: each value writer owns its VarbinaryText, so nothing is shared.
 */
export class VarbinaryText {
  private readonly json = new JsonScanner();
  /** Set by `scanText` when it returns true: the text's flags and its number of `"` bytes. */
  private textFlags = 0;
  private textQuotes = 0;

  /** Writes a varbinary (base64 from the Trino protocol) as a JSON value: see the rules above. */
  writeJson(out: PageBuffer, base64: string): void {
    const max = base64Length(base64);
    out.ensure(jsonRoom(max));
    const start = out.end;
    this.placeJson(out, start + (max === 0 ? 0 : out.bytes.write(base64, start, max, 'base64')));
  }

  /**
   * Writes a varbinary already decoded into the page, at `out.end` up to `to` (room for `jsonRoom` bytes made
   * first), as a JSON value: JSON bytes stay where they are, text is quoted around them, hex rewritten over them.
   */
  placeJson(out: PageBuffer, to: number): void {
    const b = out.bytes;
    const start = out.end;
    switch (this.classify(b, start, to)) {
      case TEXT:
        if ((this.textFlags & JSON_ESCAPE) === 0) {
          // Short text (keys) in a loop, back to front: cheaper than a call into native code.
          if (to - start > 16) b.copyWithin(start + 1, start, to);
          else for (let k = to; k > start; k--) b[k] = b[k - 1]!;
          b[start] = 0x22;
          b[to + 1] = 0x22;
          out.end = to + 2;
        } else {
          const json = JSON.stringify(b.toString('utf8', start, to));
          out.write(json);
        }
        return;
      case JSON_ONE_LINE:
        out.end = to;
        return;
      case JSON_MULTI_LINE:
        out.end = minifyBytes(b, start, to, start);
        return;
      default: {
        // `"\\x` + hex + `"` (`\x` inside a JSON string is written `\\x`); byte k moves to start + 4 + 2k.
        const end = hexBackToFront(b, start, to, start + 4);
        b[start] = 0x22;
        b[start + 1] = 0x5c;
        b[start + 2] = 0x5c;
        b[start + 3] = 0x78;
        b[end] = 0x22;
        out.end = end + 1;
      }
    }
  }

  /**
   * Writes a varbinary (base64) as one CSV field (csv-field.ts): JSON bytes as they are (on one line), always
   * quoted; the text, quoted when RFC 4180 requires it (or when empty); or its `\x` hex form.
   */
  writeCsv(out: PageBuffer, base64: string): void {
    const max = base64Length(base64);
    out.ensure(csvRoom(max));
    const start = out.end;
    this.placeCsv(out, start + (max === 0 ? 0 : out.bytes.write(base64, start, max, 'base64')));
  }

  /**
   * Writes a varbinary already decoded into the page, at `out.end` up to `to` (room for `csvRoom` bytes made
   * first), as one CSV field, in place.
   */
  placeCsv(out: PageBuffer, to: number): void {
    const b = out.bytes;
    const start = out.end;
    switch (this.classify(b, start, to)) {
      case TEXT:
        out.end = to;
        // The scan has counted the quotes already: quote without scanning again.
        if (to === start || (this.textFlags & CSV_QUOTE) !== 0) quoteCsvFrom(out, start, this.textQuotes);
        return;
      case JSON_ONE_LINE:
        out.end = to;
        quoteCsvFrom(out, start, this.json.quotes);
        return;
      case JSON_MULTI_LINE:
        out.end = minifyBytes(b, start, to, start);
        csvFieldFrom(out, start); // minified JSON is a text field like any (`[]` from `[\n]` needs no quotes)
        return;
      default: {
        const end = hexBackToFront(b, start, to, start + 2);
        b[start] = 0x5c;
        b[start + 1] = 0x78;
        out.end = end;
      }
    }
  }

  /** A varbinary (base64) as CSV cell text (map keys): the JSON text (one line), the text, or its `\x` hex form. */
  toText(base64: string): string {
    const bytes = Buffer.from(base64, 'base64');
    switch (this.classify(bytes, 0, bytes.length)) {
      case HEX:
        return '\\x' + bytes.toString('hex');
      case JSON_MULTI_LINE:
        return minifyJson(bytes.toString('utf8'));
      default:
        return bytes.toString('utf8');
    }
  }

  /** How the varbinary `b[from, to)` is shown: hex, text, or JSON (on one line or not). */
  private classify(b: Uint8Array, from: number, to: number): number {
    // `\x` (0x5c 0x78) at the start would read as hex notation: such text is shown in hex too.
    if (to - from >= 2 && b[from] === 0x5c && b[from + 1] === 0x78) return HEX;
    if (looksLikeContainer(b, from, to)) {
      // The scanner accepts only valid UTF-8. Valid JSON holds a raw CR/LF only between tokens (a JSON string
      // cannot), so minifying removes them all.
      const r = this.json.scan(b, from, to);
      if (r >= 0) return r === JSON_LINES ? JSON_MULTI_LINE : JSON_ONE_LINE;
    }
    return this.scanText(b, from, to) ? TEXT : HEX;
  }

  /** Scans text: false when it is not valid UTF-8, otherwise true with `textFlags` and `textQuotes` set. */
  private scanText(b: Uint8Array, from: number, to: number): boolean {
    let flags = 0;
    let quotes = 0;
    for (let i = from; i < to; i++) {
      const c = b[i]!;
      if (c < 0x80) {
        const t = TEXT_BYTE[c]!;
        if (t !== 0) {
          flags |= t;
          if (c === 0x22) quotes++;
        }
      } else {
        const n = utf8Sequence(b, i, to);
        if (n === 0) return false;
        i += n - 1;
      }
    }
    this.textFlags = flags;
    this.textQuotes = quotes;
    return true;
  }
}

/** Room a varbinary of at most `bytes` bytes needs as a JSON value: its hex form, the largest (`"\\x` + 2 digits a byte + `"`). */
export function jsonRoom(bytes: number): number {
  return 2 * bytes + 5;
}

/** Room a varbinary of at most `bytes` bytes needs as a CSV field: quoted with every byte a quote, or its hex form. */
export function csvRoom(bytes: number): number {
  return 2 * bytes + 4;
}

/** Only an object or array is embedded: a scalar (`42`, `"a"`) stays text, so a value's type cannot flip. */
function looksLikeContainer(b: Uint8Array, from: number, to: number): boolean {
  let a = from;
  let z = to - 1;
  while (a <= z && isJsonSpace(b[a]!)) a++;
  if (a > z) return false;
  while (z > a && isJsonSpace(b[z]!)) z--;
  return (b[a] === 0x7b && b[z] === 0x7d) || (b[a] === 0x5b && b[z] === 0x5d); // {} or []
}

/**
 * The most bytes `base64` decodes to, exactly as Buffer.from(base64, 'base64') sizes its result (decoding stops
 * there, so a malformed tail is cut the same way).
 */
function base64Length(base64: string): number {
  let n = base64.length;
  if (base64.charCodeAt(n - 1) === 0x3d) n--;
  if (n > 1 && base64.charCodeAt(n - 1) === 0x3d) n--;
  return (n * 3) >>> 2;
}

const HEX_DIGITS = Buffer.from('0123456789abcdef', 'latin1');

/** Writes `b[from, to)` as lowercase hex at `at` (>= from), back to front over itself; returns the end. */
function hexBackToFront(b: Uint8Array, from: number, to: number, at: number): number {
  const end = at + 2 * (to - from);
  for (let r = to - 1, w = end; r >= from; r--) {
    const c = b[r]!;
    b[--w] = HEX_DIGITS[c & 15]!;
    b[--w] = HEX_DIGITS[c >> 4]!;
  }
  return end;
}
