/** The time-window pass: since/until as range predicates on broker time. */
import { and, type ColumnNode, type QueryNode } from '../tree/nodes.js';

/** A timestamp literal of the broker-time column's type. */
export function timeLiteral(time: ColumnNode, epochMs: number, subMs = '') {
  return { kind: 'literal' as const, type: time.type, value: { t: 'timestamp' as const, epochMs, subMs } };
}

/**
 * The time window as range predicates on the bare broker-time column, ANDed at the top so the storage can
 * evaluate them: `since` inclusive, `until` exclusive.
 */
export function applyTimeWindow(q: QueryNode, time: ColumnNode, lo?: number, hi?: number): QueryNode {
  return {
    ...q,
    where: and(
      lo !== undefined ? { kind: 'compare', op: 'gte', column: time, value: timeLiteral(time, lo) } : null,
      hi !== undefined ? { kind: 'compare', op: 'lt', column: time, value: timeLiteral(time, hi) } : null,
      q.where,
    ),
  };
}
