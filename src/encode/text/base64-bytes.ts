/**
 * Base64 (RFC 4648, the standard alphabet with `=` padding, as Trino writes varbinary) decoded from bytes to bytes:
 * a varbinary's text in a Trino page goes straight into the output page, never through a JavaScript string.
 * Only the canonical form is decoded here (a multiple of four characters, padding only at the end); anything else
 * is left to Buffer's decoder, whose leniency (white space, URL-safe letters, missing padding) the value path has.
 */

/** Per byte: its 6-bit value in the standard alphabet, or -1. */
const SEXTET = new Int16Array(256).fill(-1);
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
for (let k = 0; k < 64; k++) SEXTET[ALPHABET.charCodeAt(k)] = k;
const PAD = 0x3d;

/** The most bytes the base64 text `src[from, to)` decodes to. */
export function base64Bytes(from: number, to: number): number {
  return ((to - from) * 3) >>> 2;
}

/**
 * Decodes the canonical base64 text `src[from, to)` into `dst` at `at` (room for base64Bytes made by the caller);
 * returns the end of the bytes written, or -1 (nothing meaningful written) when the text is not canonical base64.
 */
export function decodeBase64Into(src: Uint8Array, from: number, to: number, dst: Uint8Array, at: number): number {
  const n = to - from;
  if ((n & 3) !== 0) return -1;
  if (n === 0) return at;
  const pad = src[to - 1] === PAD ? (src[to - 2] === PAD ? 2 : 1) : 0;
  const whole = pad === 0 ? to : to - 4;
  let w = at;
  for (let k = from; k < whole; k += 4) {
    const v =
      (SEXTET[src[k]!]! << 18) | (SEXTET[src[k + 1]!]! << 12) | (SEXTET[src[k + 2]!]! << 6) | SEXTET[src[k + 3]!]!;
    if (v < 0) return -1; // a -1 sextet sets the sign bit whatever the others are
    dst[w++] = v >>> 16;
    dst[w++] = (v >>> 8) & 0xff;
    dst[w++] = v & 0xff;
  }
  if (pad === 0) return w;
  const a = SEXTET[src[whole]!]!;
  const b = SEXTET[src[whole + 1]!]!;
  if ((a | b) < 0) return -1;
  dst[w++] = ((a << 2) | (b >>> 4)) & 0xff;
  if (pad === 2) return w;
  const c = SEXTET[src[whole + 2]!]!;
  if (c < 0) return -1;
  dst[w++] = ((b << 4) | (c >>> 2)) & 0xff;
  return w;
}
