/**
 * An estimate of the heap a row or value keeps alive while the gateway holds it (`limits.maxGatewayBytes` counts
 * these), from V8's layout on a 64-bit build: every value is a pointer slot of 8 bytes in what holds it; a string
 * is a header (16 bytes, and up to 7 of padding: 24) and one byte a character when all of them are Latin-1 (as V8
 * keeps them), else two; a number outside the small integers is a 16-byte heap number, a bigint 24 bytes and its
 * 64-bit digits; an array is its object and its element store (48 bytes) plus a slot per element; an object 32
 * bytes plus a key and a value per member; bytes are their length (outside V8's heap, but held all the same) plus
 * a 96-byte Buffer. Shared values (one string held by a row and its sort key, an object's keys) count once per
 * holder, so the estimate errs high: test/unit/gateway-memory.test.ts measures rows parsed from Trino's JSON text
 * at about 1.35 times what V8 keeps for them, long text (Latin-1 or not) at 1.0.
 */
import { TextRows } from '../core/text-rows.js';

const SLOT = 8;
const STRING_HEADER = 24;
const HEAP_NUMBER = 16;
const BIGINT = 24;
const ARRAY = 48;
const OBJECT = 32;
const BUFFER = 96;

/** Any character outside Latin-1: V8 then keeps the whole string two bytes a character. */
const WIDE = /[^\u0000-\u00ff]/;

/** The bytes `v` keeps alive, its own slot included. */
export function retainedBytes(v: unknown): number {
  switch (typeof v) {
    case 'string':
      return SLOT + STRING_HEADER + (WIDE.test(v) ? 2 * v.length : v.length);
    case 'number':
      return Number.isInteger(v) && Math.abs(v) < 2 ** 30 ? SLOT : SLOT + HEAP_NUMBER;
    case 'bigint':
      return SLOT + BIGINT + 8 * Math.ceil(v.toString(16).length / 16);
    case 'object':
      return v === null ? SLOT : SLOT + objectBytes(v);
    default:
      return SLOT;
  }
}

function objectBytes(v: object): number {
  if (Array.isArray(v)) {
    let n = ARRAY;
    for (const x of v) n += retainedBytes(x);
    return n;
  }
  if (ArrayBuffer.isView(v)) return BUFFER + v.byteLength;
  if (v instanceof TextRows) return BUFFER + v.bytes.length;
  let n = OBJECT;
  for (const [k, x] of Object.entries(v)) n += retainedBytes(k) + retainedBytes(x);
  return n;
}
