/**
 * A page position: where a page of a read starts, the body of a page token. Topic tables have no unique key, only
 * `timestamp_broker` with millisecond ties and identical duplicates, so a position is (anchor time, rows to skip at
 * or after it) under a total order of the rows, in a window pinned by the first page.
 */
import { Type, type Static } from 'typebox';
import { TIMESTAMP_TEXT_PATTERN } from '../../core/trino-timestamp.js';

/** Broker time as Trino prints a timestamp(3..12): `2026-11-30 07:59:00.123`. */
export const TrinoTimestampText = Type.String({ pattern: TIMESTAMP_TEXT_PATTERN });
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
