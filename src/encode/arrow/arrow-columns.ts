/**
 * Column builders for the Arrow encoder: each fills plain typed arrays for one Trino page and hands them to
 * `makeData`. apache-arrow's own builders are not used because their setters go through JS numbers (timestamps in
 * ms, so micro/nanosecond values would be rounded) and take decimals as pre-packed words; here every value is
 * converted exactly from the Trino text. Buffers are fresh per batch and sliced to their exact length, so no
 * uninitialized memory reaches the wire.
 */
import { Buffer } from 'node:buffer';
import { endianness } from 'node:os';
import { makeData, type Data, type DataType } from 'apache-arrow';
import { base64Bytes, decodeBase64Into } from '../text/base64-bytes.js';

/** Accumulates one column (or nested child) of one record batch. */
export interface ColumnBuilder {
  readonly type: DataType;
  /** Appends one value; null and undefined are Arrow nulls. */
  append(value: unknown): void;
  /** The column so far as Arrow data; the builder starts empty again. */
  finish(): Data;
}

const LITTLE_ENDIAN = endianness() === 'LE';
const TWO_32 = 4294967296;
/** Base64 text longer than this is decoded by Buffer's decoder, shorter text by a loop here (no call, no string). */
const NATIVE_BASE64 = 64;

/** Validity bitmap and length shared by every builder. */
export abstract class BaseBuilder implements ColumnBuilder {
  protected length = 0;
  private nulls = 0;
  private valid = new Uint8Array(64);

  constructor(readonly type: DataType) {}

  append(value: unknown): void {
    const i = this.length;
    if (i >= this.valid.length * 8) this.valid = grow(this.valid, i + 1, 8);
    if (value === null || value === undefined) {
      this.nulls++;
      this.appendNull(i);
    } else {
      this.valid[i >> 3]! |= 1 << (i & 7);
      this.appendValue(value, i);
    }
    this.length = i + 1;
  }

  /** Marks the next slot valid and returns its index: the caller fills the slot's data. */
  protected nextValid(): number {
    const i = this.length;
    if (i >= this.valid.length * 8) this.valid = grow(this.valid, i + 1, 8);
    this.valid[i >> 3]! |= 1 << (i & 7);
    this.length = i + 1;
    return i;
  }

  protected abstract appendValue(value: unknown, index: number): void;
  protected abstract appendNull(index: number): void;
  abstract finish(): Data;

  /** Length, null count and validity for makeData; resets the shared state. */
  protected takeValidity(): { length: number; nullCount: number; nullBitmap?: Uint8Array } {
    const out = {
      length: this.length,
      nullCount: this.nulls,
      nullBitmap: this.valid.subarray(0, (this.length + 7) >> 3),
    };
    this.length = 0;
    this.nulls = 0;
    this.valid = new Uint8Array(64);
    return out.nullCount === 0 ? { length: out.length, nullCount: 0 } : out;
  }
}

/** Copies `a` into a larger array of the same kind holding at least `need / per` elements. */
export function grow<
  T extends Uint8Array | Int32Array | Float64Array | Float32Array | Int16Array | Int8Array | Uint32Array,
>(a: T, need: number, per = 1): T {
  const b = new (a.constructor as new (n: number) => T)(Math.max(a.length * 2, Math.ceil(need / per) + 1));
  b.set(a);
  return b;
}

type NumberArray = Int8Array | Int16Array | Int32Array | Float32Array | Float64Array;

/** Fixed-width numbers (int8/16/32, float32/64, date as days): one typed-array slot per value. */
export class NumberBuilder extends BaseBuilder {
  private values: NumberArray;
  constructor(
    type: DataType,
    make: new (n: number) => NumberArray,
    private readonly convert: (v: unknown) => number,
  ) {
    super(type);
    this.values = new make(64);
  }
  protected appendValue(v: unknown, i: number): void {
    if (i >= this.values.length) this.values = grow(this.values, i + 1);
    this.values[i] = this.convert(v);
  }
  protected appendNull(i: number): void {
    if (i >= this.values.length) this.values = grow(this.values, i + 1);
    this.values[i] = 0;
  }
  finish(): Data {
    const values = this.values;
    const v = this.takeValidity();
    this.values = new (values.constructor as new (n: number) => NumberArray)(Math.max(64, v.length));
    return makeData({ type: this.type, ...v, data: values.subarray(0, v.length) } as never);
  }
}

/**
 * 64-bit integers (bigint, timestamps): `convert` gives a safe-integer number (written as two 32-bit halves, no
 * BigInt allocated on the hot path) or a bigint when the value is beyond 2^53.
 */
export class Int64Builder extends BaseBuilder {
  private words = new Int32Array(128);
  constructor(
    type: DataType,
    private readonly convert: (v: unknown) => number | bigint,
  ) {
    super(type);
  }
  protected appendValue(v: unknown, i: number): void {
    this.put(this.convert(v), i);
  }
  /** Appends a value already converted (what `convert` returns for it). */
  appendUnits(n: number | bigint): void {
    this.put(n, this.nextValid());
  }
  private put(n: number | bigint, i: number): void {
    if (2 * i + 1 >= this.words.length) this.words = grow(this.words, 2 * i + 2);
    if (typeof n === 'number' && LITTLE_ENDIAN) {
      const hi = Math.floor(n / TWO_32);
      this.words[2 * i] = (n - hi * TWO_32) | 0;
      this.words[2 * i + 1] = hi | 0;
    } else {
      new BigInt64Array(this.words.buffer, 0, i + 1)[i] = BigInt(n);
    }
  }
  protected appendNull(i: number): void {
    if (2 * i + 1 >= this.words.length) this.words = grow(this.words, 2 * i + 2);
    this.words[2 * i] = 0;
    this.words[2 * i + 1] = 0;
  }
  finish(): Data {
    const words = this.words;
    const v = this.takeValidity();
    this.words = new Int32Array(Math.max(128, 2 * v.length));
    return makeData({ type: this.type, ...v, data: new BigInt64Array(words.buffer, 0, v.length) } as never);
  }
}

