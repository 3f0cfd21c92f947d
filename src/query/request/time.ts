/**
 * Times in requests: ISO-8601 instants (`2026-11-30T08:00:00Z`, `...+02:00`), dates (`2026-11-30`, midnight UTC),
 * or relative to now (`now`, `-15m`, `-2h`, `-7d`, `-30s`, `-500ms`). Broker and producer timestamps are zone-less
 * and treated as UTC (VAST_TOPIC_TABLES.md), so an instant written without a zone is read as UTC too (PostgREST
 * users write `2026-11-30T08:00:00`).
 */
import { durationMs } from '../../core/duration.js';
import { ApiError } from '../../core/errors.js';

export interface Instant {
  epochMs: number;
  /** Digits beyond milliseconds (up to 6 more), as written. */
  subMs: string;
}

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(Z|[+\- ]\d{2}:?\d{2})?)?$/i;

/** 0001-01-01T00:00:00Z: the first instant a Trino timestamp (and an ISO year) can write. */
const FIRST_INSTANT_MS = -62_135_596_800_000;
/** Parses a time; `what` names the parameter in the error. */
export function parseInstant(text: string, what: string, now = Date.now()): Instant {
  const s = text.trim();
  if (s === 'now') return { epochMs: now, subMs: '' };
  const back = s.startsWith('-') ? durationMs(s.slice(1)) : undefined;
  if (back !== undefined && !/\s/.test(s)) {
    // A relative time reaching before year 1 has no timestamp (and no JS Date): refused, not a failed query.
    if (now - back < FIRST_INSTANT_MS) {
      throw new ApiError('TG_BAD_TIME', `${what}=${JSON.stringify(text)} reaches before the year 1`, {
        parameter: what,
      });
    }
    return { epochMs: now - back, subMs: '' };
  }
  const m = ISO.exec(s);
  if (!m) {
    throw new ApiError(
      'TG_BAD_TIME',
      `${what}=${JSON.stringify(text)} is not a time: use ISO-8601 (2026-11-30T08:00:00Z; UTC when no zone is given) or relative (now, -15m, -2h, -7d)`,
      { parameter: what },
    );
  }
  const [, y, mo, d, h, mi, sec, frac = '', zone] = m;
  const ms = frac.padEnd(3, '0').slice(0, 3);
  const iso = `${y}-${mo}-${d}T${h ?? '00'}:${mi ?? '00'}:${sec ?? '00'}.${ms}${normalizeZone(zone ?? 'Z')}`;
  const epochMs = Date.parse(iso);
  // Date.parse rolls 2026-02-31 and 24:00 over; the wall-clock fields as written must exist, whatever the zone.
  const wall = new Date(
    Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h ?? 0), Number(mi ?? 0), Number(sec ?? 0)),
  );
  const exists =
    wall.getUTCFullYear() === Number(y) &&
    wall.getUTCMonth() === Number(mo) - 1 &&
    wall.getUTCDate() === Number(d) &&
    wall.getUTCHours() === Number(h ?? 0) &&
    wall.getUTCMinutes() === Number(mi ?? 0) &&
    wall.getUTCSeconds() === Number(sec ?? 0);
  if (Number.isNaN(epochMs) || !exists) {
    throw new ApiError('TG_BAD_TIME', `${what}=${JSON.stringify(text)} is not a valid date-time`, { parameter: what });
  }
  return { epochMs, subMs: frac.slice(3).replace(/0+$/, '') };
}

/** A time written relative to now (`now`, `-15m`): it names another instant at every request. */
export function isRelativeTime(text: string): boolean {
  const s = text.trim();
  return s === 'now' || s.startsWith('-');
}

function normalizeZone(z: string): string {
  if (z.toUpperCase() === 'Z') return 'Z';
  // An unescaped '+' in a query string arrives as a space.
  if (z.startsWith(' ')) z = `+${z.slice(1)}`;
  return z.includes(':') ? z : `${z.slice(0, 3)}:${z.slice(3)}`;
}

/** A relative duration like `30s`, `5m`, `1h`, `1d` in ms (settle delays, buckets). */
export function parseDuration(text: string, what: string): number {
  const ms = durationMs(text);
  if (ms === undefined)
    throw new ApiError('TG_BAD_VALUE', `${what}=${JSON.stringify(text)} is not a duration like 30s, 5m, 1h, 1d`);
  return ms;
}
