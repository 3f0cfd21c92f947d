/**
 * The one CSV field writer (RFC 4180, section 2): a field is quoted when it holds a comma, a quote, CR or LF, and
 * a quote inside a quoted field is doubled. One rule of our own on top: the empty string is written `""`, so that
 * an empty unquoted field always means NULL (PostgreSQL's COPY ... CSV convention).
 * Every CSV byte the gateway writes goes through here, in one of three forms with the same result:
 * - `writeCsvField`: a JS string as one field;
 * - `csvFieldFrom`: the bytes already written since `start` made one field, in place (a payload decoded straight
 *   into the page, or JSON text written there);
 * - `quoteCsvFrom`: those bytes always quoted, when the caller has already counted their quotes while checking them
 *   for something else (varbinary-text.ts), so the bytes are not scanned twice.
 */
import type { PageBuffer } from './page-buffer.js';

const QUOTE = 0x22;

/** True for the bytes that make a field need quotes: `"`, `,`, CR, LF (no byte >= 0x80 of UTF-8 text is one). */
export function isCsvSpecial(c: number): boolean {
  return c === QUOTE || c === 0x2c || c === 0x0a || c === 0x0d;
}

/** Per ASCII byte: 1 when isCsvSpecial, else 0 (for loops that already look bytes up in a table). */
export const CSV_SPECIAL: Uint8Array = Uint8Array.from({ length: 128 }, (_, c) => (isCsvSpecial(c) ? 1 : 0));

/** Per ASCII byte: 1 when it can be copied into an unquoted field as it is (the complement of CSV_SPECIAL). */
export const CSV_PLAIN: Uint8Array = CSV_SPECIAL.map((x) => 1 - x);

/** Writes a string as one CSV field (see the rule above). */
export function writeCsvField(out: PageBuffer, s: string): void {
  const n = s.length;
  out.ensure(n + 2);
  const b = out.bytes;
  const start = out.end;
  if (n === 0) {
    b[start] = QUOTE;
    b[start + 1] = QUOTE;
    out.end = start + 2;
    return;
  }
  // The usual case, plain ASCII: copied as it is, no string made and nothing scanned twice.
  let e = start;
  for (let k = 0; k < n; k++) {
    const c = s.charCodeAt(k);
    if (c >= 0x80 || CSV_SPECIAL[c] !== 0) {
      out.write(s); // nothing committed yet: write it all, then make it a field in place
      csvFieldFrom(out, start);
      return;
    }
    b[e++] = c;
  }
  out.end = e;
}

/** Makes the bytes written since `start` one CSV field in place: quoted when needed, `""` when empty. */
export function csvFieldFrom(out: PageBuffer, start: number): void {
  const end = out.end;
  const b = out.bytes;
  let special = end === start;
  let quotes = 0;
  for (let i = start; i < end; i++) {
    const c = b[i]!;
    if (c === QUOTE) quotes++;
    else if (isCsvSpecial(c)) special = true;
  }
  if (special || quotes > 0) quoteCsvFrom(out, start, quotes);
}

/**
 * Quotes the bytes written since `start` in place, whatever they hold: `"`, the bytes with each of their `quotes`
 * `"` doubled, `"`. Each byte moves once, back to front.
 */
export function quoteCsvFrom(out: PageBuffer, start: number, quotes: number): void {
  out.ensure(quotes + 2);
  const b = out.bytes;
  const end = out.end;
  let w = end + quotes;
  b[w + 1] = QUOTE;
  for (let r = end - 1; r >= start; r--) {
    const c = b[r]!;
    b[w--] = c;
    if (c === QUOTE) b[w--] = QUOTE;
  }
  b[start] = QUOTE;
  out.end = end + quotes + 2;
}
