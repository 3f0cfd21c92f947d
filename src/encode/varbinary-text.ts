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
import { Buffer, isUtf8 } from 'node:buffer';
import { isJson } from './json-scan.js';

const HEX_PREFIX = '\\x';

/** Bytes in PostgreSQL bytea hex notation: `\x` + two lowercase hex digits per byte. */
export function bytesToHex(bytes: Uint8Array): string {
  return HEX_PREFIX + Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

/**
 * A varbinary (base64 from the Trino protocol) as a JSON value: the payload's own bytes when they are a
 * one-line JSON object or array (copied to the output as they are), otherwise JSON text: minified multi-line
 * JSON, a JSON string of the UTF-8 text, or a JSON string of the `\x` hex form. See the rules above.
 */
export function varbinaryJson(base64: string): string | Buffer {
  const bytes = Buffer.from(base64, 'base64');
  switch (classify(bytes)) {
    case HEX:
      return '"\\\\x' + bytes.toString('hex') + '"'; // `\x` inside a JSON string is written `\\x`
    case TEXT:
      return JSON.stringify(bytes.toString('utf8'));
    case JSON_ONE_LINE:
      return bytes;
    default:
      return minifyJson(bytes.toString('utf8'));
  }
}

/** `varbinaryJson` as a string, for varbinary inside arrays, rows and maps. */
export function varbinaryToJson(base64: string): string {
  const json = varbinaryJson(base64);
  return typeof json === 'string' ? json : json.toString('utf8');
}

/** A varbinary (base64) as a CSV cell: JSON bytes as they are (one line), or the text, or its `\x` hex form. */
export function varbinaryCell(base64: string): string | Buffer {
  const bytes = Buffer.from(base64, 'base64');
  switch (classify(bytes)) {
    case HEX:
      return HEX_PREFIX + bytes.toString('hex');
    case TEXT:
      return bytes.toString('utf8');
    case JSON_ONE_LINE:
      return bytes;
    default:
      return minifyJson(bytes.toString('utf8'));
  }
}

/** `varbinaryCell` as a string (map keys). */
export function varbinaryToText(base64: string): string {
  const cell = varbinaryCell(base64);
  return typeof cell === 'string' ? cell : cell.toString('utf8');
}

/**
 * Validates text of the Trino `json` type and returns it ready to embed (minified when it has line breaks), or
 * null when it is not JSON. Unlike varbinary, any JSON value (scalars too) is embedded: the column is typed JSON.
 */
export function jsonTypeText(text: string): string | null {
  if (!isJson(Buffer.from(text, 'utf8'))) return null;
  return text.includes('\n') || text.includes('\r') ? minifyJson(text) : text;
}

const HEX = 0;
const TEXT = 1;
const JSON_ONE_LINE = 2;
const JSON_LINES = 3;

/** How a varbinary is shown: hex, text, or JSON (on one line or not). */
function classify(bytes: Buffer): number {
  // `\x` (0x5c 0x78) at the start would read as hex notation: such text is shown in hex too.
  if ((bytes[0] === 0x5c && bytes[1] === 0x78) || !isUtf8(bytes)) return HEX;
  if (!looksLikeContainer(bytes) || !isJson(bytes)) return TEXT;
  // Valid JSON holds a raw CR/LF only between tokens (a JSON string cannot), so minifying removes them all.
  return bytes.includes(0x0a) || bytes.includes(0x0d) ? JSON_LINES : JSON_ONE_LINE;
}

/** Only an object or array is embedded: a scalar (`42`, `"a"`) stays text, so a value's type cannot flip. */
function looksLikeContainer(b: Uint8Array): boolean {
  let a = 0;
  let z = b.length - 1;
  while (a <= z && isJsonSpace(b[a]!)) a++;
  while (z > a && isJsonSpace(b[z]!)) z--;
  return (b[a] === 0x7b && b[z] === 0x7d) || (b[a] === 0x5b && b[z] === 0x5d); // {} or []
}

function isJsonSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
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
