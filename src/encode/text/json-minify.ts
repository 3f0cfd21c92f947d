/**
 * Removing the whitespace between the tokens of valid JSON, leaving strings (and the digits of numbers)
 * untouched, so that JSON text spanning several lines is written on one (each NDJSON row stays one line).
 * Valid JSON holds a raw CR or LF only between tokens (a JSON string cannot), so this removes them all.
 */
import { stringEnd, textStringEnd } from '../../core/json-scan.js';

/** JSON's insignificant whitespace: space, LF, CR, tab (RFC 8259, section 2). */
export function isJsonSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

/**
 * Minifies valid JSON `b[from, to)` to `at` (<= from), front to back over itself: removes the whitespace between
 * tokens, leaving strings untouched (as minifyJson does to text). Returns the end.
 */
export function minifyBytes(b: Uint8Array, from: number, to: number, at: number): number {
  let w = at;
  for (let i = from; i < to; i++) {
    const c = b[i]!;
    if (c === 0x22) {
      const end = stringEnd(b, i, to);
      const last = end < 0 ? to : end;
      while (i < last) b[w++] = b[i++]!;
      i--;
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
      const end = textStringEnd(text, i);
      i = (end < 0 ? text.length : end) - 1;
    } else if (isJsonSpace(c)) {
      out += text.slice(from, i);
      from = i + 1;
    }
  }
  return out + text.slice(from);
}
