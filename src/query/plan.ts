/**
 * The planner: a read request (from GET parameters or a POST body) becomes a query tree. Names are resolved
 * against the topic's columns here, before anything is quoted; then the policy passes shape the tree.
 */
import { ApiError } from '../errors.js';
import type { ColumnNode, OrderNode, PredicateNode, QueryNode, SelectNode, SourceNode } from './nodes.js';
import type { AggregateSpec, GroupSpec, OrderSpec, SelectSpec } from '../schemas/read.js';
import { parseDuration, parseInstant } from './time.js';
import { typeFamily } from './values.js';
import { parseColumnRef, splitAlias } from './column-ref.js';
import { jsonPathColumn, pathColumnForAggregate } from './json-path-column.js';
import { queryHash, type PagePosition } from './paging.js';
import { applyLimit, applyPaging, applyTimeWindow, type LimitPolicy } from './passes.js';

export const TIME_COLUMN = 'timestamp_broker';

/** What a topic offers to a query: its table and every column a request may name. */
export interface TopicModel {
  id: string;
  source: SourceNode;
  /** Table columns and expanded fields, by name. */
  columns: ReadonlyMap<string, ColumnNode>;
  /** The broker time column, when the table has one. */
  time: ColumnNode | null;
}

export interface ReadRequest {
  select?: readonly SelectSpec[];
  where: PredicateNode | null;
  since?: string;
  until?: string;
  groupBy?: readonly GroupSpec[];
  order?: readonly OrderSpec[];
  limit?: number;
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
}

/**
 * Resolves a column reference of a request against the topic: a column or expanded field, double-quoted or not, or
 * an arrow path into a JSON-holding one (column-ref.ts, json-path-column.ts).
 */
export function resolver(topic: TopicModel): (name: string) => ColumnNode {
  return (text) => {
    const ref = parseColumnRef(text);
    const name = ref.name;
    const c = topic.columns.get(name);
    if (c && ref.path.length) return jsonPathColumn(c, ref);
    if (!c) {
      throw new ApiError('TG_UNKNOWN_COLUMN', `${topic.id} has no column ${JSON.stringify(name)}`, {
        column: name,
        available: [...topic.columns.keys()],
      });
    }
    return c;
  };
}

const NUMERIC = new Set(['integer', 'decimal', 'double']);

function aggregateNode(topic: TopicModel, spec: AggregateSpec, resolve: (n: string) => ColumnNode): SelectNode {
  const column = spec.field === undefined ? null : pathColumnForAggregate(resolve(spec.field), spec.fn);
  const as = spec.as ?? (column ? `${spec.fn}_${outputName(column)}` : spec.fn);
  const needs = (ok: boolean, what: string) => {
    if (!ok) throw new ApiError('TG_BAD_VALUE', `${spec.fn}: ${what}`, { fn: spec.fn, field: spec.field });
  };
  needs(column !== null || spec.fn === 'count', 'needs a field');
  const family = column ? typeFamily(column.type) : 'other';
  if (spec.fn === 'sum' || spec.fn === 'avg' || spec.fn === 'approx_percentile') {
    needs(NUMERIC.has(family), `${column?.name} (${column?.type}) is not numeric`);
  }
  if (spec.fn === 'approx_percentile')
    needs(typeof spec.p === 'number' && spec.p > 0 && spec.p < 1, 'p must be between 0 and 1');
  if (spec.fn === 'latest' || spec.fn === 'earliest') needs(topic.time !== null, `${topic.id} has no ${TIME_COLUMN}`);
  return { kind: 'aggregate', fn: spec.fn, column, p: spec.p, as, time: topic.time };
}

function bucketNode(topic: TopicModel, spec: { bucket: string; as?: string }): SelectNode {
  if (!topic.time) throw new ApiError('TG_BAD_VALUE', `bucket: ${topic.id} has no ${TIME_COLUMN}`);
  const ms = parseDuration(spec.bucket, 'bucket');
  if (ms < 1 || ms > 366 * 86_400_000) throw new ApiError('TG_BAD_VALUE', 'bucket must be from 1ms to 366d');
  return { kind: 'bucket', column: topic.time, ms, as: spec.as ?? 'bucket' };
}

const ALIAS = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/** The output name of a column: its name, or for an arrow path its last key (as PostgREST names it). */
function outputName(c: ColumnNode): string {
  if (c.source.kind !== 'json-path') return c.name;
  const keys = c.source.path.filter((k): k is string => typeof k === 'string');
  return keys.at(-1) ?? c.name;
}

