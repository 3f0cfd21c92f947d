/**
 * PostgREST's filter grammar, read into predicate nodes:
 *   col=eq.5   col=not.in.(a,b,"c,d")   col=like.*abc*   col=is.null
 *   or=(a.eq.1,b.lt.2)   and=(a.gte.1,or(b.is.null,b.eq.x))   not.or=(...)
 * Every column is resolved (and so checked) before a node is built.
 */
import { ApiError } from '../errors.js';
import type { ColumnNode, CompareOp, LiteralNode, PredicateNode } from './nodes.js';
import { literalFor, typeFamily, type Rounding } from './values.js';

export type ColumnResolver = (name: string) => ColumnNode;

const COMPARE_OPS = ['eq', 'neq', 'gt', 'gte', 'lt', 'lte'] as const satisfies readonly CompareOp[];
export const FILTER_OPS = [...COMPARE_OPS, 'in', 'like', 'ilike', 'is'] as const;
export type FilterOp = (typeof FILTER_OPS)[number];

/** Rounding direction that keeps a comparison exact when the value is finer than the column. */
const ROUNDING = { eq: 'exact', neq: 'exact', gt: 'down', gte: 'up', lt: 'up', lte: 'down' } as const satisfies Record<
  CompareOp,
  Rounding
>;

function badOp(column: string, op: string, why?: string): ApiError {
  return new ApiError(
    'TG_BAD_OPERATOR',
    why ??
      `${column}: unknown operator ${JSON.stringify(op)}; use one of ${FILTER_OPS.join(', ')} (optionally after not.)`,
    { column, operator: op },
  );
}

/**
 * Splits `a,b,"c,d",f(x,y)` on the commas outside double quotes and parentheses. Items keep their quotes
 * (unquote() removes them where a value is expected), so quoted text may hold any reserved character.
 */
export function splitList(text: string, what: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quoted = false;
  let start = 0;
  const unbalanced = () => new ApiError('TG_BAD_REQUEST', `${what}: unbalanced quotes or parentheses`);
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '\\') i++;
      else if (c === '"') quoted = false;
    } else if (c === '"') quoted = true;
    else if (c === '(') depth++;
    else if (c === ')' && --depth < 0) throw unbalanced();
    else if (c === ',' && depth === 0) {
      out.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  if (quoted || depth !== 0) throw unbalanced();
  out.push(text.slice(start).trim());
  return out;
}

/** `"a \\"b\\" c"` -> `a "b" c`; text without surrounding quotes is returned as is. */
export function unquote(item: string): string {
  if (item.length < 2 || !item.startsWith('"') || !item.endsWith('"')) return item;
  return item.slice(1, -1).replace(/\\(.)/gs, '$1');
}

/** `*` is the wildcard; literal % and _ are escaped so they match themselves. */
function likePattern(text: string): { pattern: string; escape: boolean } {
  const escaped = text.replace(/[\\%_]/g, (c) => `\\${c}`);
  return { pattern: escaped.replace(/\*/g, '%'), escape: escaped !== text };
}

/**
 * One column filter: `op.value` or `not.op.value` for `column`. Inside or=/and= groups a value may be
 * double-quoted to carry commas, dots and parentheses (`quotedValues`).
 */
export function parseColumnFilter(column: ColumnNode, expr: string, quotedValues = false): PredicateNode {
  if (expr.startsWith('not.')) return { kind: 'not', inner: parseColumnFilter(column, expr.slice(4), quotedValues) };
  const dot = expr.indexOf('.');
  const op = dot < 0 ? expr : expr.slice(0, dot);
  const value = dot < 0 ? undefined : expr.slice(dot + 1);
  if (!(FILTER_OPS as readonly string[]).includes(op)) throw badOp(column.name, op);
  if (value === undefined) throw new ApiError('TG_BAD_VALUE', `${column.name}: ${op} needs a value (${op}.<value>)`);
  return buildPredicate(column, op as FilterOp, quotedValues && op !== 'in' ? unquote(value) : value);
}

