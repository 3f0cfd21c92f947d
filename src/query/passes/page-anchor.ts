/** The paging pass: a page position (tree/page-position.ts) as an anchor predicate and a row offset. */
import { and, type ColumnNode, type QueryNode } from '../tree/nodes.js';
import type { PagePosition } from '../tree/page-position.js';
import { epochOfTrinoTimestamp } from '../../core/trino-timestamp.js';
import { timeLiteral } from './time-window.js';

/** Positions the tree at a page: an anchor predicate on broker time (anchor mode) and a row offset. */
export function applyPaging(q: QueryNode, p: PagePosition, time: ColumnNode | null): QueryNode {
  let where = q.where;
  if (p.m === 'anchor' && p.a !== undefined && time) {
    const epochMs = epochOfTrinoTimestamp(p.a);
    const dir = q.order[0]?.dir === 'desc' ? 'desc' : 'asc';
    const value = timeLiteral(time, epochMs, p.a.slice(23).replace(/^\./, ''));
    where = and({ kind: 'anchor', column: time, dir, value }, where);
  }
  return { ...q, where, offset: p.s };
}
