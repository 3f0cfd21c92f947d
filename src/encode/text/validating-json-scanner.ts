/**
 * A validating scanner for JSON text (RFC 8259) held as UTF-8 bytes, used to decide whether a payload can be
 * embedded verbatim. JSON.parse would do, but it needs a JS string and builds every object and number only to
 * throw them away: on event payloads that was the largest single cost of the text encoders. Scanning the bytes
 * allocates nothing, works on a range of a larger buffer (a payload decoded straight into the output page), and
 * validates UTF-8 as it goes: bytes >= 0x80 are accepted only inside strings and only as well-formed UTF-8 (the
 * rules of node:buffer isUtf8), so text it accepts is valid UTF-8 as a whole.
 * A scanner keeps its container stack between scans (no allocation per value) and reports what it saw in its own
 * fields: each value writer that scans owns one, so nothing is shared between writers or encoders. A string ends
 * where core/json-scan.ts says (test/unit/json-scan.test.ts checks it); this one also checks what is inside.
 */

const OBJ = 1;
const ARR = 2;

/** `scan` result bit: the text has a raw CR or LF (between tokens: a JSON string cannot hold one). */
export const JSON_LINES = 1;

export class JsonScanner {
  /** After a successful `scan`: the number of `"` bytes (0x22) in the text. */
  quotes = 0;
  private lines = 0;
  private stack = new Uint8Array(64);

  /**
   * Scans `b[from, to)`: -1 unless it is exactly one JSON value (surrounding whitespace allowed) in valid UTF-8;
   * otherwise `JSON_LINES` when it spans lines, else 0. `quotes` then holds its number of `"` bytes.
   */
  scan(b: Uint8Array, from: number, to: number): number {
    let depth = 0;
    this.lines = 0;
    this.quotes = 0;
    let i = from;
    value: for (;;) {
      i = this.ws(b, i, to);
      if (i >= to) return -1;
      const c = b[i]!;
      if (c === 0x7b) {
        i = this.ws(b, i + 1, to);
        if (i < to && b[i] === 0x7d) i++;
        else {
          if (depth === this.stack.length) this.grow();
          this.stack[depth++] = OBJ;
          if ((i = this.key(b, i, to)) < 0) return -1;
          continue; // the first member's value
        }
      } else if (c === 0x5b) {
        i = this.ws(b, i + 1, to);
        if (i < to && b[i] === 0x5d) i++;
        else {
          if (depth === this.stack.length) this.grow();
          this.stack[depth++] = ARR;
          continue; // the first element
        }
      } else if (c === 0x22) i = this.string(b, i, to);
      else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) i = number(b, i, to);
      else if (c === 0x74) i = word(b, i, to, TRUE);
      else if (c === 0x6e) i = word(b, i, to, NULL);
      else if (c === 0x66) i = word(b, i, to, FALSE);
      else return -1;
      if (i < 0) return -1;
      // After a value: close containers until a comma starts the next value (or the text ends).
      for (;;) {
        i = this.ws(b, i, to);
        if (depth === 0) return i === to ? this.lines : -1;
        if (i >= to) return -1;
        const top = this.stack[depth - 1];
        const d = b[i++];
        if (d === 0x2c) {
          if (top === OBJ && (i = this.key(b, this.ws(b, i, to), to)) < 0) return -1;
          continue value;
        }
        if (d !== (top === OBJ ? 0x7d : 0x5d)) return -1;
        depth--;
      }
    }
  }

  private grow(): void {
    const next = new Uint8Array(this.stack.length * 2);
    next.set(this.stack);
    this.stack = next;
  }

  private ws(b: Uint8Array, i: number, to: number): number {
    if (i < to && b[i]! > 0x20) return i; // the usual case: no whitespace at all
    for (; i < to; i++) {
      const c = b[i]!;
      if (c === 0x20 || c === 0x09) continue;
      if (c === 0x0a || c === 0x0d) this.lines = JSON_LINES;
      else break;
    }
    return i;
  }

  /** An object key and its colon, at i; returns the index after the colon, or -1. */
  private key(b: Uint8Array, i: number, to: number): number {
    if (i >= to || b[i] !== 0x22) return -1;
    i = this.string(b, i, to);
    if (i < 0) return -1;
    i = this.ws(b, i, to);
    return i < to && b[i] === 0x3a ? i + 1 : -1;
  }

  /** A string starting at the quote at i; returns the index after the closing quote, or -1. */
  private string(b: Uint8Array, i: number, to: number): number {
    this.quotes++;
    for (i++; i < to; i++) {
      const k = IN_STRING[b[i]!]!;
      if (k === 0) continue;
      if (k === 1) {
        this.quotes++;
        return i + 1;
      }
      if (k === 2) {
        const e = b[++i];
        if (i >= to) return -1;
        if (e === 0x75) {
          if (i + 4 >= to) return -1;
          for (let n = 1; n <= 4; n++) if (!isHex(b[i + n]!)) return -1;
          i += 4;
        } else if (e === 0x22) this.quotes++;
        else if (!(e === 0x5c || e === 0x2f || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74)) {
          return -1;
        }
      } else if (k === 3) return -1;
      else {
        const n = utf8Sequence(b, i, to);
        if (n === 0) return -1;
        i += n - 1;
      }
    }
    return -1;
  }
}

