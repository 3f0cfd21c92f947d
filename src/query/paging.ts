/**
 * Exact paging with opaque tokens. Topic tables have no unique key, only `timestamp_broker` with millisecond
 * ties and identical duplicates, so a page position is (anchor time, rows to skip at or after it) under a
 * total order of the rows; identical duplicates are interchangeable, so skipping counts them exactly.
 * Relative times and the upper bound are pinned by the first page, so every page reads the same fixed set.
 * The token is signed: a tampered token, or one from another query, is refused.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { ApiError } from '../errors.js';

export interface PagePosition {
  /** Hash of the query's meaning; a token is valid only for the query that made it. */
  h: string;
  /** anchor: keyset on broker time plus a skip within it; offset: a plain row offset. */
  m: 'anchor' | 'offset';
  /** Broker time (Trino text) the page starts at, in anchor mode. */
  a?: string;
  /** Rows to skip (at or after the anchor, or from the start in offset mode). */
  s: number;
  /** Pinned window, epoch ms: since (inclusive) and until (exclusive). */
  lo?: number;
  hi?: number;
}

export function queryHash(meaning: unknown): string {
  return createHash('sha256').update(JSON.stringify(meaning)).digest('base64url').slice(0, 16);
}

export class PageTokens {
  constructor(private readonly secret: string) {}

  encode(p: PagePosition): string {
    const body = Buffer.from(JSON.stringify(p)).toString('base64url');
    return `${body}.${this.sign(body)}`;
  }

  /** Decodes a token for the query with hash `h`; any defect is a 400 TG_BAD_CURSOR. */
  decode(token: string, h: string): PagePosition {
    const bad = (why: string) => new ApiError('TG_BAD_CURSOR', `cursor: ${why}`, { parameter: 'cursor' });
    const [body, sig, extra] = token.split('.');
    if (!body || !sig || extra !== undefined || token.length > 2048) throw bad('not a page cursor');
    const want = Buffer.from(this.sign(body));
    const got = Buffer.from(sig);
    if (want.length !== got.length || !timingSafeEqual(want, got)) throw bad('not a cursor this service issued');
    let p: PagePosition;
    try {
      p = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as PagePosition;
    } catch {
      throw bad('not a page cursor');
    }
    if (p.h !== h) throw bad('belongs to another query (the filters, order or select changed)');
    if (!Number.isSafeInteger(p.s) || p.s < 0 || (p.m !== 'anchor' && p.m !== 'offset')) throw bad('bad position');
    for (const t of [p.lo, p.hi]) if (t !== undefined && !Number.isSafeInteger(t)) throw bad('bad position');
    if (p.a !== undefined && !/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{1,12})?$/.test(p.a)) throw bad('bad position');
    return p;
  }

  private sign(body: string): string {
    return createHmac('sha256', this.secret).update(body).digest('base64url').slice(0, 22);
  }
}

/** The broker times of a page, summarized: the last one and how many rows at the end share it. */
export interface PageTimes {
  last: string;
  trailing: number;
  total: number;
}

/**
 * The position after a page. In anchor mode the new anchor is the last row's broker time and the skip counts
 * the rows at that time (plus the old skip when the whole page stayed in the old anchor's millisecond).
 */
export function nextPosition(cur: PagePosition, times: PageTimes | null, rows: number): PagePosition {
  if (!times || cur.m !== 'anchor' || times.total === 0) return { ...cur, s: cur.s + rows };
  const s = times.trailing === times.total && times.last === cur.a ? cur.s + times.trailing : times.trailing;
  return { ...cur, a: times.last, s };
}
