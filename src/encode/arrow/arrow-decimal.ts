import { makeData, type Data, type Decimal } from 'apache-arrow';
import { BaseBuilder, grow } from './arrow-columns.js';

const DECIMAL = /^([+-]?)(\d*)(?:\.(\d*))?$/;
const TWO_32 = 4294967296;
const MASK_128 = (1n << 128n) - 1n;

/**
 * Decimal128: the unscaled value as a 128-bit two's-complement integer, four little-endian 32-bit words.
 * Built from Trino's decimal text (`12.30` at scale 2 -> 1230) without going through a float, so every digit
 * of a decimal(38, s) survives. Text with more fractional digits than the scale is an error, not a rounding.
 */
export class DecimalBuilder extends BaseBuilder {
  private words = new Uint32Array(256);
  constructor(type: Decimal) {
    super(type);
  }
  protected appendValue(v: unknown, i: number): void {
    if (4 * i + 3 >= this.words.length) this.words = grow(this.words, 4 * i + 4);
    const { scale } = this.type as Decimal;
    const m = DECIMAL.exec(typeof v === 'string' ? v : String(v));
    const frac = m?.[3] ?? '';
    if (m === null || (m[2] === '' && frac === '') || frac.length > scale) {
      throw new RangeError(`not a decimal of scale ${scale}: ${String(v)}`);
    }
    const digits = (m[2]! + frac.padEnd(scale, '0')).replace(/^0+/, '');
    const at = 4 * i;
    if (digits.length <= 15 && m[1] !== '-') {
      // Fast path: fits a double exactly and is non-negative, so the upper words are zero.
      const n = digits === '' ? 0 : Number(digits);
      const hi = Math.floor(n / TWO_32);
      this.words[at] = n - hi * TWO_32;
      this.words[at + 1] = hi;
      this.words[at + 2] = 0;
      this.words[at + 3] = 0;
      return;
    }
    let x = BigInt(digits === '' ? '0' : digits);
    if (m[1] === '-') x = -x & MASK_128; // two's complement in 128 bits
    for (let w = 0; w < 4; w++, x >>= 32n) this.words[at + w] = Number(x & 0xffffffffn);
  }
  protected appendNull(i: number): void {
    if (4 * i + 3 >= this.words.length) this.words = grow(this.words, 4 * i + 4);
    this.words.fill(0, 4 * i, 4 * i + 4);
  }
  finish(): Data {
    const words = this.words;
    const v = this.takeValidity();
    this.words = new Uint32Array(Math.max(256, 4 * v.length));
    return makeData({ type: this.type as Decimal, ...v, data: words.subarray(0, 4 * v.length) });
  }
}
