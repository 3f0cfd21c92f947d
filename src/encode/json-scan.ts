/**
 * A validating scanner for JSON text (RFC 8259) held as UTF-8 bytes, used to decide whether a payload can be
 * embedded verbatim. JSON.parse would do, but it needs a JS string and builds every object and number only to
 * throw them away: on event payloads that was the largest single cost of the text encoders. Scanning the bytes
 * allocates nothing but a depth stack, and lets the encoders copy the payload's bytes straight to the output.
 * The caller checks UTF-8 validity first (node:buffer isUtf8): bytes >= 0x80 pass only inside strings here.
 */

const OBJ = 1;
const ARR = 2;

/**
 * True when `b` is exactly one JSON value (surrounding whitespace allowed). Whether it spans lines is
 * `b.includes(0x0a) || b.includes(0x0d)`: a JSON string cannot hold a raw CR/LF, so any is between tokens.
 */
export function isJson(b: Uint8Array): boolean {
  const stack: number[] = [];
  let i = 0;
  value: for (;;) {
    i = ws(b, i);
    const c = b[i];
    if (c === 0x7b) {
      i = ws(b, i + 1);
      if (b[i] === 0x7d) i++;
      else {
        stack.push(OBJ);
        if ((i = key(b, i)) < 0) return false;
        continue value;
      }
    } else if (c === 0x5b) {
      i = ws(b, i + 1);
      if (b[i] === 0x5d) i++;
      else {
        stack.push(ARR);
        continue value;
      }
    } else if (c === 0x22) i = string(b, i);
    else if (c === 0x2d || isDigit(c)) i = number(b, i);
    else if (word(b, i, TRUE) || word(b, i, NULL)) i += 4;
    else if (word(b, i, FALSE)) i += 5;
    else return false;
    if (i < 0) return false;
    // After a value: close containers until a comma starts the next value (or the text ends).
    for (;;) {
      i = ws(b, i);
      const top = stack.length === 0 ? 0 : stack[stack.length - 1];
      if (top === 0) return i === b.length;
      const d = b[i++];
      if (d === 0x2c) {
        if (top === OBJ && (i = key(b, ws(b, i))) < 0) return false;
        continue value;
      }
      if (d !== (top === OBJ ? 0x7d : 0x5d)) return false;
      stack.pop();
    }
  }
}

const TRUE = [0x74, 0x72, 0x75, 0x65];
const NULL = [0x6e, 0x75, 0x6c, 0x6c];
const FALSE = [0x66, 0x61, 0x6c, 0x73, 0x65];

function word(b: Uint8Array, i: number, w: readonly number[]): boolean {
  for (let k = 0; k < w.length; k++) if (b[i + k] !== w[k]) return false;
  return true;
}

function ws(b: Uint8Array, i: number): number {
  for (let c = b[i]; c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09; c = b[++i]);
  return i;
}

/** An object key and its colon, at i; returns the index after the colon, or -1. */
function key(b: Uint8Array, i: number): number {
  if (b[i] !== 0x22) return -1;
  i = string(b, i);
  if (i < 0) return -1;
  i = ws(b, i);
  return b[i] === 0x3a ? i + 1 : -1;
}

/** A string starting at the quote at i; returns the index after the closing quote, or -1. */
function string(b: Uint8Array, i: number): number {
  const n = b.length;
  for (i++; i < n; i++) {
    const c = b[i]!;
    if (c === 0x22) return i + 1;
    if (c < 0x20) return -1;
    if (c === 0x5c) {
      const e = b[++i];
      if (e === 0x75) {
        for (let k = 1; k <= 4; k++) if (!isHex(b[i + k])) return -1;
        i += 4;
      } else if (!(
        e === 0x22 ||
        e === 0x5c ||
        e === 0x2f ||
        e === 0x62 ||
        e === 0x66 ||
        e === 0x6e ||
        e === 0x72 ||
        e === 0x74
      )) {
        return -1;
      }
    }
  }
  return -1;
}

/** A number at i: -?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?; returns the index after it, or -1. */
function number(b: Uint8Array, i: number): number {
  if (b[i] === 0x2d) i++;
  if (b[i] === 0x30) i++;
  else if (isDigit(b[i])) while (isDigit(b[++i]));
  else return -1;
  if (b[i] === 0x2e) {
    if (!isDigit(b[++i])) return -1;
    while (isDigit(b[++i]));
  }
  const e = b[i];
  if (e === 0x65 || e === 0x45) {
    const sign = b[++i];
    if (sign === 0x2b || sign === 0x2d) i++;
    if (!isDigit(b[i])) return -1;
    while (isDigit(b[++i]));
  }
  return i;
}

function isDigit(c: number | undefined): boolean {
  return c !== undefined && c >= 0x30 && c <= 0x39;
}

function isHex(c: number | undefined): boolean {
  return c !== undefined && ((c >= 0x30 && c <= 0x39) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x66));
}
