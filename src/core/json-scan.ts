/**
 * Where things end in JSON text: a string, a value, an element of an array (or of a batch of rows written as the
 * elements of one, without its brackets), and the comma after the n-th element. Every reader of JSON text that
 * skips strings or finds top-level boundaries asks here, so there is one rule for where a string ends: at the first
 * `"` not taken by a `\` (a `\` takes the byte after it, whatever it is). The scan checks only that strings and
 * brackets close; the parse that follows checks the rest. UTF-8 continuation bytes never equal the ASCII bytes
 * looked for, so bytes and JavaScript strings scan alike (`stringEnd` over bytes, `textStringEnd` over a string).
 * The validating scanner of payloads (encode/text/validating-json-scanner.ts) is tested against this one.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;

/** The index after the `"` closing the string that opens at `i` in `b[.., to)`, or -1 when it does not close. */
export function stringEnd(b: Uint8Array, i: number, to = b.length): number {
  for (let j = i + 1; j < to; j++) {
    const c = b[j]!;
    if (c === BACKSLASH) j++;
    else if (c === QUOTE) return j + 1;
  }
  return -1;
}

/** `stringEnd` over the code units of a JavaScript string. */
export function textStringEnd(text: string, i: number): number {
  const to = text.length;
  for (let j = i + 1; j < to; j++) {
    const c = text.charCodeAt(j);
    if (c === BACKSLASH) j++;
    else if (c === QUOTE) return j + 1;
  }
  return -1;
}

/**
 * `stringEnd` by searching for each `"` (native code) and counting the `\` before it: faster on long strings (the
 * payloads and base64 of a page of rows), the same answer on any bytes.
 */
export function stringEndBySearch(b: Uint8Array, i: number): number {
  let j = b.indexOf(QUOTE, i + 1);
  while (j > 0 && escaped(b, j)) j = b.indexOf(QUOTE, j + 1);
  return j < 0 ? -1 : j + 1;
}

/** Whether the quote at `j` is preceded by an odd number of backslashes. */
function escaped(b: Uint8Array, j: number): boolean {
  let k = j - 1;
  while (b[k] === BACKSLASH) k--;
  return (j - 1 - k) % 2 === 1;
}

/** The index of the first byte from `i` that is not JSON white space (space, LF, CR, tab). */
export function skipSpace(b: Uint8Array, i: number): number {
  while (i < b.length) {
    const c = b[i]!;
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
    i++;
  }
  return i;
}

/** Bytes that end a scalar token: `,` `]` `}` and JSON white space. */
const ENDS_SCALAR = new Uint8Array(256);
for (const c of [COMMA, 0x5d, 0x7d, 0x20, 0x09, 0x0a, 0x0d]) ENDS_SCALAR[c] = 1;

/**
 * The end of whatever value starts at `i` (a string, a container, or a scalar up to the next `,` `]` `}` or white
 * space), checking only that strings and brackets close: its text is then parsed, which checks the rest. -1 when
 * it does not end.
 */
export function valueEnd(b: Uint8Array, i: number): number {
  const to = b.length;
  const c = b[i];
  if (c === QUOTE) return stringEnd(b, i);
  if (c !== 0x5b && c !== 0x7b) {
    let j = i;
    while (j < to && !ENDS_SCALAR[b[j]!]) j++;
    return j > i ? j : -1;
  }
  let depth = 0;
  for (let j = i; j < to; j++) {
    const d = b[j]!;
    if (d === QUOTE) {
      j = stringEnd(b, j) - 1;
      if (j < 0) return -1;
    } else if (d === 0x5b || d === 0x7b) depth++;
    else if ((d === 0x5d || d === 0x7d) && --depth === 0) return j + 1;
  }
  return -1;
}

/**
 * The index of the byte ending the element that starts at `i` (white space before it allowed): the first `,` or
 * closing `]` or `}` from `i` outside strings and nested containers, so the comma before the next element or the
 * bracket closing the container the element is in. -1 when the bytes end first or a string does not close.
 */
export function elementEnd(b: Uint8Array, i: number): number {
  let depth = 0;
  for (const to = b.length; i < to; i++) {
    const c = b[i]!;
    if (c === QUOTE) {
      i = stringEndBySearch(b, i) - 1;
      if (i < 0) return -1;
    } else if (c === 0x5b || c === 0x7b) depth++;
    else if (c === 0x5d || c === 0x7d) {
      if (--depth < 0) return i;
    } else if (c === COMMA && depth === 0) return i;
  }
  return -1;
}

/**
 * The index of the comma after the `n`-th (n >= 1) element of `b` from `from`, the elements being at its top level
 * (a batch of rows written as the elements of an array, without its brackets); -1 when there is no such comma.
 */
export function commaAfter(b: Uint8Array, n: number, from = 0): number {
  let at = from - 1;
  for (let k = 0; k < n; k++) {
    at = elementEnd(b, at + 1);
    if (at < 0 || b[at] !== COMMA) return -1;
  }
  return at;
}