/** A select item `[alias:]reference` (PostgREST's renaming). */
function selectColumn(item: string, resolve: (n: string) => ColumnNode): SelectNode {
  const { alias, ref } = splitAlias(item);
  if (alias !== null && !ALIAS.test(alias)) {
    throw new ApiError('TG_BAD_REQUEST', `select: the alias ${JSON.stringify(alias)} must match ${ALIAS.source}`, {
      parameter: 'select',
    });
  }
  const column = resolve(ref);
  return { kind: 'select-column', column, as: alias ?? outputName(column) };
}

function uniqueNames(select: readonly SelectNode[]): void {
  const seen = new Set<string>();
  for (const s of select) {
    if (seen.has(s.as))
      throw new ApiError('TG_BAD_REQUEST', `select: the output name ${JSON.stringify(s.as)} is used twice`);
    seen.add(s.as);
  }
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
  let select: SelectNode[] = items.map((s) =>
    typeof s === 'string' ? selectColumn(s, resolve) : aggregateNode(topic, s, resolve),
  );
  const groupBy: string[] = [];
  // Group keys not already selected come first, in groupBy order.
  const keys: SelectNode[] = [];
  for (const g of groupSpecs) {
    if (typeof g === 'string') {
      // A key is a selected item named g, or selecting the same column (or path); else it is added in front.
      const col = resolve(g);
      const same = select.find(
        (s) => s.kind === 'select-column' && (s.as === g || (s.column.name === col.name && s.column.type === col.type)),
      );
      const as = same?.as ?? outputName(col);
      if (!same) keys.push({ kind: 'select-column', column: col, as });
      groupBy.push(as);
    } else {
      const b = bucketNode(topic, g);
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
  if (!aggregate && order.length === 0 && topic.time) order.push({ name: TIME_COLUMN, dir: 'asc', column: topic.time });

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
  const anchored = !aggregate && !dedupe && topic.time !== null && first?.name === TIME_COLUMN && timeIndex >= 0;

  const userWhere = req.where;
  const h = queryHash({
    t: topic.id,
    s: select.map((s) => [
      s.kind,
      s.as,
      s.kind === 'aggregate' ? [s.fn, s.column?.name, s.p] : s.kind === 'bucket' ? s.ms : s.column.name,
    ]),
    w: canonicalWhere(userWhere),
    since: req.since ?? null,
    until: req.until ?? null,
    g: groupBy,
    o: order.map((o) => [o.name, o.dir, o.nulls ?? null]),
    d: dedupe ? [dedupe.by.map((c) => c.name), dedupe.keep] : null,
  });
  const position: PagePosition = token ? token(h) : firstPosition(h, anchored, topic, req, now);

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
    totalOrder: true,
  };
  tree = applyLimit(tree, policy, req.limit);
  if (topic.time) tree = applyTimeWindow(tree, topic.time, position.lo, position.hi);
  tree = applyPaging(tree, position, topic.time);
  return { tree, position, timeIndex: anchored ? timeIndex : null, userWhere };
}

/**
 * The filters as plain data for the page-token hash: the node tree with each column reduced to its name (its type
 * and source follow from the topic). Hashing the tree, not its SQL, keeps tokens valid across changes in how SQL
 * is rendered.
 */
function canonicalWhere(where: PredicateNode | null): string {
  return JSON.stringify(where, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && (v as { kind?: unknown }).kind === 'column' ? (v as ColumnNode).name : v,
  );
}

function firstPosition(h: string, anchored: boolean, topic: TopicModel, req: ReadRequest, now: number): PagePosition {
  const p: PagePosition = { h, m: anchored ? 'anchor' : 'offset', s: 0 };
  if ((req.since !== undefined || req.until !== undefined) && !topic.time) {
    throw new ApiError('TG_BAD_REQUEST', `since/until: ${topic.id} has no ${TIME_COLUMN}`);
  }
  if (!topic.time) return p;
  if (req.since !== undefined) p.lo = ceilMs(parseInstant(req.since, 'since', now));
  // The first page pins the upper bound, so later pages read the same set even while the topic grows.
  p.hi = req.until !== undefined ? ceilMs(parseInstant(req.until, 'until', now)) : now;
  if (p.lo !== undefined && p.hi <= p.lo)
    throw new ApiError('TG_BAD_TIME', 'until must be after since', { parameter: 'until' });
  return p;
}

function ceilMs(i: { epochMs: number; subMs: string }): number {
  return i.subMs.replace(/0+$/, '') ? i.epochMs + 1 : i.epochMs;
}
