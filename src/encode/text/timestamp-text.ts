/**
 * Trino timestamp text -> ISO-8601 UTC text (`2026-11-01T00:00:00.000Z`) for the text formats, with every
 * fractional digit Trino sent.
 */
import type { Instant, TimestampTzParser } from '../trino-timestamp.js';
import type { PageBuffer } from './page-buffer.js';

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
export function timestampTzToIso(text: string, parser: TimestampTzParser): string {
  const instant = parser.parse(text);
  return instant === null ? text : instantToIso(instant);
}

/** `2026-11-01T00:00:00.123Z` from an instant (the fraction kept as given). */
export function instantToIso(instant: Instant): string {
  const iso = new Date(instant.seconds * 1000).toISOString(); // ...T..:..:..sssZ, or +YYYYYY-... far out
  return iso.slice(0, iso.length - 5) + instant.fraction + 'Z';
}

/**
 * Writes `timestamp(p)` text as ISO-8601 UTC (as timestampToIso) straight from Trino's text
 * (`2026-11-01 00:00:00.000`: the space at index 10 becomes `T`, then `Z`), as a JSON string (`quoted`) or a bare
 * CSV field. `plain[c]` is 1 for each ASCII byte that may be copied as it is. False (nothing written) when the text
 * has another byte or another layout: the caller then takes the general path.
 */
export function writeIsoTimestamp(out: PageBuffer, s: string, plain: Uint8Array, quoted: boolean): boolean {
  const n = s.length;
  if (s.charCodeAt(10) !== 0x20) return false;
  out.ensure(n + 3);
  const b = out.bytes;
  let e = out.end;
  if (quoted) b[e++] = 0x22;
  for (let k = 0; k < n; k++) {
    const c = s.charCodeAt(k);
    if (c >= 0x80 || plain[c] === 0) return false;
    b[e++] = c;
  }
  b[e - n + 10] = 0x54; // T
  b[e++] = 0x5a; // Z
  if (quoted) b[e++] = 0x22;
  out.end = e;
  return true;
}
