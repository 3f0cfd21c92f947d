/**
 * Trino timestamp text -> Arrow's integer units (ms, us or ns since the epoch, UTC). Every digit is carried as
 * an integer, never through a float, so p up to 9 is exact; Arrow stops at ns, so digits past 9 are truncated.
 */
import { digitsAt, type Instant } from '../trino-timestamp.js';

/**
 * The instant in `10^-digits` second units (3 ms, 6 us, 9 ns): a number when it is a safe integer, otherwise a
 * bigint. Digits beyond `digits` (Trino's p up to 12) are truncated toward the past, since Arrow stops at ns.
 */
export function instantToUnits(instant: Instant, digits: number): number | bigint {
  const frac = (instant.fraction.slice(1, digits + 1) + '000000000').slice(0, digits);
  const n = instant.seconds * 10 ** digits + Number(frac);
  return Number.isSafeInteger(n) ? n : BigInt(instant.seconds) * 10n ** BigInt(digits) + BigInt(frac);
}

/**
 * The minute (`YYYY-MM-DD HH:MM`) last parsed by timestampToUnits, as its 16 character codes, and its seconds since
 * the epoch: events of a batch are close in time, so most share their minute with the one before (then only the
 * seconds and the fraction are read). Codes rather than a substring: a substring may keep a larger string alive.
 */
const lastMinute = new Uint16Array(16);
/** 10^0 to 10^9 (Arrow's units): `10 ** digits` with a variable exponent costs more than the rest of a parse. */
const POW10 = [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9];
let lastMinuteValid = false;
let lastMinuteSeconds = 0;

/** Whether `text` starts with the minute last parsed. */
function sameMinute(text: string): boolean {
  if (!lastMinuteValid) return false;
  for (let i = 15; i >= 0; i--) if (text.charCodeAt(i) !== lastMinute[i]) return false; // the minute differs first
  return true;
}

/**
 * `instantToUnits(parseTimestamp(text), digits)` for the usual layout (`YYYY-MM-DD HH:MM:SS` with an optional
 * `.` and digits, years 100-9999, months 1-12) when the result is a safe integer, computed without the instant
 * object or any string; null otherwise (the caller then takes the general path, which gives the same units).
 */
export function timestampToUnits(text: string, digits: number): number | null {
  const n = text.length;
  if (n < 19 || text.charCodeAt(16) !== 0x3a) return null;
  let minute = lastMinuteSeconds;
  if (!sameMinute(text)) {
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
    minute = (daysFromCivil(y, mo) + d - 1) * 86400 + h * 3600 + mi * 60;
    for (let i = 0; i < 16; i++) lastMinute[i] = text.charCodeAt(i);
    lastMinuteSeconds = minute;
    lastMinuteValid = true;
  }
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

/** Days from 1970-01-01 to the first of month `m` of year `y` in the proleptic Gregorian calendar (as Date.UTC). */
export function daysFromCivil(y: number, m: number): number {
  if (m <= 2) y--;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m > 2 ? m - 3 : m + 9) + 2) / 5);
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}
