/**
 * Trino timestamp text -> ISO-8601 UTC text (text formats) or a UTC instant (Arrow).
 * Trino sends `timestamp(p)` as `2026-11-01 00:00:00.123` (no zone: the gateway treats it as UTC) and
 * `timestamp(p) with time zone` as `2026-11-01 00:00:00.123 UTC`, `... +02:00` or `... Europe/Berlin`.
 * Fractional digits are carried as text, never through a float, so all p (up to 12) digits survive.
 */

/** A UTC instant: whole seconds since the epoch plus the fraction exactly as Trino wrote it (`.123`, or ''). */
export interface Instant {
  seconds: number;
  fraction: string;
}

const LOCAL = /^([+-]?\d{4,})-(\d\d)-(\d\d)[ T](\d\d):(\d\d):(\d\d)(\.\d+)?$/;

/** `timestamp(p)` text as ISO-8601 UTC: `2026-11-01 00:00:00.000` -> `2026-11-01T00:00:00.000Z`. */
export function timestampToIso(text: string): string {
  // Fast path for years 0000-9999: the space sits at index 10.
  if (text.charCodeAt(10) === 0x20) return text.slice(0, 10) + 'T' + text.slice(11) + 'Z';
  const space = text.indexOf(' ');
  return space < 0 ? text : text.slice(0, space) + 'T' + text.slice(space + 1) + 'Z';
}

/**
 * `timestamp(p) with time zone` text as ISO-8601 UTC (`...Z`). Offsets and zone names the runtime knows (IANA,
 * through Intl) are converted; text with a zone the runtime cannot resolve is returned unchanged rather than
 * guessed.
 */
export function timestampTzToIso(text: string): string {
  const instant = parseTimestampTz(text);
  return instant === null ? text : instantToIso(instant);
}

/** Parses `timestamp(p)` text (taken as UTC). Null when it is not timestamp text. */
export function parseTimestamp(text: string): Instant | null {
  if (text.length >= 19 && text.charCodeAt(4) === 0x2d && text.charCodeAt(10) === 0x20) {
    // Fixed layout YYYY-MM-DD HH:MM:SS(.f*): read the digits in place, no regex on the hot path.
    const seconds = utcSeconds(
      num(text, 0, 4),
      num(text, 5, 2),
      num(text, 8, 2),
      num(text, 11, 2),
      num(text, 14, 2),
      num(text, 17, 2),
    );
    if (!Number.isNaN(seconds)) return { seconds, fraction: text.slice(19) };
  }
  const m = LOCAL.exec(text);
  if (m === null) return null;
  const [, y, mo, d, h, mi, s, f] = m;
  return { seconds: utcSeconds(+y!, +mo!, +d!, +h!, +mi!, +s!), fraction: f ?? '' };
}

/** Parses `timestamp(p) with time zone` text into a UTC instant; null when the zone cannot be resolved. */
export function parseTimestampTz(text: string): Instant | null {
  const space = text.lastIndexOf(' ');
  if (space < 0) return null;
  const local = parseTimestamp(text.slice(0, space));
  if (local === null) return null;
  const zone = text.slice(space + 1);
  const offset = zoneOffsetSeconds(zone, local.seconds);
  return offset === null ? null : { seconds: local.seconds - offset, fraction: local.fraction };
}

/** `2026-11-01T00:00:00.123Z` from an instant (the fraction kept as given). */
export function instantToIso(instant: Instant): string {
  const iso = new Date(instant.seconds * 1000).toISOString(); // ...T..:..:..sssZ, or +YYYYYY-... far out
  return iso.slice(0, iso.length - 5) + instant.fraction + 'Z';
}

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
 * `instantToUnits(parseTimestamp(text), digits)` for the usual layout (`YYYY-MM-DD HH:MM:SS` with an optional
 * `.` and digits, years 100-9999, months 1-12) when the result is a safe integer, computed without the instant
 * object or any string; null otherwise (the caller then takes the general path, which gives the same units).
 */
