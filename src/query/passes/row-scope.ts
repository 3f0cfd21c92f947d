/** The row-scope pass: the caller's row policy on the tree. */
import { and, type QueryNode } from '../tree/nodes.js';
import type { RowScope } from '../tree/read-policy.js';

/** The caller's row filter ANDed to the request's own (the policy first, so explain shows it first). */
export function applyRowScope(q: QueryNode, rows: RowScope | undefined): QueryNode {
  return rows?.filter ? { ...q, where: and(rows.filter, q.where) } : q;
}
