/**
 * Decoded fields in a read: `value.amount` exists only once the Avro payload is decoded, after Trino, so a tree
 * that names one is split in two. Trino reads the events (every table column, with every filter that does not name
 * a decoded field, so the storage still narrows the scan); the post-decode stage decodes them and does the rest:
 * the filters on decoded fields, the projection, and, when the order or an aggregation names a decoded field, the
 * sort or the grouping (read/post-decode/). `explain` lists those filters as `gateway`, and the residual-scan guardrail
 * counts them as evaluated after the scan.
 *
 * Two modes. `stream`: rows keep Trino's total order and pass through a filter; a page ends at its `limit`-th kept
 * row, and its position counts the rows Trino returned up to there (kept or not), so paging stays exact under ties
 * and duplicates. `gather`: the order or an aggregation needs every row of the window first; at most `maxRows`
 * rows (or groups) are held, more is a 422 naming the cap, and pages are offsets into the sorted result.
 *
 * Dedupe ranks events after every filter: when a filter (a row policy's too) is evaluated after decoding, the dedupe
 * moves there with it, in gather mode, so it never ranks events the filter drops (ranked in Trino, a
 * caller's key vanished behind another caller's later event, and bisecting `until` showed that event's time).
 */
import { ApiError } from '../../core/errors.js';
import {
  and,
  TIME_COLUMN,
  type ColumnNode,
  type OrderNode,
  type PredicateNode,
  type QueryNode,
  type SelectNode,
} from '../tree/nodes.js';
import { isDecoded } from '../request/decoded-column.js';
import { isAggregate } from '../tree/nodes.js';
import { typeFamily } from '../../core/type-family.js';
import type { Plan, PostDecodeStage } from '../tree/plan.js';

/** Every column a predicate names. */
export function predicateColumns(p: PredicateNode | null): ColumnNode[] {
  if (!p) return [];
  switch (p.kind) {
    case 'and':
    case 'or':
      return p.items.flatMap(predicateColumns);
    case 'not':
      return predicateColumns(p.inner);
    default:
      return [p.column];
  }
}

const selectColumns = (s: SelectNode): ColumnNode[] =>
  s.kind === 'aggregate' ? [s.column, s.time].filter((c): c is ColumnNode => c !== null) : [s.column];

/** True when the select or the filters name a decoded field. */
export function namesDecoded(select: readonly SelectNode[], where: PredicateNode | null): boolean {
  return select.some((s) => selectColumns(s).some(isDecoded)) || predicateColumns(where).some(isDecoded);
}

/** The column an order item sorts by (its own, or the selected item's of that name). */
function orderColumn(q: QueryNode, o: OrderNode): ColumnNode | null {
  if (o.column) return o.column;
  const s = q.select.find((x) => x.as === o.name);
  return s && s.kind !== 'aggregate' ? s.column : null;
}

/** A predicate with its decoded fields shown as columns named by the reference (explain; never sent to Trino). */
export function forDisplay(p: PredicateNode | null): PredicateNode | null {
  if (!p) return null;
  switch (p.kind) {
    case 'and':
    case 'or':
      return { ...p, items: p.items.map((i) => forDisplay(i) as PredicateNode) };
    case 'not':
      return { ...p, inner: forDisplay(p.inner) as PredicateNode };
    default:
      return isDecoded(p.column) ? { ...p, column: { ...p.column, source: { kind: 'table' } } } : p;
  }
}

/**
 * Splits a planned tree that names decoded fields into the Trino tree and the post-decode stage; null when it names
 * none. `tree` is the whole request's tree (row scope, window, paging and limit applied).
 */
function splitPostDecode(tree: QueryNode, maxRows: number): { tree: QueryNode; stage: PostDecodeStage } | null {
  const orderCols = tree.order.map((o) => orderColumn(tree, o));
  const decodedOrder = orderCols.some(isDecoded);
  if (!namesDecoded(tree.select, tree.where) && !decodedOrder) return null;
  checkDedupe(tree);
  const conjuncts = !tree.where ? [] : tree.where.kind === 'and' ? tree.where.items : [tree.where];
  const afterDecode = conjuncts.filter((c) => predicateColumns(c).some(isDecoded));
  const inTrino = conjuncts.filter((c) => !afterDecode.includes(c));
  for (const c of afterDecode) checkPostDecodeFilter(c, tree);
  const dedupe = afterDecode.length > 0 ? tree.dedupe : null;
  const gather = isAggregate(tree) || decodedOrder || dedupe !== null;

  // Columns the stage reads that Trino must compute (expanded fields, JSON paths): selected under a private name.
  const used = [
    ...tree.select.flatMap(selectColumns),
    ...afterDecode.flatMap(predicateColumns),
    ...orderCols,
    ...(dedupe?.by ?? []),
  ];
  const extra = extraColumns(used);
  const select: SelectNode[] = [
    ...tree.source.columns.map((c): SelectNode => ({ kind: 'select-column', column: c, as: c.name })),
    ...extra.map((e): SelectNode => ({ kind: 'select-column', column: e.column, as: e.as })),
  ];
  // A sort after decoding is stable, and a dedupe keeps the first or last row of a key: Trino's total order (broker
  // time, then every column, as its own dedupe ranks) makes both come out the same on every page.
  const ordered = !isAggregate(tree) || dedupe !== null;
  const trinoTree: QueryNode = {
    ...tree,
    select,
    where: and(...inTrino),
    groupBy: [],
    order: gather ? gatherOrder(tree, ordered) : streamOrder(tree, orderCols, extra),
    limit: Infinity,
    offset: gather ? 0 : tree.offset,
    dedupe: dedupe ? null : tree.dedupe,
    totalOrder: gather ? ordered : tree.totalOrder,
  };
  return {
    tree: trinoTree,
    stage: {
      mode: gather ? 'gather' : 'stream',
      where: and(...afterDecode),
      select: tree.select,
      groupBy: tree.groupBy,
      order: gather ? tree.order : [],
      limit: tree.limit,
      offset: gather ? tree.offset : 0,
      extra,
      maxRows,
      dedupe: dedupe && { by: dedupe.by, keep: dedupe.keep },
    },
  };
}