/** Builds the node for an operator and its textual value (GET) or JSON value (POST). */
export function buildPredicate(column: ColumnNode, op: FilterOp, value: unknown): PredicateNode {
  const family = typeFamily(column.type);
  switch (op) {
    case 'eq':
    case 'neq':
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
      if (family === 'other' || (family === 'boolean' && op !== 'eq' && op !== 'neq')) {
        throw badOp(column.name, op, `${column.name} (${column.type}) does not support ${op}`);
      }
      return { kind: 'compare', op, column, value: literalFor(column, value, ROUNDING[op]) };
    case 'in': {
      const items = Array.isArray(value) ? value : inList(column.name, String(value));
      if (items.length === 0) throw new ApiError('TG_BAD_VALUE', `${column.name}: in needs at least one value`);
      if (items.length > 1000) throw new ApiError('TG_TOO_EXPENSIVE', `${column.name}: in takes at most 1000 values`);
      if (family === 'other') throw badOp(column.name, op, `${column.name} (${column.type}) does not support in`);
      return { kind: 'in', column, values: items.map((v): LiteralNode => literalFor(column, v)) };
    }
    case 'like':
    case 'ilike': {
      if (family !== 'varchar' && family !== 'varbinary') {
        throw badOp(column.name, op, `${column.name} (${column.type}) does not support ${op}; it matches text`);
      }
      if (typeof value !== 'string') throw new ApiError('TG_BAD_VALUE', `${column.name}: ${op} needs a text pattern`);
      if (value.includes('\u0000') || !value.isWellFormed()) {
        throw new ApiError('TG_BAD_VALUE', `${column.name}: the pattern contains a NUL or an unpaired surrogate`);
      }
      return { kind: 'like', column, ...likePattern(value), caseInsensitive: op === 'ilike' };
    }
    case 'is': {
      const what = value === null ? 'null' : String(value);
      if (what !== 'null' && what !== 'true' && what !== 'false') {
        throw new ApiError(
          'TG_BAD_VALUE',
          `${column.name}: is takes null, true or false, not ${JSON.stringify(value)}`,
        );
      }
      if (what !== 'null' && family !== 'boolean') {
        throw badOp(column.name, op, `${column.name} (${column.type}) is not boolean; use is.null`);
      }
      return { kind: 'is', column, what };
    }
  }
}

function inList(column: string, text: string): string[] {
  if (!text.startsWith('(') || !text.endsWith(')')) {
    throw new ApiError('TG_BAD_VALUE', `${column}: in takes a list in parentheses, like in.(a,b,"c,d")`);
  }
  const inner = text.slice(1, -1);
  return inner.trim() === '' ? [] : splitList(inner, column).map(unquote);
}

/** A logic group `(item,item,...)` for `or`/`and` (possibly negated), with `col.op.value` items. */
export function parseLogic(kind: 'and' | 'or', body: string, resolve: ColumnResolver, depth = 0): PredicateNode {
  if (depth > 8) throw new ApiError('TG_BAD_REQUEST', 'boolean groups nest deeper than 8 levels');
  if (!body.startsWith('(') || !body.endsWith(')')) {
    throw new ApiError('TG_BAD_REQUEST', `${kind}: the group must be in parentheses, like ${kind}=(a.eq.1,b.lt.2)`);
  }
  const items = splitList(body.slice(1, -1), kind).map((item) => parseLogicItem(item, resolve, depth));
  if (items.length === 0) throw new ApiError('TG_BAD_REQUEST', `${kind}: empty group`);
  return items.length === 1 ? items[0]! : { kind, items };
}

function parseLogicItem(item: string, resolve: ColumnResolver, depth: number): PredicateNode {
  const group = /^(not\.)?(and|or)(\(.*\))$/s.exec(item);
  if (group) {
    const inner = parseLogic(group[2] as 'and' | 'or', group[3]!, resolve, depth + 1);
    return group[1] ? { kind: 'not', inner } : inner;
  }
  let name: string;
  let rest: string;
  if (item.startsWith('"')) {
    const end = item.indexOf('".', 1);
    if (end < 0) throw new ApiError('TG_BAD_REQUEST', `bad filter ${JSON.stringify(item)}`);
    name = item.slice(1, end);
    rest = item.slice(end + 2);
  } else {
    const dot = item.indexOf('.');
    if (dot <= 0)
      throw new ApiError('TG_BAD_REQUEST', `bad filter ${JSON.stringify(item)}: expected column.operator.value`);
    name = item.slice(0, dot);
    rest = item.slice(dot + 1);
  }
  return parseColumnFilter(resolve(name), rest, true);
}
