/**
 * The two request forms of a read (API.md "Reading events"): GET parameters in PostgREST's grammar, and the
 * POST body. Both become one ReadRequest with its filters already resolved into predicate nodes.
 */
import { ApiError } from '../../core/errors.js';
import { and, type PredicateNode } from '../tree/nodes.js';
import {
  buildFilter,
  buildPredicate,
  buildQuantified,
  paramSyntax,
  parseOperator,
  splitList,
  type ColumnResolver,
} from './filters.js';
import { refLength } from './column-ref.js';
import type { QueryBody } from './read-schema.js';
import type { OrderSpec } from '../tree/read-specs.js';
import type { SessionRead } from './session-schema.js';
import type { Where } from './where-schema.js';
import type { ReadRequest } from '../tree/read-request.js';

/** GET parameters that are not column filters. */
export const RESERVED_PARAMS = [
  'select',
  'order',
  'limit',
  'parallel',
  'cursor',
  'format',
  'compression',
  'explain',
  'decode',
  'follow',
  'after',
  'since',
  'until',
  'or',
  'and',
  'not.or',
  'not.and',
];

function single(name: string, v: unknown): string | undefined {
  if (v === undefined) return undefined;
  if (Array.isArray(v)) throw new ApiError('TG_BAD_REQUEST', `${name} is given more than once`, { parameter: name });
  return String(v);
}

/** `order=a.desc.nullslast,b` -> order specs. */
export function parseOrderParam(text: string): OrderSpec[] {
  return splitList(text, 'order').map((part) => {
    // The column reference ends at the first dot outside double quotes (`value->>"a.b".desc`).
    const end = refLength(part);
    const spec: OrderSpec = { field: part.slice(0, end) };
    const mods = part.slice(end + 1);
    for (const b of end < part.length ? mods.split('.') : []) {
      if (b === 'asc' || b === 'desc') spec.dir = b;
      else if (b === 'nullsfirst') spec.nulls = 'first';
      else if (b === 'nullslast') spec.nulls = 'last';
      else
        throw new ApiError(
          'TG_BAD_REQUEST',
          `order: ${JSON.stringify(part)}: use col.asc|desc[.nullsfirst|.nullslast]`,
          { parameter: 'order' },
        );
    }
    if (!spec.field) throw new ApiError('TG_BAD_REQUEST', 'order: empty column name', { parameter: 'order' });
    return spec;
  });
}

/** A filter parameter's column; PostgREST's `offset` (when no column has that name) is refused, naming the alternative. */
function resolveParam(name: string, resolve: ColumnResolver) {
  try {
    return resolve(name);
  } catch (err) {
    if (name !== 'offset' || !(err instanceof ApiError) || err.code !== 'TG_UNKNOWN_COLUMN') throw err;
    throw new ApiError(
      'TG_BAD_REQUEST',
      'offset is not supported: follow the next cursor of each page (pages are exact under ties and duplicates)',
      { parameter: 'offset' },
    );
  }
}

/** Reads GET parameters into a ReadRequest; every unknown parameter is a column filter on a known column. */
export function readRequestFromQuery(query: Record<string, unknown>, resolve: ColumnResolver): ReadRequest {
  const filters: PredicateNode[] = [];
  for (const [name, raw] of Object.entries(query)) {
    if (RESERVED_PARAMS.includes(name) && !['or', 'and', 'not.or', 'not.and'].includes(name)) continue;
    for (const value of Array.isArray(raw) ? raw : [raw]) {
      const text = String(value);
      filters.push(buildFilter(paramSyntax(name, text), (n) => resolveParam(n, resolve)));
    }
  }
  const select = single('select', query.select);
  const order = single('order', query.order);
  const limit = single('limit', query.limit);
  if (limit !== undefined && limit !== 'all' && !/^\d{1,9}$/.test(limit)) {
    throw new ApiError('TG_BAD_VALUE', `limit=${JSON.stringify(limit)} is not a positive integer or all`, {
      parameter: 'limit',
    });
  }
  const parallel = single('parallel', query.parallel);
  if (parallel !== undefined && !/^\d{1,4}$/.test(parallel)) {
    throw new ApiError('TG_BAD_VALUE', `parallel=${JSON.stringify(parallel)} is not a positive integer`, {
      parameter: 'parallel',
    });
  }
  return {
    select: select === undefined ? undefined : splitList(select, 'select').filter(Boolean),
    where: and(...filters),
    since: single('since', query.since),
    until: single('until', query.until),
    order: order === undefined || order === 'none' ? undefined : parseOrderParam(order),
    unordered: order === 'none' ? true : undefined,
    limit: limit === undefined || limit === 'all' ? limit : Number(limit),
    parallel: parallel === undefined ? undefined : Number(parallel),
  };
}

/** The JSON `where` of a POST body (and a cursor's `filter`): {and:[...]}, {or:[...]}, {not:{...}}, {field, op, value}. */
export function whereFromJson(w: Where, resolve: ColumnResolver, depth = 0): PredicateNode {
  if (depth > 8) throw new ApiError('TG_BAD_REQUEST', 'where: nests deeper than 8 levels');
  if (!w || typeof w !== 'object' || Array.isArray(w)) {
    throw new ApiError(
      'TG_BAD_REQUEST',
      'where: each condition is an object: {and: [...]}, {or: [...]}, {not: {...}} or {field, op, value}',
    );
  }
  if ('and' in w || 'or' in w) {
    const [kind, list] = 'and' in w ? (['and', w.and] as const) : (['or', w.or] as const);
    const items = list.map((x) => whereFromJson(x, resolve, depth + 1));
    if (items.length === 0) throw new ApiError('TG_BAD_REQUEST', `where: empty ${kind}`);
    return items.length === 1 ? items[0]! : { kind, items };
  }
  if ('not' in w) return { kind: 'not', inner: whereFromJson(w.not, resolve, depth + 1) };
  const column = resolve(w.field);
  let parsed: ReturnType<typeof parseOperator>;
  try {
    parsed = parseOperator(column.name, w.op);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    throw new ApiError(err.code, `where: ${err.message}`, err.details);
  }
  const value = w.value === undefined ? null : w.value;
  return parsed.quant
    ? buildQuantified(column, parsed.op, parsed.quant, value)
    : buildPredicate(column, parsed.op, value);
}

export function readRequestFromBody(body: QueryBody, resolve: ColumnResolver): ReadRequest {
  return {
    select: body.select,
    where: body.where ? whereFromJson(body.where, resolve) : null,
    since: body.since,
    until: body.until,
    groupBy: body.groupBy,
    order: body.order === 'none' ? undefined : body.order,
    unordered: body.order === 'none' ? true : undefined,
    limit: body.limit,
    parallel: body.parallel,
    dedupe: body.dedupe,
  };
}

/**
 * The `limit=all` read of a session's request over [since, until): its whole window when the session is made, one
 * stream's range when a stream is read. Each stream is one query (`parallel` 1): the session is the split.
 */
export function readRequestOfSession(
  q: SessionRead,
  window: { since: string; until: string },
  resolve: ColumnResolver,
): ReadRequest {
  const { select, where, order } = q;
  const body = { select, where, ...window, order: order === 'none' ? ('none' as const) : undefined };
  return readRequestFromBody({ ...body, limit: 'all', parallel: 1 }, resolve);
}
