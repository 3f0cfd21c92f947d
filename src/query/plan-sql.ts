/**
 * What a finished plan answers about its SQL: the page's query, each time slice's, each bulk slice's, a cursor
 * batch's summary and count, and explain's view. Exec (read/, cursors/) asks the plan; the passes that cut a slice
 * and the compiler stay here, in query/, so no read path shapes a tree of its own.
 */
import { and, type ColumnNode, type PredicateNode, type TargetNode } from './tree/nodes.js';
import type { Plan } from './tree/plan.js';
import { applySlice } from './passes/slice.js';
import { classifyPushdown, type PushdownReport } from './passes/pushdown.js';
import { forDisplay } from './passes/post-decode-split.js';
import { bucketCountTree } from './passes/session-split.js';
import { compileCount, compileQuery, compileTailSummary } from './sql/compile-query.js';
import { compileWhere } from './sql/compile.js';
import { compileLoad, type LoadStatements } from './sql/compile-load.js';

/** One time slice of a read: [fromMs, toMs) (from the anchor, for the first), at most `limit` rows. */
export interface SliceBounds {
  fromMs?: number;
  toMs: number;
  limit: number;
  first: boolean;
}

/**
 * What explain shows of a plan. A caller's row policy is not shown: `sql` and `pushdown` leave its
 * conjuncts out, and `rowPolicy` says that one applies.
 */
export interface ExplainView {
  sql: string;
  /** Trino's filters and the post-decode stage's (decoded fields), each labelled where it is evaluated. */
  pushdown: PushdownReport;
  /** The request's own filters as SQL (decoded fields shown as columns). */
  filters: string | null;
  rowPolicy?: 'applied';
}

/** The SQL a finished plan gives. */
export interface PlanSql {
  /** The page's query; it asks for one row more than its limit (the next page's existence) unless `extraRow` is false. */
  sql(o?: { extraRow?: boolean }): string;
  /** One time slice of the page's query (the plan has slices or is a batch). */
  sliceSql(slice: SliceBounds): string;
  /** Slice `i` of a bulk read: every row of [bounds[i], bounds[i + 1]). */
  bulkSliceSql(i: number): string;
  /** A cursor batch's summary (count, last broker time, rows at that time), of the whole plan or of one slice. */
  summarySql(slice?: SliceBounds): string;
  /** How many rows the plan's filters match: cursor lag. */
  countSql(): string;
  /** Rows the plan's filters match per epoch-aligned bucket of broker time `widthMs` wide: a session's split. */
  bucketCountSql(widthMs: number): string;
  explain(): ExplainView;
  /** A load's statements over the plan's window (API.md "Loads run by Trino"), each marked with `marker`. */
  loadSql(target: TargetNode, marker: string): LoadStatements;
}

/**
 * The SQL of `plan`: `time` is the topic's broker time (slices and batch summaries are on it), `complexPredicates`
 * the connector's pushdown rule explain labels filters by.
 */
export function planSql(plan: Plan, time: ColumnNode | null, complexPredicates: boolean): PlanSql {
  const { tree } = plan;
  const brokerTime = (): ColumnNode => {
    if (!time) throw new Error(`${tree.source.table} has no broker time to slice on: a planner defect`);
    return time;
  };
  const slice = (s: SliceBounds) => applySlice(tree, brokerTime(), s);
  return {
    sql: (o) => compileQuery(tree, o),
    sliceSql: (s) => compileQuery(slice(s)),
    bulkSliceSql: (i) => {
      const bulk = plan.bulk;
      if (!bulk) throw new Error('not a bulk read: a planner defect');
      return compileQuery(
        applySlice(tree, bulk.time, {
          fromMs: bulk.bounds[i],
          toMs: bulk.bounds[i + 1]!,
          limit: Infinity,
          first: false,
        }),
      );
    },
    summarySql: (s) => compileTailSummary(s ? slice(s) : tree, brokerTime()),
    countSql: () => compileCount(tree),
    bucketCountSql: (widthMs) => compileQuery(bucketCountTree(tree, brokerTime(), widthMs)),
    loadSql: (target, marker) => {
      const { lo, hi } = plan.position;
      if (hi === undefined) throw new Error('a load plan has an upper bound: a planner defect');
      return compileLoad(tree, target, brokerTime(), lo === undefined ? { hi } : { lo, hi }, marker);
    },
    explain: () => {
      const hide = hiding(plan.rowFilter);
      const where = hide(tree.where);
      return {
        sql: compileQuery({ ...tree, where }),
        pushdown: classifyPushdown(and(where, hide(plan.postDecode?.where ?? null)), { complexPredicates }),
        filters: compileWhere(forDisplay(plan.userWhere)),
        ...(plan.rowFilter ? { rowPolicy: 'applied' as const } : {}),
      };
    },
  };
}

/** A predicate without the conjuncts of `rowFilter` (the same nodes, as applyRowScope ANDed them). */
function hiding(rowFilter: PredicateNode | null): (p: PredicateNode | null) => PredicateNode | null {
  if (!rowFilter) return (p) => p;
  const policy = new Set<PredicateNode>(rowFilter.kind === 'and' ? rowFilter.items : [rowFilter]);
  return (p) => {
    if (!p) return null;
    if (p.kind === 'and') return and(...p.items.filter((i) => !policy.has(i)));
    return policy.has(p) ? null : p;
  };
}
