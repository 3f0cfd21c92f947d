/**
 * The residual-scan guardrail: a read whose filters are evaluated after the scan must bound the window the storage
 * reads.
 */
import { ApiError } from '../../core/errors.js';
import { TIME_COLUMN, type ColumnNode, type PredicateNode, type QueryNode } from '../tree/nodes.js';
import { classifyPushdown } from './pushdown.js';
import { selectiveFilter } from './page-slicing.js';
import type { GuardrailPolicy } from '../tree/read-policy.js';

/**
 * Filters are evaluated after the scan (JSON fields, decoded fields) and none the storage evaluates narrows the read
 * to a few events: an equality or a short IN list on a column other than broker time (page-slicing.ts
 * selectiveFilter). A range, a negation or IS NULL reaches the scan but may keep every event, and a bound on broker
 * time narrows the window only (storageWindow), so they do not count.
 */
export function needsTimeBound(where: PredicateNode, policy: { complexPredicates: boolean }): boolean {
  const { residual, gateway = [] } = classifyPushdown(where, { complexPredicates: policy.complexPredicates });
  return residual.length + gateway.length > 0 && !selectiveFilter(where);
}

/**
 * Whether a read in steps (cursor batches, load runs, follow polls) must take each step no wider than the
 * guardrail's window: a topic table (not a plain table), the guardrail on, and filters that need a time bound.
 */
export function stepsNeedTimeBound(
  where: PredicateNode | null,
  source: { topicKind: 'topic' | 'table' },
  g: GuardrailPolicy,
): boolean {
  return !!where && !g.allowFullScan && source.topicKind === 'topic' && needsTimeBound(where, g);
}

/**
 * The window the storage reads: since/until narrowed by the filters' own ranges on the bare broker-time column
 * (ANDed at the top, so the storage takes them as bounds of the scan). Reads pin their upper bound (until, or now),
 * so a lower bound alone makes a window as wide as from it to now: `gte.1970-01-01` bounds nothing.
 */
export function storageWindow(where: PredicateNode | null, window: { lo?: number; hi?: number }) {
  let { lo, hi } = window;
  const conjuncts = !where ? [] : where.kind === 'and' ? where.items : [where];
  for (const p of conjuncts) {
    if (p.kind !== 'compare' || p.column.name !== TIME_COLUMN || p.column.source.kind !== 'table') continue;
    const v = p.value.kind === 'literal' && p.value.value.t === 'timestamp' ? p.value.value : null;
    if (!v) continue;
    // Sub-millisecond digits round the bound outwards: the window judged is never narrower than the one read.
    const [from, to] = [v.epochMs, v.epochMs + 1];
    if (p.op === 'gt' || p.op === 'gte' || p.op === 'eq') lo = lo === undefined ? from : Math.max(lo, from);
    if (p.op === 'lt' || p.op === 'lte' || p.op === 'eq') hi = hi === undefined ? to : Math.min(hi, to);
  }
  return { lo, hi };
}

/** A JSON field (an expanded field or an arrow path): Trino parses the payload of each event it reads to get it. */
const isJsonField = (c: ColumnNode | undefined): c is ColumnNode =>
  c?.source.kind === 'json' || c?.source.kind === 'json-path';

/**
 * The JSON fields a query orders by, groups by or aggregates: to sort, group or aggregate, Trino reads them from
 * every event of the window, not only from the rows it returns, exactly as it does for a filter on one. (A field
 * only selected is read from the rows returned.)
 */
export function jsonSortKeys(q: QueryNode): string[] {
  const selected = (name: string) => {
    const s = q.select.find((x) => x.as === name);
    return s?.kind === 'select-column' ? s.column : undefined;
  };
  const aggregated = q.select.map((s) => (s.kind === 'aggregate' ? (s.column ?? undefined) : undefined));
  const keys = [...q.order.map((o) => o.column ?? selected(o.name)), ...q.groupBy.map(selected), ...aggregated];
  return [...new Set(keys.filter(isJsonField).map((c) => c.name))];
}

/**
 * Guardrail: a topic query whose own filters are evaluated after the scan (by Trino, such as JSON fields, or after
 * decoding, such as decoded Avro fields) reads every event of the window the storage reads, unless a selective
 * filter reaches the scan (needsTimeBound). So does a read that orders or groups by a JSON field (jsonSortKeys), or
 * sorts or aggregates decoded fields after decoding (`gatherAll`). Such a query must bound that window on both
 * sides, no wider than the limit, with since/until or ranges on broker time (storageWindow), unless the topic
 * allows full scans. A pushed filter that bounds nothing, such as `timestamp_broker=gte.1970-01-01T00:00:00Z`, does
 * not lift it.
 */
export function checkResidualScan(
  q: QueryNode,
  userWhere: PredicateNode | null,
  window: { lo?: number; hi?: number },
  policy: GuardrailPolicy,
  gatherAll = false,
): QueryNode {
  if (q.source.topicKind !== 'topic' || policy.allowFullScan) return q;
  const sorted = jsonSortKeys(q);
  if (!userWhere && !gatherAll && sorted.length === 0) return q;
  const report = classifyPushdown(userWhere, { complexPredicates: policy.complexPredicates });
  const residual = [...report.residual, ...(report.gateway ?? [])];
  if ((residual.length === 0 && !gatherAll && sorted.length === 0) || selectiveFilter(userWhere)) return q;
  const what =
    residual.length > 0
      ? `every filter here is evaluated after the scan (${residual.join('; ')})`
      : sorted.length > 0
        ? `ordering, grouping or aggregating by the JSON field ${sorted.join(', ')} reads it from every event of the window`
        : 'the gateway sorts or aggregates decoded fields over every event of the window';
  const max = `${Math.round(policy.maxWindowMs / 3_600_000)}h`;
  const { lo, hi } = storageWindow(userWhere, window);
  const details = {
    residual,
    ...(sorted.length ? { fields: sorted } : {}),
    add: 'since',
    maxWindowMs: policy.maxWindowMs,
  };
  if (lo === undefined || hi === undefined) {
    throw new ApiError(
      'TG_TIME_BOUND_REQUIRED',
      `${what}: add since= (for example since=-1h) to bound the events read, at most ${max} wide`,
      details,
    );
  }
  if (hi - lo > policy.maxWindowMs) {
    throw new ApiError(
      'TG_TIME_BOUND_REQUIRED',
      `${what}: narrow since/until to at most ${max} (the window is ${Math.round((hi - lo) / 3_600_000)}h)`,
      details,
    );
  }
  return q;
}
