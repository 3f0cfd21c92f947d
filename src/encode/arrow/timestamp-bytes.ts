/**
 * TimestampUnits (timestamp-units.ts) over the bytes of a timestamp's text in a page instead of a string: the
 * same layout rules and the same arithmetic, so where it gives units they are the ones the value path computes
 * from the parsed string (core/trino-timestamp.ts), and where it gives null the caller takes the value path.
 */
import { daysFromCivil } from '../../core/trino-timestamp.js';

/** 10^0 to 10^9 (Arrow's units). */
const POW10 = [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9];

/** The decimal number written by `b[at, at + len)`; NaN unless those are all digits. */
function digitsAt(b: Uint8Array, at: number, len: number): number {
  let n = 0;
  for (let i = at; i < at + len; i++) {
    const d = b[i]! - 48;
    if (d < 0 || d > 9) return NaN;
    n = n * 10 + d;
  }
  return n;
}

/**
 * Timestamps of one column as Arrow units, from their text. It keeps the minute (`YYYY-MM-DD HH:MM`) it last read
 * and its seconds since the epoch: events of a page are close in time, so most share their minute with the one
 * before, and then only the seconds and the fraction are read.
 */
export class TimestampBytes {
  private readonly minute = new Uint8Array(16);
  private minuteValid = false;
  private minuteSeconds = 0;

  constructor(
    /** 3 for ms, 6 for us (a safe integer for every usual instant; ns are left to the value path). */
    private readonly digits: number,
  ) {}

  /** The units of the text `b[from, to)` (between its quotes), or null when TimestampUnits would give null. */
  units(b: Uint8Array, from: number, to: number): number | null {
    const n = to - from;
    if (n < 19 || b[from + 16] !== 0x3a) return null;
    const minute = this.sameMinute(b, from) ? this.minuteSeconds : this.readMinute(b, from);
    if (minute === null) return null;
    const s = digitsAt(b, from + 17, 2);
    if (!(s >= 0)) return null;
    const digits = this.digits;
    let frac = 0;
    let k = 0;
    if (n > 19) {
      if (n === 20 || b[from + 19] !== 0x2e) return null;
      for (let i = from + 20; i < to; i++) {
        const c = b[i]! - 48;
        if (c < 0 || c > 9) return null;
        if (k < digits) {
          frac = frac * 10 + c;
          k++;
        }
      }
    }
    for (; k < digits; k++) frac *= 10; // digits past `digits` are dropped, missing ones are zeros
    const units = (minute + s) * POW10[digits]! + frac;
    return Number.isSafeInteger(units) ? units : null;
  }

  private sameMinute(b: Uint8Array, from: number): boolean {
    if (!this.minuteValid) return false;
    const m = this.minute;
    for (let i = 15; i >= 0; i--) if (b[from + i] !== m[i]) return false; // the minute differs first
    return true;
  }

  /** The seconds since the epoch of the minute at `from` (kept for the next value), or null. */
  private readMinute(b: Uint8Array, from: number): number | null {
    if (b[from + 4] !== 0x2d || b[from + 7] !== 0x2d || b[from + 10] !== 0x20 || b[from + 13] !== 0x3a) return null;
    const y = digitsAt(b, from, 4);
    const mo = digitsAt(b, from + 5, 2);
    const d = digitsAt(b, from + 8, 2);
    const h = digitsAt(b, from + 11, 2);
    const mi = digitsAt(b, from + 14, 2);
    // NaN (not digits) fails every comparison.
    if (!(y >= 100 && mo >= 1 && mo <= 12 && d >= 0 && h >= 0 && mi >= 0)) return null;
    const seconds = (daysFromCivil(y, mo) + d - 1) * 86400 + h * 3600 + mi * 60;
    this.minute.set(b.subarray(from, from + 16));
    this.minuteSeconds = seconds;
    this.minuteValid = true;
    return seconds;
  }
}
