/**
 * The one quote-aware scanner of PostgREST's text grammar: a double quote opens quoted text, in which a backslash
 * escapes the next character and a second double quote closes it. Column references, select aliases and the
 * lists of filters and groups all find their separators with it, outside quoted text only.
 */

/**
 * Visits each character of `text` outside double quotes, in order, until `visit` returns true. Returns the index
 * it stopped at (-1 when it read to the end) and whether every quote was closed.
 */
export function scanUnquoted(
  text: string,
  visit: (c: string, i: number) => boolean | undefined,
): { stop: number; balanced: boolean } {
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '\\') i++;
      else if (c === '"') quoted = false;
    } else if (c === '"') quoted = true;
    else if (visit(c, i)) return { stop: i, balanced: true };
  }
  return { stop: -1, balanced: !quoted };
}

/**
 * The quoted text that opens at `text[i]` (a double quote), its escapes removed, and the index after its closing
 * quote; null when it is never closed.
 */
export function readQuoted(text: string, i: number): { value: string; end: number } | null {
  let value = '';
  for (let j = i + 1; j < text.length; j++) {
    const c = text[j]!;
    if (c === '\\' && j + 1 < text.length) value += text[++j];
    else if (c === '"') return { value, end: j + 1 };
    else value += c;
  }
  return null;
}
