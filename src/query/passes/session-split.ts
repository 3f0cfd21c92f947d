/**
 * Read sessions (API.md "Read sessions"): a closed window cut into streams of about equal rows. The rows are
 * counted first, per time bucket (one cheap query, grouped by `countBucketMs`-wide buckets of broker time: Trino's
 * table statistics say nothing of a time range, and the VAST connector gives no estimate for one), then each cut is
 * put where the counts, spread evenly inside each bucket, reach its share. Cuts are whole milliseconds and the
 * streams half-open [since, until): rows that tie on broker time never straddle two streams, and the streams
 * together are exactly the window.
 */
import type { ColumnNode, QueryNode } from '../tree/nodes.js';

/** Buckets the window is counted in: fine enough to balance streams, few enough for a small result. */
export const COUNT_BUCKETS = 1024;

/** Without `streams` in the request, one stream per this many estimated rows (at least one). */
export const ROWS_PER_STREAM = 1_000_000;

/** Output names of the count query's two columns. */
export const BUCKET_AS = 'bucket';
export const COUNT_AS = 'n';

/** Rows counted in one bucket [startMs, startMs + width). */
export interface BucketCount {
  startMs: number;
  rows: number;
}

/** One stream of a session: [since, until) in epoch ms, and the rows the counts put there. */
export interface StreamRange {
  since: number;
  until: number;
  estimatedRows: number;
}

/** The bucket width that counts [lo, hi) in at most COUNT_BUCKETS buckets, whole milliseconds. */
export function countBucketMs(lo: number, hi: number): number {
  return Math.max(1, Math.ceil((hi - lo) / COUNT_BUCKETS));
}

/**
 * The tree that counts the rows of `q` per time bucket: the same source and filters (row scope and window
 * included), grouped by epoch-aligned buckets of `widthMs`, no order, no limit.
 */
export function bucketCountTree(q: QueryNode, time: ColumnNode, widthMs: number): QueryNode {
  return {
    ...q,
    select: [
      { kind: 'bucket', column: time, ms: widthMs, as: BUCKET_AS },
      { kind: 'aggregate', fn: 'count', column: null, as: COUNT_AS, time: null },
    ],
    groupBy: [BUCKET_AS],
    order: [],
    limit: Infinity,
    offset: 0,
    dedupe: null,
    totalOrder: false,
  };
}

/** The streams a session gets when the request names none: one per ROWS_PER_STREAM estimated rows, at most `max`. */
export function defaultStreams(estimatedRows: number, max: number): number {
  return Math.min(max, Math.max(1, Math.ceil(estimatedRows / ROWS_PER_STREAM)));
}

/**
 * Rows before each instant, the counts spread evenly inside their buckets (clipped to the window): a
 * non-decreasing function of t from 0 at `lo` to the total at `hi`.
 */
function rowsBefore(lo: number, hi: number, widthMs: number, counts: readonly BucketCount[]) {
  const parts = counts
    .map((c) => ({ from: Math.max(lo, c.startMs), to: Math.min(hi, c.startMs + widthMs), rows: c.rows }))
    .filter((p) => p.to > p.from && p.rows > 0)
    .sort((a, b) => a.from - b.from);
  const before: number[] = [0];
  for (const p of parts) before.push(before.at(-1)! + p.rows);
  const at = (t: number): number => {
    let a = 0;
    let b = parts.length;
    // The first part that ends after t: every part before it is wholly before t.
    while (a < b) {
      const m = (a + b) >> 1;
      if (parts[m]!.to <= t) a = m + 1;
      else b = m;
    }
    const p = parts[a];
    if (!p || t <= p.from) return before[a]!;
    return before[a]! + (p.rows * (t - p.from)) / (p.to - p.from);
  };
  return { at, total: before.at(-1)! };
}

/**
 * Cuts [lo, hi) into `streams` streams (fewer when the window has fewer milliseconds) of about equal counted rows;
 * an empty count cuts it into equal widths. Cuts are whole, strictly increasing milliseconds.
 */
export function splitWindow(
  window: { lo: number; hi: number },
  widthMs: number,
  counts: readonly BucketCount[],
  streams: number,
): StreamRange[] {
  const { lo, hi } = window;
  if (!(Number.isSafeInteger(lo) && Number.isSafeInteger(hi) && hi > lo)) throw new Error('a session needs a window');
  const n = Math.max(1, Math.min(streams, hi - lo));
  const f = rowsBefore(lo, hi, widthMs, counts);
  const cuts = [lo];
  for (let k = 1; k < n; k++) {
    const prev = cuts[k - 1]!;
    // Room for the streams still to come, each at least one millisecond wide.
    const last = hi - (n - k);
    const cut =
      f.total > 0 ? firstReaching(f.at, (f.total * k) / n, prev + 1, last) : lo + Math.floor(((hi - lo) * k) / n);
    cuts.push(Math.min(last, Math.max(prev + 1, cut)));
  }
  cuts.push(hi);
  return cuts.slice(0, -1).map((since, i) => {
    const until = cuts[i + 1]!;
    return { since, until, estimatedRows: Math.round(f.at(until)) - Math.round(f.at(since)) };
  });
}

/** The first whole millisecond t in [from, to] with at(t) >= target (`to` when none is): at is non-decreasing. */
function firstReaching(at: (t: number) => number, target: number, from: number, to: number): number {
  let a = from;
  let b = to;
  while (a < b) {
    const m = a + Math.floor((b - a) / 2);
    if (at(m) >= target) b = m;
    else a = m + 1;
  }
  return a;
}
