/**
 * `Accept-Encoding` (RFC 9110 12.5.3): which of our content codings to compress a response with, or none. The
 * coding with the highest q-value wins, ties going to the server's order (CONTENT_CODINGS); `*` stands for every
 * coding the header does not name; q=0 refuses. When no coding of ours is acceptable the response is sent
 * uncompressed, even if the header refuses `identity` too: the RFC allows either that or a 406, and API.md names no
 * 406 for it, so a client never loses its rows over a header.
 */
import { CONTENT_CODINGS, type ContentCoding } from '../core/content-codings.js';

/** RFC 9110 12.5.3: "x-gzip" is the same coding as "gzip". */
const ALIASES: Readonly<Record<string, string>> = { 'x-gzip': 'gzip' };

/** Each coding the header names, with its q-value (the last one wins if a coding is named twice). */
function qValues(header: string): Map<string, number> {
  const q = new Map<string, number>();
  for (const part of header.split(',')) {
    const [name = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    if (name === '') continue;
    const weight = params.find((p) => /^q\s*=/.test(p));
    const value = weight === undefined ? 1 : Number(weight.slice(weight.indexOf('=') + 1).trim());
    // A malformed weight is read as a refusal: never compress with a coding the client may not understand.
    q.set(ALIASES[name] ?? name, Number.isFinite(value) && value >= 0 && value <= 1 ? value : 0);
  }
  return q;
}

/**
 * The coding to send among `offered` (in the server's order of preference), or null for none. No header means
 * none: RFC 9110 allows any coding then, but a client that sent no header may not decode one.
 */
export function negotiateContentCoding(
  header: string | undefined,
  offered: readonly ContentCoding[] = CONTENT_CODINGS,
): ContentCoding | null {
  if (header === undefined || header.trim() === '') return null;
  const q = qValues(header);
  const any = q.get('*') ?? 0;
  let best: ContentCoding | null = null;
  let bestQ = 0;
  for (const coding of offered) {
    const weight = q.get(coding) ?? any;
    if (weight > bestQ) {
      best = coding;
      bestQ = weight;
    }
  }
  return best;
}
