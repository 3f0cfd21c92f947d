/**
 * A read request's tree: the request (from GET parameters or a POST body) becomes a positioned query tree. Names
 * are resolved against the topic's columns here, before anything is quoted; then the policy passes shape the tree.
 */
import { TIME_COLUMN, type DedupeNode, type OrderNode, type QueryNode } from './tree/nodes.js';
import { dedupeOf, orderOf, outputsOf, type Outputs } from './plan-outputs.js';
import { resolver } from './request/resolver.js';
import { namesDecoded } from './passes/post-decode-split.js';
import { canonicalWhere, firstPosition, queryHash } from './passes/paging.js';
import type { PagePosition } from './tree/page-position.js';
import { checkRequestCaps } from './passes/request-caps.js';
import { applyLimit } from './passes/limit.js';
import { applyPaging } from './passes/page-anchor.js';
import { applyRowScope } from './passes/row-scope.js';
import { applyTimeWindow } from './passes/time-window.js';
import type { LimitPolicy } from './tree/read-policy.js';
import type { ReadRequest } from './tree/read-request.js';
import type { TopicModel } from './tree/topic-model.js';
import type { Plan } from './tree/plan.js';
import { pageSlices } from './passes/page-slicing.js';

/** Builds the tree for a read, positioned at `token` (already decoded) or at the first page. */
export function planReadTree(
  topic: TopicModel,
  req: ReadRequest,
  policy: LimitPolicy,
  token: ((h: string) => PagePosition) | null,
  now = Date.now(),
): Plan {
  const resolve = resolver(topic);
  const out = outputsOf(topic, req, resolve);
  const order = orderOf(topic, req, out, resolve);
  const dedupe = dedupeOf(topic, req, resolve);
  const { select, groupBy } = out;
  // Pages anchor on broker time when rows come out in broker-time order and carry it (see paging.ts).
  const timeIndex = select.findIndex(
    (s) => s.kind === 'select-column' && s.as === TIME_COLUMN && s.column.source.kind === 'table',
  );
  // With decoded fields named, Trino's query selects every table column, broker time included (post-decode split).
  const carriesTime = timeIndex >= 0 || namesDecoded(select, req.where);
  const anchored = !out.aggregate && !dedupe && topic.time !== null && order[0]?.name === TIME_COLUMN && carriesTime;
  const h = queryHash(meaning(topic, req, policy, out, order, dedupe));
  const position: PagePosition = token ? token(h) : firstPosition(h, anchored, topic, req, now);
  if (policy.caps) {
    const buckets = out.keys.flatMap((k) => (k.kind === 'bucket' ? [k.ms] : []));
    const window = { lo: position.lo, hi: position.hi };
    const named = { select: out.named, buckets, order, groupBy: out.groupColumns, dedupe: dedupe?.by ?? [] };
    checkRequestCaps({ ...named, where: req.where, window }, policy.caps);
  }
  const base: QueryNode = {
    kind: 'query',
    source: topic.source,
    select,
    where: req.where,
    groupBy,
    order,
    limit: 0,
    offset: 0,
    dedupe,
    totalOrder: !req.unordered,
  };
  let tree = applyRowScope(base, policy.rows);
  tree = req.limit === 'all' ? { ...tree, limit: Infinity } : applyLimit(tree, policy, req.limit);
  if (topic.time) tree = applyTimeWindow(tree, topic.time, position.lo, position.hi);
  tree = applyPaging(tree, position, topic.time);
  // Descending pages are one query over the rest of the window (slices run in ascending broker time only).
  const sliced = anchored && order[0]?.dir !== 'desc' && tree.limit !== Infinity;
  const slices = sliced ? pageSlices(topic, position, req.where) : null;
  return {
    tree,
    position,
    timeIndex: anchored ? timeIndex : null,
    userWhere: req.where,
    rowFilter: policy.rows?.filter ?? null,
    slices,
    bulk: null,
    postDecode: null,
  };
}

/** What the page-token hash covers: the query's meaning, whatever the request's spelling. */
function meaning(
  topic: TopicModel,
  req: ReadRequest,
  policy: LimitPolicy,
  out: Outputs,
  order: readonly OrderNode[],
  dedupe: DedupeNode | null,
) {
  return {
    t: topic.id,
    s: out.select.map((s) => [
      s.kind,
      s.as,
      s.kind === 'aggregate' ? [s.fn, s.column?.name, s.p] : s.kind === 'bucket' ? s.ms : s.column.name,
    ]),
    w: canonicalWhere(req.where),
    // A page token is the caller's: another principal, or other claims in its row filter, make another query.
    ...(policy.rows ? { r: canonicalWhere(policy.rows.filter), p: policy.rows.principal } : {}),
    since: req.since ?? null,
    until: req.until ?? null,
    g: out.groupBy,
    o: order.map((o) => [o.name, o.dir, o.nulls ?? null]),
    d: dedupe ? [dedupe.by.map((c) => c.name), dedupe.keep] : null,
  };
}
