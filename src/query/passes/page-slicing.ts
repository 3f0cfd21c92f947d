/**
 * How a page is read in time slices (read/sliced-result.ts runs them), chosen from what is known before and during
 * the read: whether the request's filter is selective and reaches the scan, the width the previous page learnt,
 * and how many rows the previous slice returned of those it asked for.
 */
import { TIME_COLUMN, type PredicateNode } from '../tree/nodes.js';
import type { PagePosition } from '../tree/page-position.js';
import type { SlicePlan } from '../tree/plan.js';
import type { TopicModel } from '../tree/topic-model.js';
import { epochOfTrinoTimestamp } from '../../core/trino-timestamp.js';
import { typeFamily } from '../../core/type-family.js';

/** The first page's first slice, as a share of its window: later pages learn the width from the rows they saw. */
const FIRST_SLICE_SHARE = 64;

/** An IN list longer than this is not taken as selective: it may match a large share of the events. */
const SELECTIVE_IN_VALUES = 16;

/** The most a slice may be wider than the one before it, however few rows that one returned. */
const MAX_GROWTH = 64;

/**
 * The request's filter matches few events and the storage evaluates it: an equality (or a short IN list) on a bare
 * column other than broker time, ANDed at the top (a key equality, the common case). VAST evaluates it in the scan
 * (VAST_TOPIC_TABLES.md), so a read over a wide range costs about the rows it matches, and one query over the whole
 * rest of the window is cheaper than a series of slices each paying a query's fixed cost.
 */
export function selectiveFilter(where: PredicateNode | null): boolean {
  if (!where) return false;
  const conjuncts = where.kind === 'and' ? where.items : [where];
  return conjuncts.some((p) => {
    if (p.kind !== 'compare' && p.kind !== 'in') return false;
    const c = p.column;
    if (c.source.kind !== 'table' || c.name === TIME_COLUMN || typeFamily(c.type) === 'other') return false;
    return p.kind === 'compare' ? p.op === 'eq' : p.values.length > 0 && p.values.length <= SELECTIVE_IN_VALUES;
  });
}

/**
 * The time slices of an anchored page in ascending broker time, in a pinned window; null when it has none. A
 * selective filter (selectiveFilter) reads the rest of the window as one slice; otherwise the first slice is as
 * wide as the previous page learnt (growing by 2), or a share of the window (growing by 4: a guess).
 */
export function pageSlices(topic: TopicModel, position: PagePosition, where: PredicateNode | null): SlicePlan | null {
  const from = position.a !== undefined ? epochOfTrinoTimestamp(position.a) : position.lo;
  if (!topic.time || position.hi === undefined || from === undefined || position.loose === true) return null;
  const rest = Math.max(1, position.hi - from);
  if (selectiveFilter(where)) return { time: topic.time, fromMs: from, hi: position.hi, widthMs: rest, growth: 2 };
  return {
    time: topic.time,
    fromMs: from,
    hi: position.hi,
    widthMs: position.w ?? Math.max(1, Math.ceil(rest / FIRST_SLICE_SHARE)),
    // Without a learnt width the first slice is a guess: grow fast to find the rows (or the window's end).
    growth: position.w === undefined ? 4 : 2,
  };
}

/** What the slice before the next one yielded. */
export interface SliceYield {
  /** Its width, ms. */
  widthMs: number;
  /** Rows it returned. */
  got: number;
  /** Rows the read still needs after it (Infinity: as many as there are, nothing to aim at). */
  missing: number;
}

/**
 * The width of the next slice. At least `growth` times the last; when the last slice returned far fewer rows than
 * are still missing, as wide as its density says the missing rows need (a quarter more, for the variation), so a
 * sparse read finds its rows in one more query instead of a doubling series. A slice that returned nothing says
 * only that the rows are rarer than one per its width: the next grows by growth squared. Never more than
 * MAX_GROWTH times the last, so a sparse stretch before a dense one costs a bounded slice.
 */
export function nextSliceWidth(slices: SlicePlan, last: SliceYield): number {
  const { widthMs, got, missing } = last;
  const floor = widthMs * slices.growth;
  if (!Number.isFinite(missing) || missing <= 0) return floor;
  const aimed = got > 0 ? Math.ceil((widthMs * missing * 1.25) / got) : widthMs * slices.growth * slices.growth;
  return Math.min(widthMs * MAX_GROWTH, Math.max(floor, aimed));
}
