/**
 * Policy passes: pure (tree) -> tree functions applied in one place (planner.ts). Each is tested alone.
 */
import { ApiError } from '../../core/errors.js';
import { and, type ColumnNode, type PredicateNode, type QueryNode } from '../tree/nodes.js';
import { classifyPushdown } from './pushdown.js';
import type { PagePosition } from '../tree/page-position.js';
import type { GuardrailPolicy, LimitPolicy, RowScope } from '../tree/read-policy.js';
import { epochOfTrinoTimestamp } from '../request/time.js';

/** The caller's row filter ANDed to the request's own (the policy first, so explain shows it first). */
export function applyRowScope(q: QueryNode, rows: RowScope | undefined): QueryNode {
  return rows?.filter ? { ...q, where: and(rows.filter, q.where) } : q;
}

/** Rows per response: the default when unset; more than the maximum is refused, naming the maximum. */
export function applyLimit(q: QueryNode, policy: LimitPolicy, requested?: number): QueryNode {
  const limit = requested ?? policy.defaultLimit;
  if (!Number.isInteger(limit) || limit < 1) {
    throw new ApiError('TG_BAD_VALUE', `limit must be a positive integer, not ${JSON.stringify(requested)}`, {
      parameter: 'limit',
    });
  }
  if (limit > policy.maxLimit) {
    throw new ApiError(
      'TG_TOO_EXPENSIVE',
      `limit ${limit} is above the maximum ${policy.maxLimit}; page with cursors`,
      {
        parameter: 'limit',
        max: policy.maxLimit,
      },
    );
  }
  return { ...q, limit };
}

function timeLiteral(time: ColumnNode, epochMs: number, subMs = '') {
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

/** Every filter is evaluated after the scan (none narrows what the storage reads). */
export function residualOnly(where: PredicateNode, policy: { complexPredicates: boolean }): boolean {
  const { pushed, residual, gateway = [] } = classifyPushdown(where, { complexPredicates: policy.complexPredicates });
  return residual.length + gateway.length > 0 && pushed.length === 0;
}

/**
 * Guardrail: a topic query whose own filters are all residual (evaluated by Trino after the scan, such as JSON
 * fields, or after decoding, such as decoded Avro fields) reads every event of its window; without a bounded
 * window that is the whole topic. So does a read that sorts or aggregates decoded fields after decoding
 * (`gatherAll`) without a filter the storage takes. Such a query must name `since` (and a window no wider than
 * the limit), unless the topic allows full scans.
 */
export function checkResidualScan(
  q: QueryNode,
  userWhere: PredicateNode | null,
  window: { lo?: number; hi?: number },
  policy: GuardrailPolicy,
  gatherAll = false,
): QueryNode {
  if (q.source.topicKind !== 'topic' || policy.allowFullScan || (!userWhere && !gatherAll)) return q;
  const report = classifyPushdown(userWhere, { complexPredicates: policy.complexPredicates });
  const residual = [...report.residual, ...(report.gateway ?? [])];
  if (report.pushed.length > 0 || (residual.length === 0 && !gatherAll)) return q;
  const what =
    residual.length > 0
      ? `every filter here is evaluated after the scan (${residual.join('; ')})`
      : 'the gateway sorts or aggregates decoded fields over every event of the window';
  const max = `${Math.round(policy.maxWindowMs / 3_600_000)}h`;
  if (window.lo === undefined) {
    throw new ApiError(
      'TG_TIME_BOUND_REQUIRED',
      `${what}: add since= (for example since=-1h) to bound the events read, at most ${max} wide`,
      { residual, add: 'since', maxWindowMs: policy.maxWindowMs },
    );
  }
  if (window.hi !== undefined && window.hi - window.lo > policy.maxWindowMs) {
    throw new ApiError(
      'TG_TIME_BOUND_REQUIRED',
      `${what}: narrow since/until to at most ${max} (the window is ${Math.round((window.hi - window.lo) / 3_600_000)}h)`,
      { residual, add: 'since', maxWindowMs: policy.maxWindowMs },
    );
  }
  return q;
}

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