/** stream: Trino's order is the response's (by columns, since the aliases of the request's select are gone). */
function streamOrder(
  tree: QueryNode,
  orderCols: readonly (ColumnNode | null)[],
  extra: PostDecodeStage['extra'],
): OrderNode[] {
  return tree.order.map((o, i): OrderNode => {
    const c = orderCols[i]!;
    return c.source.kind === 'table'
      ? { ...o, name: c.name, column: c }
      : { ...o, name: extraName(extra, c), column: undefined };
  });
}

/** gather: Trino's total order by broker time, when the stage sorts or dedupes (`ordered`). */
function gatherOrder(tree: QueryNode, ordered: boolean): OrderNode[] {
  const time = tree.source.columns.find((c) => c.name === TIME_COLUMN);
  return ordered && time ? [{ name: TIME_COLUMN, dir: 'asc', column: time }] : [];
}

/** Decoded fields cannot be dedupe keys: Trino ranks the events before any payload is decoded. */
function checkDedupe(tree: QueryNode): void {
  const field = tree.dedupe?.by.find(isDecoded);
  if (field) {
    throw new ApiError(
      'TG_BAD_REQUEST',
      'dedupe: decoded fields cannot be dedupe keys; dedupe by key or table columns',
      {
        field: field.name,
      },
    );
  }
}

/** Computed columns the stage reads (expanded fields, JSON paths), each once, under a private name. */
function extraColumns(used: readonly (ColumnNode | null | undefined)[]): { column: ColumnNode; as: string }[] {
  const extra: { column: ColumnNode; as: string }[] = [];
  for (const c of used) {
    if (!c || c.source.kind === 'table' || isDecoded(c)) continue;
    if (!extra.some((e) => e.column.name === c.name && e.column.type === c.type))
      extra.push({ column: c, as: `__topicgate_g${extra.length}` });
  }
  return extra;
}

function extraName(extra: readonly { column: ColumnNode; as: string }[], c: ColumnNode): string {
  return extra.find((e) => e.column.name === c.name && e.column.type === c.type)!.as;
}

/**
 * The plan with its decoded fields taken out of Trino's tree: the post-decode stage beside it, no time slices (a page
 * of kept rows has no row count to size them by), and the broker time's index in Trino's rows for anchored pages.
 */
export function withPostDecode(p: Plan, maxRows: number): Plan {
  const split = splitPostDecode(p.tree, maxRows);
  if (!split) return p;
  const anchored = p.position.m === 'anchor';
  const timeIndex = split.tree.select.findIndex((s) => s.as === TIME_COLUMN);
  return {
    ...p,
    tree: split.tree,
    slices: null,
    bulk: split.stage.mode === 'stream' ? p.bulk : null,
    timeIndex: anchored && timeIndex >= 0 ? timeIndex : null,
    postDecode: split.stage,
  };
}

/** What the post-decode stage cannot evaluate is refused while planning (a 400 naming the column, before any query runs). */
function checkPostDecodeFilter(p: PredicateNode, tree: QueryNode): void {
  if ('items' in p) {
    for (const i of p.items) checkPostDecodeFilter(i, tree);
    return;
  }
  if ('inner' in p) {
    checkPostDecodeFilter(p.inner, tree);
    return;
  }
  const c = p.column;
  const bad = (why: string) => new ApiError('TG_BAD_OPERATOR', `${c.name}: ${why}`, { column: c.name });
  if (p.kind === 'array') throw bad('array containment (cs, cd, ov) is not evaluated on decoded fields');
  if ((p.kind === 'like' || p.kind === 'match') && isDecoded(c) && typeFamily(c.type) !== 'varchar')
    throw bad(`${p.kind} applies to text; this decoded field is ${c.type}`);
  const framed = c.source.kind === 'table' && c.source.framed === 'avro';
  if (framed && tree.source.columns.includes(c))
    throw bad(`a filter ORed with decoded fields cannot compare the raw ${c.name}; compare its decoded fields`);
}
