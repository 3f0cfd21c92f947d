/** The slice pass: one time slice of an anchored read. */
import type { ColumnNode, QueryNode } from '../tree/nodes.js';
import { applyTimeWindow } from './time-window.js';

/**
 * One time slice of an anchored read: the rows of the tree at or after `fromMs` and before `toMs`, at
 * most `limit` of them. Ranges on the bare broker-time column reach the storage, so a slice reads about what
 * it returns instead of everything up to the window's end. A slice after the first starts past the anchor's
 * millisecond, so it skips nothing.
 */
export function applySlice(
  q: QueryNode,
  time: ColumnNode,
  slice: { fromMs?: number; toMs: number; limit: number; first: boolean },
): QueryNode {
  const sliced = applyTimeWindow(q, time, slice.first ? undefined : slice.fromMs, slice.toMs);
  return { ...sliced, limit: slice.limit, offset: slice.first ? q.offset : 0 };
}
