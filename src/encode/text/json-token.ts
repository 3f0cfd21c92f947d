/**
 * The tokens of the JSON text Trino writes its rows in, read from the bytes (row-transcoder.ts): where a token
 * ends, and whether it is in the plain form that can be copied to the output as it is. Every reader returns the
 * index after the token, or -1 when the token is not of that form (the caller then takes the value path).
 */
import { number, utf8Sequence } from './validating-json-scanner.js';
import type { PageBuffer } from './page-buffer.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Bytes inside a string: 0 copied as they are, 1 `"`, 2 `\` or a control character, 3 the lead of UTF-8. */
const IN_PLAIN_STRING = new Uint8Array(256);
for (let c = 0; c < 0x20; c++) IN_PLAIN_STRING[c] = 2;
IN_PLAIN_STRING[QUOTE] = 1;
IN_PLAIN_STRING[BACKSLASH] = 2;
for (let c = 0x80; c < 0x100; c++) IN_PLAIN_STRING[c] = 3;

/**
 * The end of the string opening at `i` when it has no escape and is valid UTF-8: its bytes between the quotes are
 * then exactly its text, and the whole token is what JSON.stringify writes for that text. -1 otherwise.
 */
export function plainStringEnd(b: Uint8Array, i: number): number {
  if (b[i] !== QUOTE) return -1;
  const to = b.length;
  for (let j = i + 1; j < to; j++) {
    const k = IN_PLAIN_STRING[b[j]!]!;
    if (k === 0) continue;
    if (k === 1) return j + 1;
    if (k === 2) return -1;
    const n = utf8Sequence(b, j, to);
    if (n === 0) return -1;
    j += n - 1;
  }
  return -1;
}

/**
 * The end of the integer at `i` when it is written as the value path would write the number JSON.parse makes of
 * it: no leading zero, no `-0`, at most 15 digits (past that, the parse may round it or keep it as text, so it is
 * left to that path), nothing of a fraction or exponent after it. -1 otherwise.
 */
export function plainIntegerEnd(b: Uint8Array, i: number): number {
  let j = i;
  if (b[j] === 0x2d) j++;
  const first = j;
  while (j < b.length && b[j]! >= 0x30 && b[j]! <= 0x39) j++;
  const digits = j - first;
  if (digits === 0 || digits > 15 || (b[first] === 0x30 && (digits > 1 || first > i))) return -1;
  const c = b[j];
  return c === 0x2e || c === 0x65 || c === 0x45 ? -1 : j;
}

/** The end of a JSON number's text in `b[from, to)` when that is exactly one number (RFC 8259 grammar), else -1. */
export function numberTextEnd(b: Uint8Array, from: number, to: number): number {
  return from < to && number(b, from, to) === to ? to : -1;
}

/** The end of a string of printable ASCII with no escape (a timestamp's text, say), or -1: its bytes are its text. */
export function asciiStringEnd(src: Uint8Array, i: number): number {
  if (src[i] !== QUOTE) return -1;
  for (let j = i + 1; j < src.length; j++) {
    const c = src[j]!;
    if (c === QUOTE) return j + 1;
    if (c < 0x20 || c >= 0x7f || c === BACKSLASH) return -1;
  }
  return -1;
}

/** Whether the literal `null` is at `i`. */
export function isNullAt(b: Uint8Array, i: number): boolean {
  return b[i] === 0x6e && b[i + 1] === 0x75 && b[i + 2] === 0x6c && b[i + 3] === 0x6c;
}

/** The end of the literal `true` or `false` at `i`, or -1. */
export function booleanEnd(b: Uint8Array, i: number): number {
  if (b[i] === 0x74) return b[i + 1] === 0x72 && b[i + 2] === 0x75 && b[i + 3] === 0x65 ? i + 4 : -1;
  if (b[i] === 0x66) {
    return b[i + 1] === 0x61 && b[i + 2] === 0x6c && b[i + 3] === 0x73 && b[i + 4] === 0x65 ? i + 5 : -1;
  }
  return -1;
}

/** Copies `src[from, to)` to the end of the page. */
export function copyInto(out: PageBuffer, src: Buffer, from: number, to: number): void {
  const n = to - from;
  out.ensure(n);
  const b = out.bytes;
  let e = out.end;
  // Short runs (digits, keys, dates) in a loop: cheaper than a call into native code.
  if (n > 24) src.copy(b, e, from, to);
  else for (let k = from; k < to; k++) b[e++] = src[k]!;
  out.end += n;
}
