/**
 * JSON.parse loses digits of integers beyond 2^53, and the Trino protocol sends BIGINT as JSON numbers.
 * Integer tokens of 16 or more digits outside strings are turned into strings before parsing, so they keep
 * every digit. Trino writes doubles with a '.' or an exponent, so only integer types are affected.
 */
import { textStringEnd } from './json-scan.js';

const LONG_INTEGER = /\d{16}/;

export function parseLosslessJson(text: string): unknown {
  // Fast path: most pages hold no 16-digit run at all (base64 and dates rarely do).
  if (!LONG_INTEGER.test(text)) return JSON.parse(text);
  return JSON.parse(quoteLongIntegers(text));
}

const QUOTE = 34;
const MINUS = 45;

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** Wraps integer tokens with >= 16 digits that stand outside JSON strings in quotes. */
export function quoteLongIntegers(text: string): string {
  let out = '';
  let from = 0;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = textStringEnd(text, i);
      i = end < 0 ? n : end;
      continue;
    }
    if (c === MINUS || isDigit(c)) {
      const start = i;
      i++;
      while (i < n && isDigit(text.charCodeAt(i))) i++;
      const next = i < n ? text.charCodeAt(i) : 0;
      const isFraction = next === 46 || next === 101 || next === 69; // . e E
      const digits = i - start - (c === MINUS ? 1 : 0);
      if (!isFraction && digits >= 16) {
        out += `${text.slice(from, start)}"${text.slice(start, i)}"`;
        from = i;
      }
      while (i < n && !isStructural(text.charCodeAt(i))) i++;
      continue;
    }
    i++;
  }
  return from === 0 ? text : out + text.slice(from);
}

function isStructural(c: number): boolean {
  // , ] } whitespace end a number token
  return c === 44 || c === 93 || c === 125 || c === 32 || c === 10 || c === 13 || c === 9;
}
