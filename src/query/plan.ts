/**
 * The planner: a read request (from GET parameters or a POST body) becomes a query tree. Names are resolved
 * against the topic's columns here, before anything is quoted; then the policy passes shape the tree. Long file: the
 * read request, the plan and its slice shapes are declared beside the one builder that fills them.
 */
import { ApiError } from '../core/errors.js';
import {
  TIME_COLUMN,
  type ColumnNode,
  type OrderNode,
  type PredicateNode,
  type QueryNode,
  type SelectNode,
  type SourceNode,
} from './tree/nodes.js';
import type { GroupSpec, OrderSpec, SelectSpec } from './request/read-schema.js';
import { aggregateNode, bucketNode, outputName, selectColumn, uniqueNames } from './request/select-items.js';
import { parseColumnRef } from './request/column-ref.js';
import { jsonPathColumn } from './request/json-path-column.js';
import { decodedRef, undecodedField } from './request/decoded-column.js';
import { namesDecoded, type GatewayStage } from './passes/post-decode-split.js';
import { epochOfTrinoTimestamp } from './request/time.js';
import { canonicalWhere, firstPosition, queryHash, type PagePosition } from './passes/paging.js';
import { checkRequestCaps } from './passes/request-caps.js';
import { applyLimit, applyPaging, applyRowScope, applyTimeWindow, type LimitPolicy } from './passes/passes.js';

/** What a topic offers to a query: its table and every column a request may name. */
export interface TopicModel {
  id: string;
  source: SourceNode;
  /** Table columns and expanded fields, by name. */
  columns: ReadonlyMap<string, ColumnNode>;
  /** The broker time column, when the table has one. */
  time: ColumnNode | null;
  /**
   * The Trino types of the decoded Avro key / value (their reader schemas, fetched for this request): their fields
   * are columns too (query/decoded-column.ts). Absent when nothing is decoded (or `decode=false`).
   */
  decoded?: ReadonlyMap<'key' | 'value', string>;
}

export interface ReadRequest {
  select?: readonly SelectSpec[];
  where: PredicateNode | null;
  since?: string;
  until?: string;
  groupBy?: readonly GroupSpec[];
  order?: readonly OrderSpec[];
  /** Rows per response; `all`: every row of a closed window (bulk reads). */
  limit?: number | 'all';
  /** Bulk reads: time slices read at once (API.md "Bulk reads"). */
  parallel?: number;
  /** `order=none`: no order promised, so slices may interleave (bulk reads only). */
  unordered?: boolean;
  dedupe?: { by?: readonly string[]; keep?: 'latest' | 'earliest' };
}

export interface Plan {
  tree: QueryNode;
  /** The page this tree reads; the next page's position is derived from it. */
  position: PagePosition;
  /** Index of the broker time in each output row, when pages are anchored on it. */
  timeIndex: number | null;
  /** The request's own filters (without paging and window), for explain. */
  userWhere: PredicateNode | null;
  /** How to read the page in time slices (anchored reads in ascending broker time with a pinned window). */
  slices: SlicePlan | null;
  /** A bulk read (`limit=all`): the window as adjacent slices read `concurrency` at a time. */
  bulk: BulkPlan | null;
  /** What the gateway does after decoding, when the request names decoded Avro fields (gateway-plan.ts). */
  gateway: GatewayStage | null;
}

/** Every row of a closed window, as adjacent whole-millisecond slices [bounds[i], bounds[i + 1]). */
export interface BulkPlan {
  time: ColumnNode;
  bounds: readonly number[];
  /** Slice queries running at once (`parallel`). */
  concurrency: number;
  /** Rows come in the query's order (slices written one after another); false: slices may interleave. */
  ordered: boolean;
}

/**
 * A page read as adjacent time slices [from, from + width), [.., .. + 2 * width), ... until it has its rows or the
 * window ends (read/sliced-result.ts). Each slice is a range the storage evaluates, so a page reads about the
 * rows it returns, wherever it sits in the window.
 */
export interface SlicePlan {
  time: ColumnNode;
  /** Start of the first slice (the anchor's millisecond, or since), epoch ms. */
  fromMs: number;
  /** End of the window (exclusive), epoch ms. */
  hi: number;
  /** Width of the first slice, ms. */
  widthMs: number;
  /** How much wider each next slice is than the one before. */
  growth: number;
}

/** The first page's first slice, as a share of its window: later pages learn the width from the rows they saw. */
const FIRST_SLICE_SHARE = 64;

/**
 * Resolves a column reference of a request against the topic: a column or expanded field, double-quoted or not, or
 * an arrow path into a JSON-holding one (column-ref.ts, json-path-column.ts).
 */
export function resolver(topic: TopicModel): (name: string) => ColumnNode {
  return (text) => {
    const ref = parseColumnRef(text);
    const name = ref.name;
    // A field of a decoded Avro key or value (`value.amount`, `value->customer->country`), unless a column has the name.
    const decoded = topic.columns.has(text) ? null : decodedRef(topic.decoded, text, ref);
    if (decoded) return decoded;
    const c = topic.columns.get(name);
    if (c && ref.path.length) return jsonPathColumn(c, ref);
    if (!c) {
      undecodedField(topic, text);
      throw new ApiError('TG_UNKNOWN_COLUMN', `${topic.id} has no column ${JSON.stringify(name)}`, {
        column: name,
        available: [...topic.columns.keys()],
      });
    }
    return c;
  };
}

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
    if (col && /^(map|json)\b/.test(col.type))
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
  // With decoded fields named, Trino's query selects every table column, broker time included (gateway-plan.ts).
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
    gateway: null,
  };
}