/** True when `b` is exactly one JSON value (surrounding whitespace allowed) in valid UTF-8. */
export function isJson(b: Uint8Array): boolean {
  return new JsonScanner().scan(b, 0, b.length) >= 0;
}

const TRUE = [0x74, 0x72, 0x75, 0x65];
const NULL = [0x6e, 0x75, 0x6c, 0x6c];
const FALSE = [0x66, 0x61, 0x6c, 0x73, 0x65];

function word(b: Uint8Array, i: number, to: number, w: readonly number[]): number {
  if (i + w.length > to) return -1;
  for (let k = 0; k < w.length; k++) if (b[i + k] !== w[k]) return -1;
  return i + w.length;
}

/** Bytes inside a string: 0 plain, 1 `"`, 2 `\`, 3 control (invalid), 4 lead of a multi-byte UTF-8 sequence. */
const IN_STRING = new Uint8Array(256);
for (let c = 0; c < 0x20; c++) IN_STRING[c] = 3;
IN_STRING[0x22] = 1;
IN_STRING[0x5c] = 2;
for (let c = 0x80; c < 0x100; c++) IN_STRING[c] = 4;

/**
 * The length of the well-formed UTF-8 sequence (Unicode table 3-7: no overlongs, surrogates or code points past
 * U+10FFFF) whose lead byte (>= 0x80) is at i, within `b[.., to)`; 0 when there is none.
 */
export function utf8Sequence(b: Uint8Array, i: number, to: number): number {
  const c = b[i]!;
  if (c < 0xc2) return 0; // a continuation byte, or an overlong 2-byte lead
  if (c < 0xe0) return i + 1 < to && (b[i + 1]! & 0xc0) === 0x80 ? 2 : 0;
  if (c < 0xf0) {
    if (i + 2 >= to) return 0;
    const d = b[i + 1]!;
    const lo = c === 0xe0 ? 0xa0 : 0x80;
    const hi = c === 0xed ? 0x9f : 0xbf;
    return d >= lo && d <= hi && (b[i + 2]! & 0xc0) === 0x80 ? 3 : 0;
  }
  if (c < 0xf5) {
    if (i + 3 >= to) return 0;
    const d = b[i + 1]!;
    const lo = c === 0xf0 ? 0x90 : 0x80;
    const hi = c === 0xf4 ? 0x8f : 0xbf;
    return d >= lo && d <= hi && (b[i + 2]! & 0xc0) === 0x80 && (b[i + 3]! & 0xc0) === 0x80 ? 4 : 0;
  }
  return 0;
}

/** A number at i: -?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?; returns the index after it, or -1. */
export function number(b: Uint8Array, i: number, to: number): number {
  if (b[i] === 0x2d) i++;
  if (i < to && b[i] === 0x30) i++;
  else if (i < to && isDigit(b[i]!)) while (++i < to && isDigit(b[i]!));
  else return -1;
  if (i < to && b[i] === 0x2e) {
    if (++i >= to || !isDigit(b[i]!)) return -1;
    while (++i < to && isDigit(b[i]!));
  }
  if (i < to && (b[i] === 0x65 || b[i] === 0x45)) {
    if (++i < to && (b[i] === 0x2b || b[i] === 0x2d)) i++;
    if (i >= to || !isDigit(b[i]!)) return -1;
    while (++i < to && isDigit(b[i]!));
  }
  return i;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x66);
}
