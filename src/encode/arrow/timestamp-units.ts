/**
 * Trino timestamp text -> Arrow's integer units (ms, us or ns since the epoch, UTC). Every digit is carried as
 * an integer, never through a float, so p up to 9 is exact; Arrow stops at ns, so digits past 9 are truncated.
 */
import { daysFromCivil, digitsAt, type Instant } from '../../core/trino-timestamp.js';

/**
 * The instant in `10^-digits` second units (3 ms, 6 us, 9 ns): a number when it is a safe integer, otherwise a
 * bigint. Digits beyond `digits` (Trino's p up to 12) are truncated toward the past, since Arrow stops at ns.
 */
export function instantToUnits(instant: Instant, digits: number): number | bigint {
  const frac = (instant.fraction.slice(1, digits + 1) + '000000000').slice(0, digits);
  const n = instant.seconds * 10 ** digits + Number(frac);
  return Number.isSafeInteger(n) ? n : BigInt(instant.seconds) * 10n ** BigInt(digits) + BigInt(frac);
}

/** 10^0 to 10^9 (Arrow's units): `10 ** digits` with a variable exponent costs more than the rest of a parse. */
const POW10 = [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9];

/**
 * Timestamps of one column as Arrow units, from their text: `instantToUnits(parseTimestamp(text), digits)` for the
 * usual layout without the instant object or any string. It keeps the minute (`YYYY-MM-DD HH:MM`) it last read, as
 * its 16 character codes, and its seconds since the epoch: events of a batch are close in time, so most share their
 * minute with the one before (then only the seconds and the fraction are read). Codes rather than a substring: a
 * substring may keep a larger string alive. Each column builder owns one, so nothing is shared between columns.
 */
export class TimestampUnits {
  private readonly lastMinute = new Uint16Array(16);
  private lastMinuteValid = false;
  private lastMinuteSeconds = 0;

  /**
   * The units of `text` in the usual layout (`YYYY-MM-DD HH:MM:SS` with an optional `.` and digits, years
   * 100-9999, months 1-12) when they are a safe integer; null otherwise (the caller then takes the general path,
   * which gives the same units).
   */
  read(text: string, digits: number): number | null {
    const n = text.length;
    if (n < 19 || text.charCodeAt(16) !== 0x3a) return null;
    const minute = this.sameMinute(text) ? this.lastMinuteSeconds : this.readMinute(text);
    if (minute === null) return null;
    const s = digitsAt(text, 17, 2);
    if (!(s >= 0)) return null;
    let frac = 0;
    let k = 0;
    if (n > 19) {
      if (n === 20 || text.charCodeAt(19) !== 0x2e) return null;
      for (let i = 20; i < n; i++) {
        const c = text.charCodeAt(i) - 48;
        if (c < 0 || c > 9) return null;
        if (k < digits) {
          frac = frac * 10 + c;
          k++;
        }
      }
    }
    for (; k < digits; k++) frac *= 10; // digits past `digits` are dropped, missing ones are zeros
    const units = (minute + s) * (POW10[digits] ?? 10 ** digits) + frac;
    return Number.isSafeInteger(units) ? units : null;
  }

  /** Whether `text` starts with the minute last read. */
  private sameMinute(text: string): boolean {
    if (!this.lastMinuteValid) return false;
    const last = this.lastMinute;
    for (let i = 15; i >= 0; i--) if (text.charCodeAt(i) !== last[i]) return false; // the minute differs first
    return true;
  }

  /** The seconds since the epoch of the minute `text` starts with (kept for the next value), or null. */
  private readMinute(text: string): number | null {
    if (text.charCodeAt(4) !== 0x2d || text.charCodeAt(7) !== 0x2d || text.charCodeAt(10) !== 0x20) return null;
    if (text.charCodeAt(13) !== 0x3a) return null;
    const y = digitsAt(text, 0, 4);
    const mo = digitsAt(text, 5, 2);
    const d = digitsAt(text, 8, 2);
    const h = digitsAt(text, 11, 2);
    const mi = digitsAt(text, 14, 2);
    // NaN (not digits) fails every comparison.
    if (!(y >= 100 && mo >= 1 && mo <= 12 && d >= 0 && h >= 0 && mi >= 0)) return null;
    // Date.UTC is linear in the day, hour, minute and second (out-of-range values carry over), and so is this.
    const minute = (daysFromCivil(y, mo) + d - 1) * 86400 + h * 3600 + mi * 60;
    for (let i = 0; i < 16; i++) this.lastMinute[i] = text.charCodeAt(i);
    this.lastMinuteSeconds = minute;
    this.lastMinuteValid = true;
    return minute;
  }
}
