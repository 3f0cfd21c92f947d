/**
 * A read request's tree: the request (from GET parameters or a POST body) becomes a positioned query tree. Names
 * are resolved against the topic's columns here, before anything is quoted; then the policy passes shape the tree.
 */
import { ApiError } from '../core/errors.js';
import { TIME_COLUMN, type ColumnNode, type OrderNode, type QueryNode, type SelectNode } from './tree/nodes.js';
import { aggregateNode, bucketNode, outputName, selectColumn, uniqueNames } from './request/select-items.js';
import { resolver } from './request/resolver.js';
import { namesDecoded } from './passes/post-decode-split.js';
import { epochOfTrinoTimestamp } from './request/time.js';
import { canonicalWhere, firstPosition, queryHash } from './passes/paging.js';
import type { PagePosition } from './tree/page-position.js';
import { checkRequestCaps } from './passes/request-caps.js';
import { applyLimit, applyPaging, applyRowScope, applyTimeWindow } from './passes/passes.js';
import type { LimitPolicy } from './tree/read-policy.js';
import type { ReadRequest } from './tree/read-request.js';
import type { TopicModel } from './tree/topic-model.js';
import type { Plan } from './tree/plan.js';
import { orderable } from '../core/type-family.js';

/** The first page's first slice, as a share of its window: later pages learn the width from the rows they saw. */
const FIRST_SLICE_SHARE = 64;

