/**
 * Removing the whitespace between the tokens of valid JSON, leaving strings (and the digits of numbers)
 * untouched, so that JSON text spanning several lines is written on one (each NDJSON row stays one line).
 * Valid JSON holds a raw CR or LF only between tokens (a JSON string cannot), so this removes them all.
 */

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
