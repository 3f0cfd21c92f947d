/**
 * The outputs a request names, resolved against its topic: the select list with the group keys not already selected
 * in front (in groupBy order), the order and the dedupe. Each refusal names what the request wrote.
 */
import { ApiError } from '../core/errors.js';
import { orderable } from '../core/type-family.js';
import { TIME_COLUMN, type ColumnNode, type DedupeNode, type OrderNode, type SelectNode } from './tree/nodes.js';
import type { ReadRequest } from './tree/read-request.js';
import type { TopicModel } from './tree/topic-model.js';
import { aggregateNode, bucketNode, outputName, selectColumn, uniqueNames } from './request/select-items.js';

type Resolve = (name: string) => ColumnNode;

/** The select list of a read, with what the caps and the group-by need of it. */
export interface Outputs {
  select: SelectNode[];
  /** The items the request selected (before the group keys added in front, and before `*` defaults). */
  named: SelectNode[];
  /** The group keys added in front of the selected items. */
  keys: SelectNode[];
  /** Output names grouped by. */
  groupBy: string[];
  /** The column of each group key (null for a time bucket). */
  groupColumns: (ColumnNode | null)[];
  aggregate: boolean;
}

/** The read's select list: `*` is every column (table columns, then expanded fields), as PostgREST's. */
export function outputsOf(topic: TopicModel, req: ReadRequest, resolve: Resolve): Outputs {
  const all = [...topic.source.columns, ...[...topic.columns.values()].filter((c) => c.source.kind === 'json')];
  const items = (req.select ?? []).flatMap((s) => (s === '*' ? all.map((c) => c.name) : [s]));
  const named: SelectNode[] = items.map((s) =>
    typeof s === 'string' ? selectColumn(s, resolve) : aggregateNode(topic, s, resolve),
  );
  const { keys, groupBy, groupColumns } = groupKeys(topic, req, named, resolve);
  let select = [...keys, ...named];
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
  return { select, named, keys, groupBy, groupColumns, aggregate };
}

/** Group keys: a selected item named g, or selecting the same column (or path); else one added in front. */
function groupKeys(topic: TopicModel, req: ReadRequest, named: readonly SelectNode[], resolve: Resolve) {
  const groupBy: string[] = [];
  const groupColumns: (ColumnNode | null)[] = [];
  const keys: SelectNode[] = [];
  for (const g of req.groupBy ?? []) {
    if (typeof g === 'string') {
      const col = resolve(g);
      groupColumns.push(col);
      const same = named.find(
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
  return { keys, groupBy, groupColumns };
}

/** The read's order: by outputs, or by a column (its canonical name); broker time when none is asked for. */
export function orderOf(topic: TopicModel, req: ReadRequest, out: Outputs, resolve: Resolve): OrderNode[] {
  const outputs = new Map(out.select.map((s) => [s.as, s]));
  const order: OrderNode[] = (req.order ?? []).map((o) => {
    if (outputs.has(o.field)) return { name: o.field, dir: o.dir ?? 'asc', nulls: o.nulls };
    if (out.aggregate)
      throw new ApiError('TG_UNKNOWN_COLUMN', `order: ${o.field} is not an output of this aggregation`, {
        column: o.field,
      });
    // By its canonical name (`"key"` is key, a path's keys normalized), so it matches a selected output of the same
    // column and the page-token hash does not depend on how the request spelled it.
    const column = resolve(o.field);
    const same = outputs.get(column.name);
    if (same?.kind === 'select-column' && same.column.name === column.name && same.column.type === column.type) {
      return { name: column.name, dir: o.dir ?? 'asc', nulls: o.nulls };
    }
    return { name: column.name, dir: o.dir ?? 'asc', nulls: o.nulls, column };
  });
  for (const o of order) {
    const selected = outputs.get(o.name);
    const col = o.column ?? (selected?.kind === 'select-column' ? selected.column : null);
    if (col && !orderable(col.type))
      throw new ApiError('TG_BAD_VALUE', `order: ${o.name} (${col.type}) cannot be sorted`);
  }
  if (!out.aggregate && order.length === 0 && topic.time && !req.unordered)
    order.push({ name: TIME_COLUMN, dir: 'asc', column: topic.time });
  return order;
}

/** The read's dedupe: the latest (or earliest) event per key, by broker time. */
export function dedupeOf(topic: TopicModel, req: ReadRequest, resolve: Resolve): DedupeNode | null {
  if (!req.dedupe) return null;
  if (!topic.time) throw new ApiError('TG_BAD_REQUEST', `dedupe: ${topic.id} has no ${TIME_COLUMN}`);
  const by = (req.dedupe.by ?? ['key']).map(resolve);
  if (by.length === 0) throw new ApiError('TG_BAD_REQUEST', 'dedupe.by needs at least one column');
  return { by, keep: req.dedupe.keep ?? 'latest', time: topic.time };
}