/** Builds the tree for a read, positioned at `token` (already decoded) or at the first page. */
export function planRead(
  topic: TopicModel,
  req: ReadRequest,
  policy: LimitPolicy,
  token: ((h: string) => PagePosition) | null,
  now = Date.now(),
): Plan {
  const resolve = resolver(topic);
  // PostgREST's `*` (what supabase-js sends by default) is every column: table columns, then expanded fields.
  const all = [...topic.source.columns, ...[...topic.columns.values()].filter((c) => c.source.kind === 'json')];
  const items = (req.select ?? []).flatMap((s) => (s === '*' ? all.map((c) => c.name) : [s]));
  const groupSpecs = req.groupBy ?? [];
  const named: SelectNode[] = items.map((s) =>
    typeof s === 'string' ? selectColumn(s, resolve) : aggregateNode(topic, s, resolve),
  );
  let select = named;
  const groupBy: string[] = [];
  const groupColumns: (ColumnNode | null)[] = [];
  // Group keys not already selected come first, in groupBy order.
  const keys: SelectNode[] = [];
  for (const g of groupSpecs) {
    if (typeof g === 'string') {
      // A key is a selected item named g, or selecting the same column (or path); else it is added in front.
      const col = resolve(g);
      groupColumns.push(col);
      const same = select.find(
        (s) => s.kind === 'select-column' && (s.as === g || (s.column.name === col.name && s.column.type === col.type)),
      );
      const as = same?.as ?? outputName(col);
      if (!same) keys.push({ kind: 'select-column', column: col, as });
      groupBy.push(as);
    } else {
      const b = bucketNode(topic, g);
      groupColumns.push(null);
      keys.push(b);
      groupBy.push(b.as);
    }
  }
  select = [...keys, ...select];
  const aggregate = groupBy.length > 0 || select.some((s) => s.kind === 'aggregate');
  if (aggregate) {
    for (const s of select) {
      if (s.kind === 'select-column' && !groupBy.includes(s.as)) {
        throw new ApiError('TG_BAD_REQUEST', `select: ${s.as} must be in groupBy or inside an aggregate`, {
          field: s.as,
        });
      }
    }
    if (req.dedupe) throw new ApiError('TG_BAD_REQUEST', 'dedupe applies to event reads, not to aggregations');
  }
  if (select.length === 0) select = all.map((c) => ({ kind: 'select-column', column: c, as: c.name }));
  uniqueNames(select);

  const outputs = new Map(select.map((s) => [s.as, s]));
  const order: OrderNode[] = (req.order ?? []).map((o) => {
    if (outputs.has(o.field)) return { name: o.field, dir: o.dir ?? 'asc', nulls: o.nulls };
    if (aggregate)
      throw new ApiError('TG_UNKNOWN_COLUMN', `order: ${o.field} is not an output of this aggregation`, {
        column: o.field,
      });
    // By its canonical name (`"key"` is key, a path's keys normalized), so it matches a selected output of the same
    // column and the page-token hash does not depend on how the request spelled it.
    const column = resolve(o.field);
    const out = outputs.get(column.name);
    if (out?.kind === 'select-column' && out.column.name === column.name && out.column.type === column.type) {
      return { name: column.name, dir: o.dir ?? 'asc', nulls: o.nulls };
    }
    return { name: column.name, dir: o.dir ?? 'asc', nulls: o.nulls, column };
  });
  for (const o of order) {
    const col =
      o.column ??
      (outputs.get(o.name)?.kind === 'select-column' ? (outputs.get(o.name) as { column: ColumnNode }).column : null);
    if (col && !orderable(col.type))
      throw new ApiError('TG_BAD_VALUE', `order: ${o.name} (${col.type}) cannot be sorted`);
  }
  if (!aggregate && order.length === 0 && topic.time && !req.unordered)
    order.push({ name: TIME_COLUMN, dir: 'asc', column: topic.time });

  let dedupe = null;
  if (req.dedupe) {
    if (!topic.time) throw new ApiError('TG_BAD_REQUEST', `dedupe: ${topic.id} has no ${TIME_COLUMN}`);
    const by = (req.dedupe.by ?? ['key']).map(resolve);
    if (by.length === 0) throw new ApiError('TG_BAD_REQUEST', 'dedupe.by needs at least one column');
    dedupe = { by, keep: req.dedupe.keep ?? 'latest', time: topic.time };
  }

  // Pages anchor on broker time when rows come out in broker-time order and carry it (see paging.ts).
  const first = order[0];
  const timeIndex = select.findIndex(
    (s) => s.kind === 'select-column' && s.as === TIME_COLUMN && s.column.source.kind === 'table',
  );
  // With decoded fields named, Trino's query selects every table column, broker time included (passes/post-decode-split.ts).
  const carriesTime = timeIndex >= 0 || namesDecoded(select, req.where);
  const anchored = !aggregate && !dedupe && topic.time !== null && first?.name === TIME_COLUMN && carriesTime;

  const userWhere = req.where;
  const h = queryHash({
    t: topic.id,
    s: select.map((s) => [
      s.kind,
      s.as,
      s.kind === 'aggregate' ? [s.fn, s.column?.name, s.p] : s.kind === 'bucket' ? s.ms : s.column.name,
    ]),
    w: canonicalWhere(userWhere),
    // A page token is the caller's: another principal, or other claims in its row filter, make another query.
    ...(policy.rows ? { r: canonicalWhere(policy.rows.filter), p: policy.rows.principal } : {}),
    since: req.since ?? null,
    until: req.until ?? null,
    g: groupBy,
    o: order.map((o) => [o.name, o.dir, o.nulls ?? null]),
    d: dedupe ? [dedupe.by.map((c) => c.name), dedupe.keep] : null,
  });
  const position: PagePosition = token ? token(h) : firstPosition(h, anchored, topic, req, now);
  if (policy.caps) {
    checkRequestCaps(
      {
        select: named,
        buckets: keys.flatMap((k) => (k.kind === 'bucket' ? [k.ms] : [])),
        order,
        groupBy: groupColumns,
        dedupe: dedupe?.by ?? [],
        where: userWhere,
        window: { lo: position.lo, hi: position.hi },
      },
      policy.caps,
    );
  }

  let tree: QueryNode = {
    kind: 'query',
    source: topic.source,
    select,
    where: userWhere,
    groupBy,
    order,
    limit: 0,
    offset: 0,
    dedupe,
    totalOrder: !req.unordered,
  };
  tree = applyRowScope(tree, policy.rows);
  tree = req.limit === 'all' ? { ...tree, limit: Infinity } : applyLimit(tree, policy, req.limit);
  if (topic.time) tree = applyTimeWindow(tree, topic.time, position.lo, position.hi);
  tree = applyPaging(tree, position, topic.time);
  const from = position.a !== undefined ? epochOfTrinoTimestamp(position.a) : position.lo;
  const slices =
    anchored &&
    topic.time &&
    first?.dir !== 'desc' &&
    position.hi !== undefined &&
    from !== undefined &&
    position.loose !== true
      ? {
          time: topic.time,
          fromMs: from,
          hi: position.hi,
          widthMs: position.w ?? Math.max(1, Math.ceil((position.hi - from) / FIRST_SLICE_SHARE)),
          // Without a learnt width the first slice is a guess: grow fast to find the rows (or the window's end).
          growth: position.w === undefined ? 4 : 2,
        }
      : null;
  return {
    tree,
    position,
    timeIndex: anchored ? timeIndex : null,
    userWhere,
    slices: tree.limit === Infinity ? null : slices,
    bulk: null,
    postDecode: null,
  };
}