export function timestampToUnits(text: string, digits: number): number | null {
  const n = text.length;
  if (n < 19 || text.charCodeAt(4) !== 0x2d || text.charCodeAt(7) !== 0x2d || text.charCodeAt(10) !== 0x20) return null;
  if (text.charCodeAt(13) !== 0x3a || text.charCodeAt(16) !== 0x3a) return null;
  const y = num(text, 0, 4);
  const mo = num(text, 5, 2);
  const d = num(text, 8, 2);
  const h = num(text, 11, 2);
  const mi = num(text, 14, 2);
  const s = num(text, 17, 2);
  // NaN (not digits) fails every comparison.
  if (!(y >= 100 && mo >= 1 && mo <= 12 && d >= 0 && h >= 0 && mi >= 0 && s >= 0)) return null;
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
  // Date.UTC is linear in the day, hour, minute and second (out-of-range values carry over), and so is this.
  const seconds = (daysFromCivil(y, mo) + d - 1) * 86400 + h * 3600 + mi * 60 + s;
  const units = seconds * 10 ** digits + frac;
  return Number.isSafeInteger(units) ? units : null;
}

/** Days from 1970-01-01 to the first of month `m` of year `y` in the proleptic Gregorian calendar (as Date.UTC). */
function daysFromCivil(y: number, m: number): number {
  if (m <= 2) y--;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m > 2 ? m - 3 : m + 9) + 2) / 5);
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

function num(s: string, at: number, len: number): number {
  let n = 0;
  for (let i = at; i < at + len; i++) {
    const d = s.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return NaN;
    n = n * 10 + d;
  }
  return n;
}

function utcSeconds(y: number, mo: number, d: number, h: number, mi: number, s: number): number {
  if (y >= 100) return Date.UTC(y, mo - 1, d, h, mi, s) / 1000;
  // Date.UTC maps years 0-99 to 1900-1999; setUTCFullYear does not.
  const date = new Date(0);
  date.setUTCFullYear(y, mo - 1, d);
  date.setUTCHours(h, mi, s, 0);
  return date.getTime() / 1000;
}

const OFFSET = /^(?:UTC|GMT)?([+-])(\d\d):?(\d\d)$/;
const UTC_NAMES = new Set(['UTC', 'Z', 'GMT', 'UT', 'Etc/UTC', 'Etc/GMT', 'Zulu']);
const zoneFormats = new Map<string, Intl.DateTimeFormat | null>();

/** Offset of `zone` (local minus UTC, seconds) for a local wall time given as if it were UTC; null if unknown. */
function zoneOffsetSeconds(zone: string, localSeconds: number): number | null {
  if (UTC_NAMES.has(zone)) return 0;
  const m = OFFSET.exec(zone);
  if (m !== null) return (m[1] === '-' ? -1 : 1) * (+m[2]! * 3600 + +m[3]! * 60);
  const format = zoneFormat(zone);
  if (format === null) return null;
  // Local wall time -> instant: guess with the offset at the wall time, then correct once (DST edges).
  return offsetAt(format, localSeconds - offsetAt(format, localSeconds));
}

function zoneFormat(zone: string): Intl.DateTimeFormat | null {
  let format = zoneFormats.get(zone);
  if (format === undefined) {
    try {
      format = new Intl.DateTimeFormat('en-US', {
        timeZone: zone,
        hourCycle: 'h23',
        era: 'short',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
      });
    } catch {
      format = null; // RangeError: not a zone this runtime knows
    }
    if (zoneFormats.size < 1000) zoneFormats.set(zone, format);
  }
  return format;
}

function offsetAt(format: Intl.DateTimeFormat, utc: number): number {
  const p: Record<string, string> = {};
  for (const part of format.formatToParts(utc * 1000)) p[part.type] = part.value;
  const year = p.era === 'BC' ? 1 - Number(p.year) : Number(p.year);
  return utcSeconds(year, +p.month!, +p.day!, +p.hour!, +p.minute!, +p.second!) - Math.floor(utc);
}
