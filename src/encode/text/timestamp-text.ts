/**
 * Trino timestamp text -> ISO-8601 UTC text (`2026-11-01T00:00:00.000Z`) for the text formats, with every
 * fractional digit Trino sent.
 */
import type { Instant, TimestampTzParser } from '../../core/trino-timestamp.js';
import type { PageBuffer } from './page-buffer.js';

const QUOTE = 0x22;

/** The longest timestamp text copied by `isoTimestampFrom`: a year of up to 6 digits, 12 fractional digits, quotes. */
const TIMESTAMP_ROOM = 40;

/** Per byte: 1 when a timestamp's text may hold it to be copied into a JSON string as it is (printable ASCII, no `"` or `\`). */
export const ISO_JSON_PLAIN = Uint8Array.from({ length: 256 }, (_, c) =>
  c >= 0x20 && c < 0x7f && c !== QUOTE && c !== 0x5c ? 1 : 0,
);

/**
 * Writes `timestamp(p)` text as ISO-8601 UTC (as timestampToIso) straight from the JSON string Trino sent at
 * `src[i]` (`"2026-11-01 00:00:00.000"`: the space at index 10 of the text becomes `T`, then `Z`), as a JSON string
 * (`quoted`) or a bare CSV field; copied and checked in one loop. `plain[c]` is 1 for each byte that may be copied
 * as it is (never `"`). Returns the index after the closing quote, or -1 (the page must then be reset) for text of
 * another layout, with another byte, or longer than any timestamp.
 */
export function isoTimestampFrom(src: Uint8Array, i: number, out: PageBuffer, plain: Uint8Array, quoted: boolean) {
  if (src[i] !== QUOTE || src[i + 11] !== 0x20) return -1;
  out.ensure(TIMESTAMP_ROOM);
  const b = out.bytes;
  // Where src[i + k] goes: after the opening quote when quoted; a bare field starts with src[i + 1].
  const w = quoted ? out.end : out.end - 1;
  if (quoted) b[w] = QUOTE;
  const last = Math.min(src.length - i, TIMESTAMP_ROOM - 3);
  for (let k = 1; k < last; k++) {
    const c = src[i + k]!;
    if (plain[c] === 0) {
      if (c !== QUOTE || k < 12) return -1;
      b[w + 11] = 0x54; // T
      b[w + k] = 0x5a; // Z
      if (quoted) b[w + k + 1] = QUOTE;
      out.end = w + k + (quoted ? 2 : 1);
      return i + k + 1;
    }
    b[w + k] = c;
  }
  return -1;
}

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