/** Booleans, bit-packed. */
export class BoolBuilder extends BaseBuilder {
  private bits = new Uint8Array(64);
  protected appendValue(v: unknown, i: number): void {
    if (i >= this.bits.length * 8) this.bits = grow(this.bits, i + 1, 8);
    if (v === true || v === 'true') this.bits[i >> 3]! |= 1 << (i & 7);
  }
  protected appendNull(i: number): void {
    if (i >= this.bits.length * 8) this.bits = grow(this.bits, i + 1, 8);
  }
  finish(): Data {
    const bits = this.bits;
    const v = this.takeValidity();
    this.bits = new Uint8Array(64);
    return makeData({ type: this.type, ...v, data: bits.subarray(0, (v.length + 7) >> 3) } as never);
  }
}

/**
 * Variable-width bytes: Binary from base64 (decoded straight into the batch buffer) or Utf8 from text.
 * `toText` turns a non-string value into the text to store (Utf8 only).
 */
export class BytesBuilder extends BaseBuilder {
  private offsets = new Int32Array(65);
  private bytes = Buffer.allocUnsafe(4096);
  private end = 0;
  constructor(
    type: DataType,
    private readonly encoding: 'base64' | 'utf8',
    private readonly toText: (v: unknown) => string,
  ) {
    super(type);
  }
  protected appendValue(v: unknown, i: number): void {
    const s = typeof v === 'string' ? v : this.toText(v);
    // Upper bound of the encoded size: base64 decodes to <= 3/4 of its length; UTF-16 units are <= 3 UTF-8 bytes.
    const max = this.encoding === 'base64' ? ((s.length * 3) >> 2) + 3 : s.length * 3;
    if (this.end + max > this.bytes.length) this.reserve(this.end + max);
    this.end += this.bytes.write(s, this.end, this.encoding);
    this.setOffset(i);
  }
  protected appendNull(i: number): void {
    this.setOffset(i);
  }
  private setOffset(i: number): void {
    if (i + 1 >= this.offsets.length) this.offsets = grow(this.offsets, i + 2);
    this.offsets[i + 1] = this.end;
  }
  /** Appends `src[from, to)` as they are (Utf8: the caller has checked they are the value's UTF-8). */
  appendBytes(src: Uint8Array, from: number, to: number): void {
    const n = to - from;
    if (this.end + n > this.bytes.length) this.reserve(this.end + n);
    const b = this.bytes;
    let e = this.end;
    // Short runs in a loop: cheaper than a call into native code.
    if (n > 24) b.set(src.subarray(from, to), e);
    else for (let k = from; k < to; k++) b[e++] = src[k]!;
    this.end += n;
    this.setOffset(this.nextValid());
  }

  /**
   * Appends the bytes of the canonical base64 text `src[from, to)` (Binary), decoded straight into the batch
   * buffer; false, with nothing appended, when the text is not canonical base64 (the caller takes the value path).
   */
  appendBase64(src: Buffer, from: number, to: number): boolean {
    const max = base64Bytes(from, to);
    if (this.end + max > this.bytes.length) this.reserve(this.end + max);
    const end =
      to - from > NATIVE_BASE64
        ? this.decodeNatively(src, from, to)
        : decodeBase64Into(src, from, to, this.bytes, this.end);
    if (end < 0) return false;
    this.end = end;
    this.setOffset(this.nextValid());
    return true;
  }

  /**
   * Long text through Buffer's decoder, the value path's own (faster than a loop in JavaScript past a few dozen
   * characters). It skips what is not base64 and stops at a `=` inside the text, so it writes all the bytes a text
   * of 4k characters and its padding stands for only when every character is base64: the text is then exactly the
   * string JSON.parse makes of it, and the bytes are what the value path writes. -1 otherwise.
   */
  private decodeNatively(src: Buffer, from: number, to: number): number {
    const n = to - from;
    if ((n & 3) !== 0) return -1;
    const pad = src[to - 1] === 0x3d ? (src[to - 2] === 0x3d ? 2 : 1) : 0;
    const written = this.bytes.write(src.toString('latin1', from, to), this.end, 'base64');
    return written === (n >> 2) * 3 - pad ? this.end + written : -1;
  }

  private reserve(need: number): void {
    const next = Buffer.allocUnsafe(Math.max(need, this.bytes.length * 2));
    this.bytes.copy(next, 0, 0, this.end);
    this.bytes = next;
  }
  finish(): Data {
    const { offsets, bytes, end } = this;
    const v = this.takeValidity();
    this.offsets = new Int32Array(Math.max(65, v.length + 1));
    this.bytes = Buffer.allocUnsafe(Math.max(4096, end));
    this.end = 0;
    return makeData({
      type: this.type,
      ...v,
      valueOffsets: offsets.subarray(0, v.length + 1),
      data: new Uint8Array(bytes.buffer, bytes.byteOffset, end),
    } as never);
  }
}
