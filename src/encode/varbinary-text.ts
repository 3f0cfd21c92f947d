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
import { JSON_LINES, scanJson, scannedQuotes, utf8Sequence } from './json-scan.js';
import type { PageBuffer } from './page-buffer.js';

const HEX_PREFIX = '\\x';

/** Bytes in PostgreSQL bytea hex notation: `\x` + two lowercase hex digits per byte. */
export function bytesToHex(bytes: Uint8Array): string {
  return HEX_PREFIX + Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

/*
 * The writers below decode the base64 straight into the output page, decide there how the bytes are shown, and
 * rewrite them in place: JSON bytes stay as they are, text is quoted around the bytes when it needs no escapes,
 * hex is expanded back to front over the bytes. No Buffer or string is made for a value on these paths.
 */

/** Writes a varbinary (base64 from the Trino protocol) as a JSON value: see the rules above. */
export function writeVarbinaryJson(out: PageBuffer, base64: string): void {
  const max = base64Length(base64);
  out.ensure(2 * max + 5); // the hex form, the largest: `"\\x` + 2 digits a byte + `"`
  const b = out.bytes;
  const start = out.end;
  const from = start + 1; // room for the opening quote of a string
  const to = from + (max === 0 ? 0 : b.write(base64, from, max, 'base64'));
  switch (classify(b, from, to)) {
    case TEXT:
      if ((textFlags & JSON_ESCAPE) === 0) {
        b[start] = 0x22;
        b[to] = 0x22;
        out.end = to + 1;
      } else {
        const json = JSON.stringify(b.toString('utf8', from, to));
        out.end = start;
        out.write(json);
      }
      return;
    case JSON_ONE_LINE:
      b.copyWithin(start, from, to);
      out.end = to - 1;
      return;
    case JSON_MULTI_LINE:
      out.end = minifyBytes(b, from, to, start);
      return;
    default: {
      // `"\\x` + hex + `"` (`\x` inside a JSON string is written `\\x`); byte k moves to start + 4 + 2k.
      const end = hexBackToFront(b, from, to, start + 4);
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
 * Writes a varbinary (base64) as one CSV field: JSON bytes as they are (on one line), always quoted; the text,
 * quoted when RFC 4180 requires it (or when empty); or its `\x` hex form.
 */
export function writeVarbinaryCsv(out: PageBuffer, base64: string): void {
  const max = base64Length(base64);
  out.ensure(2 * max + 4); // a quoted field with every byte a quote, or the `\x` hex form
  const b = out.bytes;
  const start = out.end;
  const to = start + (max === 0 ? 0 : b.write(base64, start, max, 'base64'));
  switch (classify(b, start, to)) {
    case TEXT:
      out.end = to;
      if (to === start || (textFlags & CSV_SPECIAL) !== 0) out.quoteFrom(start, textQuotes);
      return;
    case JSON_ONE_LINE:
      out.end = to;
      out.quoteFrom(start, scannedQuotes());
      return;
    case JSON_MULTI_LINE:
      out.end = minifyBytes(b, start, to, start);
      out.fieldFrom(start); // minified JSON is a text field like any (`[]` from `[\n]` needs no quotes)
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
export function varbinaryToText(base64: string): string {
  const bytes = Buffer.from(base64, 'base64');
  switch (classify(bytes, 0, bytes.length)) {
    case HEX:
      return HEX_PREFIX + bytes.toString('hex');
    case JSON_MULTI_LINE:
      return minifyJson(bytes.toString('utf8'));
    default:
      return bytes.toString('utf8');
  }
}

/** Writes text of the Trino `json` type as JSON: embedded when it is JSON (on one line), else a JSON string. */
export function writeJsonTypeJson(out: PageBuffer, text: string): void {
  const start = out.end;
  out.write(text);
  const r = scanJson(out.bytes, start, out.end);
  if (r < 0) {
    out.end = start;
    out.write(JSON.stringify(text));
  } else if (r === JSON_LINES) out.end = minifyBytes(out.bytes, start, out.end, start);
}

/** Writes text of the Trino `json` type as a CSV field: the JSON text (on one line), or the text if not JSON. */
export function writeJsonTypeCsv(out: PageBuffer, text: string): void {
  const start = out.end;
  out.write(text);
  if (scanJson(out.bytes, start, out.end) === JSON_LINES) out.end = minifyBytes(out.bytes, start, out.end, start);
  out.fieldFrom(start);
}

/**
 * Validates text of the Trino `json` type and returns it ready to embed (minified when it has line breaks), or
 * null when it is not JSON. Unlike varbinary, any JSON value (scalars too) is embedded: the column is typed JSON.
 */
export function jsonTypeText(text: string): string | null {
  const bytes = Buffer.from(text, 'utf8');
  const r = scanJson(bytes, 0, bytes.length);
  return r < 0 ? null : r === JSON_LINES ? minifyJson(text) : text;
}

const HEX = 0;
const TEXT = 1;
const JSON_ONE_LINE = 2;
const JSON_MULTI_LINE = 3;

/** `scanText` flags: the text needs escapes in a JSON string; it needs quotes in a CSV field. */
const JSON_ESCAPE = 1;
const CSV_SPECIAL = 2;
/** Per ASCII byte: its `scanText` flags. */
const TEXT_BYTE = new Uint8Array(128);
for (let c = 0; c < 0x20; c++) TEXT_BYTE[c] = JSON_ESCAPE;
TEXT_BYTE[0x22] = JSON_ESCAPE | CSV_SPECIAL; // "
TEXT_BYTE[0x5c] = JSON_ESCAPE; // \
TEXT_BYTE[0x2c] = CSV_SPECIAL; // ,
TEXT_BYTE[0x0a] = JSON_ESCAPE | CSV_SPECIAL;
TEXT_BYTE[0x0d] = JSON_ESCAPE | CSV_SPECIAL;

/** Set by `classify` for TEXT: the text's `scanText` flags and its number of `"` bytes. */
let textFlags = 0;
let textQuotes = 0;

/** How the varbinary `b[from, to)` is shown: hex, text, or JSON (on one line or not). */
function classify(b: Uint8Array, from: number, to: number): number {
  // `\x` (0x5c 0x78) at the start would read as hex notation: such text is shown in hex too.
  if (to - from >= 2 && b[from] === 0x5c && b[from + 1] === 0x78) return HEX;
  if (looksLikeContainer(b, from, to)) {
    // scanJson accepts only valid UTF-8. Valid JSON holds a raw CR/LF only between tokens (a JSON string
    // cannot), so minifying removes them all.
    const r = scanJson(b, from, to);
    if (r >= 0) return r === JSON_LINES ? JSON_MULTI_LINE : JSON_ONE_LINE;
  }
  return scanText(b, from, to) ? TEXT : HEX;
}

/** Scans text: false when it is not valid UTF-8, otherwise true with `textFlags` and `textQuotes` set. */
function scanText(b: Uint8Array, from: number, to: number): boolean {
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
  textFlags = flags;
  textQuotes = quotes;
  return true;
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

function isJsonSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
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

/**
 * Minifies valid JSON `b[from, to)` to `at` (<= from), front to back over itself: removes the whitespace between
 * tokens, leaving strings untouched (as minifyJson does to text). Returns the end.
 */
function minifyBytes(b: Uint8Array, from: number, to: number, at: number): number {
  let w = at;
  for (let i = from; i < to; i++) {
    const c = b[i]!;
    if (c === 0x22) {
      b[w++] = c;
      for (i++; i < to; i++) {
        const d = b[i]!;
        b[w++] = d;
        if (d === 0x5c) b[w++] = b[++i]!;
        else if (d === 0x22) break;
      }
    } else if (!isJsonSpace(c)) b[w++] = c;
  }
  return w;
}

/** Removes whitespace between tokens of valid JSON text, leaving strings (and number digits) untouched. */
export function minifyJson(text: string): string {
  let out = '';
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // skip over the string, honouring backslash escapes
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) i++;
        else if (d === 0x22) break;
      }
    } else if (isJsonSpace(c)) {
      out += text.slice(from, i);
      from = i + 1;
    }
  }
  return out + text.slice(from);
}
