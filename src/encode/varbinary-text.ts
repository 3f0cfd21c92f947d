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

const HEX_PREFIX = '\\x';

/** Bytes in PostgreSQL bytea hex notation: `\x` + two lowercase hex digits per byte. */
export function bytesToHex(bytes: Uint8Array): string {
  return HEX_PREFIX + Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

/**
 * A varbinary (base64 from the Trino protocol) as a JSON value: embedded JSON text, a JSON string of the UTF-8
 * text, or a JSON string of its `\x` hex form. See the rules above.
 */
export function varbinaryToJson(base64: string): string {
  const bytes = Buffer.from(base64, 'base64');
  // `\x` inside a JSON string is written `\\x`.
  if (showsAsHex(bytes)) return '"\\\\x' + bytes.toString('hex') + '"';
  const text = bytes.toString('utf8');
  return embeddableJson(text) ?? JSON.stringify(text);
}

/** A varbinary (base64) as CSV cell text: the JSON text, the UTF-8 text, or its `\x` hex form. */
export function varbinaryToText(base64: string): string {
  const bytes = Buffer.from(base64, 'base64');
  if (showsAsHex(bytes)) return HEX_PREFIX + bytes.toString('hex');
  const text = bytes.toString('utf8');
  return embeddableJson(text) ?? text;
}

/** Not UTF-8, or UTF-8 text starting with `\x` (0x5c 0x78), which would read as hex notation. */
function showsAsHex(bytes: Buffer): boolean {
  return (bytes[0] === 0x5c && bytes[1] === 0x78) || !isUtf8(bytes);
}

/**
 * `text` as JSON to embed verbatim when it is a JSON object or array (null otherwise). JSON.parse only validates:
 * the text itself is embedded, so big integers keep their digits. Multi-line JSON is minified (NDJSON rows are
 * one line each; a raw CR/LF can only sit between tokens, since JSON strings cannot contain one).
 */
export function embeddableJson(text: string): string | null {
  if (!looksLikeContainer(text)) return null;
  try {
    JSON.parse(text);
  } catch {
    return null;
  }
  return text.includes('\n') || text.includes('\r') ? minifyJson(text) : text;
}

/**
 * Validates text of the Trino `json` type and returns it ready to embed (minified when it has line breaks), or
 * null when it is not JSON. Unlike varbinary, any JSON value (scalars too) is embedded: the column is typed JSON.
 */
export function jsonTypeText(text: string): string | null {
  try {
    JSON.parse(text);
  } catch {
    return null;
  }
  return text.includes('\n') || text.includes('\r') ? minifyJson(text) : text;
}

function looksLikeContainer(text: string): boolean {
  let a = 0;
  let b = text.length - 1;
  while (a <= b && isJsonSpace(text.charCodeAt(a))) a++;
  while (b > a && isJsonSpace(text.charCodeAt(b))) b--;
  const first = text.charCodeAt(a);
  const last = text.charCodeAt(b);
  return (first === 0x7b && last === 0x7d) || (first === 0x5b && last === 0x5d); // {} or []
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
