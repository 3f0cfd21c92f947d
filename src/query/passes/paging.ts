/**
 * Exact paging with opaque tokens. Topic tables have no unique key, only `timestamp_broker` with millisecond
 * ties and identical duplicates, so a page position is (anchor time, rows to skip at or after it) under a
 * total order of the rows; identical duplicates are interchangeable, so skipping counts them exactly.
 * Relative times and the upper bound are pinned by the first page, so every page reads the same fixed set.
 * The token is signed (signed-token.ts): a tampered token, or one from another query, is refused.
 */
import { createHash } from 'node:crypto';
import { Type, type Static } from 'typebox';
import { ApiError } from '../../core/errors.js';
import { TIME_COLUMN, type ColumnNode, type PredicateNode } from '../tree/nodes.js';
import type { ReadRequest, TopicModel } from '../plan.js';
import { parseInstant } from '../request/time.js';
import { Keyring, SignedTokens, type TokenFault } from '../../core/signed-token.js';

/** Broker time as Trino prints a timestamp(3..12): `2026-11-30 07:59:00.123`. */
export const TrinoTimestampText = Type.String({
  pattern: '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}(\\.\\d{1,12})?$',
});
const Count = Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER });
const EpochMs = Type.Integer({ minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER });

/** A page position: the body of a page token. */
export const PagePositionSchema = Type.Object(
  {
    /** Hash of the query's meaning; a token is valid only for the query that made it. */
    h: Type.String(),
    /** anchor: keyset on broker time plus a skip within it; offset: a plain row offset. */
    m: Type.Union([Type.Literal('anchor'), Type.Literal('offset')]),
    /** Broker time (Trino text) the page starts at, in anchor mode. */
    a: Type.Optional(TrinoTimestampText),
    /** Rows to skip (at or after the anchor, or from the start in offset mode). */
    s: Count,
    /** Pinned window, epoch ms: since (inclusive) and until (exclusive). */
    lo: Type.Optional(EpochMs),
    hi: Type.Optional(EpochMs),
    /**
     * The skip counts rows from the anchor across milliseconds (a next page presumed before its rows were seen),
     * not only rows at the anchor's millisecond: such a page is not read in time slices.
     */
    loose: Type.Optional(Type.Literal(true)),
    /** Width of the next page's first time slice, ms (learnt from the rows per ms of this page). */
    w: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })),
  },
  { additionalProperties: false },
);
export type PagePosition = Static<typeof PagePositionSchema>;

export function queryHash(meaning: unknown): string {
  return createHash('sha256').update(JSON.stringify(meaning)).digest('base64url').slice(0, 16);
}

const PAGE_FAULTS = {
  malformed: 'not a page cursor',
  oversize: 'not a page cursor',
  kind: 'not a page cursor',
  signature: 'not a cursor this service issued',
  shape: 'bad position',
} as const satisfies Record<TokenFault, string>;

export class PageTokens {
  private readonly tokens: SignedTokens<typeof PagePositionSchema>;

  /** `keys`: the keyring, or a bare secret (TOPICGATE_CURSOR_SECRET). */
  constructor(keys: Keyring | string) {
    const keyring = typeof keys === 'string' ? Keyring.fromSecrets(keys) : keys;
    this.tokens = new SignedTokens({ kind: 'p1', schema: PagePositionSchema, maxLength: 2048, keys: keyring });
  }

  encode(p: PagePosition): string {
    return this.tokens.seal(p);
  }

  /** Decodes a token for the query with hash `h`; any defect is a 400 TG_BAD_CURSOR. */
  decode(token: string, h: string): PagePosition {
    const bad = (why: string) => new ApiError('TG_BAD_CURSOR', `cursor: ${why}`, { parameter: 'cursor' });
    const r = this.tokens.open(token);
    if (!r.ok) throw bad(PAGE_FAULTS[r.fault]);
    if (r.body.h !== h) throw bad('belongs to another query (the filters, order or select changed)');
    return r.body;
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
  if (!times || cur.m !== 'anchor' || times.total === 0)
    return cur.m === 'anchor' && rows > 0 ? { ...cur, s: cur.s + rows, loose: true } : { ...cur, s: cur.s + rows };
  const s = times.trailing === times.total && times.last === cur.a ? cur.s + times.trailing : times.trailing;
  const { loose: _, ...rest } = cur;
  return { ...rest, a: times.last, s };
}

/**
 * The filters as plain data for the page-token hash: the node tree with each column reduced to its name (its type
 * and source follow from the topic). Hashing the tree, not its SQL, keeps tokens valid across changes in how SQL
 * is rendered.
 */
export function canonicalWhere(where: PredicateNode | null): string {
  return JSON.stringify(where, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && (v as { kind?: unknown }).kind === 'column' ? (v as ColumnNode).name : v,
  );
}

export function firstPosition(
  h: string,
  anchored: boolean,
  topic: TopicModel,
  req: ReadRequest,
  now: number,
): PagePosition {
  const p: PagePosition = { h, m: anchored ? 'anchor' : 'offset', s: 0 };
  if ((req.since !== undefined || req.until !== undefined) && !topic.time) {
    throw new ApiError('TG_BAD_REQUEST', `since/until: ${topic.id} has no ${TIME_COLUMN}`);
  }
  if (!topic.time) return p;
  if (req.since !== undefined) p.lo = ceilMs(parseInstant(req.since, 'since', now));
  // The first page pins the upper bound, so later pages read the same set even while the topic grows.
  p.hi = req.until !== undefined ? ceilMs(parseInstant(req.until, 'until', now)) : now;
  if (p.lo !== undefined && p.hi <= p.lo)
    throw new ApiError('TG_BAD_TIME', 'until must be after since', { parameter: 'until' });
  return p;
}

function ceilMs(i: { epochMs: number; subMs: string }): number {
  return i.subMs.replace(/0+$/, '') ? i.epochMs + 1 : i.epochMs;
}
