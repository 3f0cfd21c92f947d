/**
 * Per-request caps: everything a request can multiply is counted once it is resolved into nodes
 * (so `gt(any).{...}`, or/and groups and `*` count as what they become), before anything is compiled. Past a cap
 * the request is a 422 TG_TOO_EXPENSIVE whose message and details name the cap (`limits.<name>` in the config
 * file) and its value. The caps judge the request's own items: a row policy's filter is configuration, not request.
 */
import { ApiError } from '../../core/errors.js';
import { DEFAULT_MAX_DEPTH, type RequestCaps } from '../../config/access-schema.js';
import type { ColumnNode, PredicateNode, SelectNode } from '../tree/nodes.js';

export type { RequestCaps };

/** What one request names, resolved (plan.ts fills it before the tree is built). */
export interface RequestItems {
  /** Items the request selects (`*` counts as the columns it stands for); none named: not counted. */
  select: readonly SelectNode[];
  order: readonly { column?: ColumnNode }[];
  groupBy: readonly (ColumnNode | null)[];
  dedupe: readonly ColumnNode[];
  where: PredicateNode | null;
  /** Widths (ms) of the request's time buckets. */
  buckets: readonly number[];
  /** The read's window (since..until); buckets are counted when it is closed on both sides. */
  window: { lo?: number; hi?: number };
}

interface Counts {
  filters: number;
  inValues: number;
  paths: Set<string>;
  /** The deepest nesting seen: a filter or column is 1, each enclosing group or `not` and each arrow step adds 1. */
  depth: number;
}

/**
 * Walks the request's filters: conditions, list values, the JSON paths they name and how deep they nest. The
 * parsers bound the nesting (filter-syntax.ts MAX_DEPTH), so this recursion is bounded too.
 */
function countWhere(p: PredicateNode | null, c: Counts, level = 0): void {
  if (!p) return;
  switch (p.kind) {
    case 'and':
    case 'or':
      for (const i of p.items) countWhere(i, c, level + 1);
      return;
    case 'not':
      countWhere(p.inner, c, level + 1);
      return;
    case 'anchor':
      return;
    case 'in':
    case 'array':
      c.inValues += p.values.length;
      break;
    default:
      break;
  }
  c.filters++;
  addPath(p.column, c.paths);
  c.depth = Math.max(c.depth, level + columnDepth(p.column));
}

/** A column's own depth: 1, plus one per step of an arrow path the request wrote. */
function columnDepth(column: ColumnNode | null | undefined): number {
  const s = column?.source;
  const arrow = s?.kind === 'json-path' || (s?.kind === 'decoded' && s.arrow);
  return 1 + (arrow && 'path' in s ? s.path.length : 0);
}

/** An ad-hoc JSON arrow path, by its canonical name (the same path named twice counts once). */
function addPath(column: ColumnNode | null | undefined, paths: Set<string>): void {
  if (column?.source.kind === 'json-path') paths.add(column.name);
}

/** The 422 of a request past a cap: message and details name the cap (`limits.<cap>`), its value and what was found. */
export function capRefusal(
  cap: keyof RequestCaps,
  max: number,
  found: number,
  what: string,
  parameter: string,
): ApiError {
  return new ApiError(
    'TG_TOO_EXPENSIVE',
    `${what}: ${found}, above the cap limits.${cap} = ${max}; narrow the request (or raise the cap in the config file)`,
    { limit: cap, max, found, parameter },
  );
}

/** Throws the 422 of the first cap the request is past. */
export function checkRequestCaps(r: RequestItems, caps: RequestCaps): void {
  const check = (cap: keyof RequestCaps, found: number, what: string, parameter: string) => {
    const max = cap === 'maxDepth' ? (caps.maxDepth ?? DEFAULT_MAX_DEPTH) : caps[cap]!;
    if (found > max) throw capRefusal(cap, max, found, what, parameter);
  };
  check('maxSelectItems', r.select.length, 'select items', 'select');
  check('maxOrderItems', r.order.length, 'order items', 'order');
  check('maxGroupByItems', r.groupBy.length, 'group keys', 'groupBy');
  check('maxDedupeColumns', r.dedupe.length, 'dedupe columns', 'dedupe');
  const c: Counts = { filters: 0, inValues: 0, paths: new Set(), depth: 0 };
  countWhere(r.where, c);
  check('maxFilters', c.filters, 'filter conditions', 'where');
  check('maxInValues', c.inValues, 'values in in, any/all and array lists together', 'where');
  check('maxDepth', c.depth, 'filter nesting depth (groups, not. prefixes and arrow steps)', 'where');
  const columns = [
    ...r.select.map((s) => (s.kind === 'bucket' ? null : s.column)),
    ...r.order.map((o) => o.column),
    ...r.groupBy,
    ...r.dedupe,
  ];
  check('maxDepth', Math.max(0, ...columns.map(columnDepth)), 'JSON arrow path depth (steps + 1)', 'select');
  for (const s of r.select) if (s.kind !== 'bucket') addPath(s.column, c.paths);
  for (const o of r.order) addPath(o.column, c.paths);
  for (const g of r.groupBy) addPath(g, c.paths);
  for (const d of r.dedupe) addPath(d, c.paths);
  check('maxJsonPaths', c.paths.size, 'distinct JSON arrow paths', 'select');
  const { lo, hi } = r.window;
  // Without since the window has no start to count from: the groups are bounded by the events themselves.
  if (lo === undefined || hi === undefined) return;
  for (const ms of r.buckets) {
    check('maxBuckets', Math.ceil((hi - lo) / ms), `time buckets of ${ms}ms over since..until`, 'groupBy');
  }
}
