/**
 * Range requests of a file (RFC 9110 14): one byte range of `Range: bytes=...` answered as a 206, a range that
 * starts at or past the end a 416. Several ranges are answered with the whole file (a server may ignore Range,
 * 14.2; the readers this serves ask for one at a time). `If-Range` keeps a range only while the file is the one its
 * validator names (13.1.5): a strong ETag, or the exact Last-Modified date.
 */

/** A range of bytes of a file, inclusive at both ends (as Content-Range writes it). */
export interface ByteRange {
  start: number;
  end: number;
}

/** What a Range header asks of a file of `size` bytes: one range, the whole file (null), or nothing satisfiable. */
export function rangeOf(header: string | undefined, size: number): ByteRange | null | 'unsatisfiable' {
  if (header === undefined) return null;
  const m = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  // Not one byte range (another unit, several ranges, malformed): ignored, the whole file is sent.
  if (!m || (m[1] === '' && m[2] === '')) return null;
  const [, first = '', last = ''] = m;
  if (first === '') {
    // A suffix: the last n bytes; none asked of an empty file cannot be satisfied.
    const n = Number(last);
    if (n === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(first);
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  if (last !== '' && Number(last) < start) return null; // invalid range spec: ignored (14.1.1)
  if (start >= size) return 'unsatisfiable';
  return { start, end };
}

/** Whether `If-Range` (absent: true) names this file: its strong tag, or its Last-Modified date exactly. */
export function ifRangeHolds(header: string | undefined, etag: string, lastModified: string): boolean {
  if (header === undefined) return true;
  const v = header.trim();
  if (v.startsWith('"')) return v === etag;
  if (v.startsWith('W/')) return false; // a weak tag never matches If-Range (13.1.5)
  return v === lastModified;
}
