/**
 * The text Trino writes timestamps in, read and written here only: the encoders (encode/text/timestamp-text.ts
 * writes it as ISO-8601, encode/arrow/timestamp-units.ts and timestamp-bytes.ts as Arrow's integer units, their
 * byte fast paths tested against `parseTimestamp`), page positions and cursors (the broker time a page starts at)
 * and the planner (the bounds it writes into SQL).
 * Trino sends `timestamp(p)` (p from 0 to 12) as `2026-11-01 00:00:00.123` (no zone: the gateway treats it as UTC)
 * and `timestamp(p) with time zone` as `2026-11-01 00:00:00.123 UTC`, `... +02:00` or `... Europe/Berlin`.
 * Fractional digits are carried as text, never through a float, so all p (up to 12) digits survive.
 */

/** `timestamp(p)` text of years 0000-9999 as Trino prints it, p from 0 to 12 (a JSON Schema `pattern`). */
export const TIMESTAMP_TEXT_PATTERN = '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}(\\.\\d{1,12})?$';

/** The Trino text of a timestamp(3) value for an instant: `2026-11-30 08:00:00.000`. */
export function trinoTimestampText(epochMs: number): string {
  const iso = new Date(epochMs).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 23)}`;
}

/** Epoch ms of a Trino timestamp text (`2026-11-30 08:00:00.000[000]`), read as UTC: digits past ms are dropped. */
export function epochOfTrinoTimestamp(text: string): number {
  return Date.parse(`${text.slice(0, 10)}T${text.slice(11, 23)}Z`);
}

/** A UTC instant: whole seconds since the epoch plus the fraction exactly as Trino wrote it (`.123`, or ''). */
export interface Instant {
  seconds: number;
  fraction: string;
}

const LOCAL = /^([+-]?\d{4,})-(\d\d)-(\d\d)[ T](\d\d):(\d\d):(\d\d)(\.\d+)?$/;

/** Parses `timestamp(p)` text (taken as UTC). Null when it is not timestamp text. */
export function parseTimestamp(text: string): Instant | null {
  if (text.length >= 19 && text.charCodeAt(4) === 0x2d && text.charCodeAt(10) === 0x20) {
    // Fixed layout YYYY-MM-DD HH:MM:SS(.f*): read the digits in place, no regex on the hot path.
    const seconds = utcSeconds(
      digitsAt(text, 0, 4),
      digitsAt(text, 5, 2),
      digitsAt(text, 8, 2),
      digitsAt(text, 11, 2),
      digitsAt(text, 14, 2),
      digitsAt(text, 17, 2),
    );
    if (!Number.isNaN(seconds)) return { seconds, fraction: text.slice(19) };
  }
  const m = LOCAL.exec(text);
  if (m === null) return null;
  const [, y, mo, d, h, mi, s, f] = m;
  return { seconds: utcSeconds(+y!, +mo!, +d!, +h!, +mi!, +s!), fraction: f ?? '' };
}

/** The decimal number written by `s[at, at + len)`; NaN unless those are all digits. */
export function digitsAt(s: string, at: number, len: number): number {
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

/**
 * Parses `timestamp(p) with time zone` text into UTC instants. It keeps the Intl format of each zone name it has
 * resolved (building one costs far more than using it, and Trino repeats the zone of every value): each value
 * writer or column builder owns a parser, so nothing is kept between requests or shared between columns.
 */
export class TimestampTzParser {
  private readonly formats = new Map<string, Intl.DateTimeFormat | null>();

  /** The UTC instant; null when the text is not a timestamp or its zone cannot be resolved. */
  parse(text: string): Instant | null {
    const space = text.lastIndexOf(' ');
    if (space < 0) return null;
    const local = parseTimestamp(text.slice(0, space));
    if (local === null) return null;
    const zone = text.slice(space + 1);
    const offset = this.offsetSeconds(zone, local.seconds);
    return offset === null ? null : { seconds: local.seconds - offset, fraction: local.fraction };
  }

  /** Offset of `zone` (local minus UTC, seconds) for a local wall time given as if it were UTC; null if unknown. */
  private offsetSeconds(zone: string, localSeconds: number): number | null {
    if (UTC_NAMES.has(zone)) return 0;
    const m = OFFSET.exec(zone);
    if (m !== null) return (m[1] === '-' ? -1 : 1) * (+m[2]! * 3600 + +m[3]! * 60);
    const format = this.format(zone);
    if (format === null) return null;
    // Local wall time -> instant: guess with the offset at the wall time, then correct once (DST edges).
    return offsetAt(format, localSeconds - offsetAt(format, localSeconds));
  }

  private format(zone: string): Intl.DateTimeFormat | null {
    let format = this.formats.get(zone);
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
      if (this.formats.size < 1000) this.formats.set(zone, format);
    }
    return format;
  }
}

function offsetAt(format: Intl.DateTimeFormat, utc: number): number {
  const p: Record<string, string> = {};
  for (const part of format.formatToParts(utc * 1000)) p[part.type] = part.value;
  const year = p.era === 'BC' ? 1 - Number(p.year) : Number(p.year);
  return utcSeconds(year, +p.month!, +p.day!, +p.hour!, +p.minute!, +p.second!) - Math.floor(utc);
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
