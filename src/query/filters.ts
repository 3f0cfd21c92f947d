/**
 * PostgREST's filter grammar, read into predicate nodes:
 *   col=eq.5   col=not.in.(a,b,"c,d")   col=like.*abc*   col=is.null
 *   or=(a.eq.1,b.lt.2)   and=(a.gte.1,or(b.is.null,b.eq.x))   not.or=(...)
 * Every column is resolved (and so checked) before a node is built.
 */
import { ApiError } from '../errors.js';
import type { ArrayOp, ColumnNode, CompareOp, IsWhat, LiteralNode, PredicateNode } from './nodes.js';
import { arrayElementType, literalFor, rowFieldType, typeFamily, type Rounding } from './values.js';
import { likePattern, regexPattern } from './patterns.js';
import { pathColumnFor } from './json-path-column.js';
import { refLength } from './column-ref.js';

export type ColumnResolver = (name: string) => ColumnNode;

const COMPARE_OPS = ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'isdistinct'] as const satisfies readonly CompareOp[];
const ARRAY_OPS = ['cs', 'cd', 'ov'] as const satisfies readonly ArrayOp[];
export const FILTER_OPS = [...COMPARE_OPS, 'in', 'like', 'ilike', 'match', 'imatch', 'is', ...ARRAY_OPS] as const;
export type FilterOp = (typeof FILTER_OPS)[number];

/** Operators that take PostgREST's `(any)` / `(all)` modifier: `eq(any).{a,b}`, `like(all).{*a*,*b*}`. */
export const QUANTIFIABLE_OPS = ['eq', 'like', 'ilike', 'gt', 'gte', 'lt', 'lte', 'match', 'imatch'] as const;
export type Quantifier = 'any' | 'all';

/**
 * PostgREST operators with no Trino counterpart on topic tables: refused with a message that says why, never
 * mistaken for an unknown operator (docs/postgrest-parity.md).
 */
const NO_COUNTERPART: Readonly<Record<string, string>> = {
  fts: 'full-text search (PostgreSQL tsvector/tsquery)',
  plfts: 'full-text search (PostgreSQL tsvector/tsquery)',
  phfts: 'full-text search (PostgreSQL tsvector/tsquery)',
  wfts: 'full-text search (PostgreSQL tsvector/tsquery)',
  sl: 'a range operator (PostgreSQL range types)',
  sr: 'a range operator (PostgreSQL range types)',
  nxl: 'a range operator (PostgreSQL range types)',
  nxr: 'a range operator (PostgreSQL range types)',
  adj: 'a range operator (PostgreSQL range types)',
};

/** Rounding direction that keeps a comparison exact when the value is finer than the column. */
const ROUNDING = {
  eq: 'exact',
  neq: 'exact',
  isdistinct: 'exact',
  gt: 'down',
  gte: 'up',
  lt: 'up',
  lte: 'down',
} as const satisfies Record<CompareOp, Rounding>;

/** The most values one list (in, any/all, cs/cd/ov) may carry. */
const MAX_LIST = 1000;

function badOp(column: string, op: string, why?: string): ApiError {
  return new ApiError(
    'TG_BAD_OPERATOR',
    why ??
      `${column}: unknown operator ${JSON.stringify(op)}; use one of ${FILTER_OPS.join(', ')} (optionally after not.)`,
    { column, operator: op },
  );
}

/**
 * An operator as written: `eq`, `eq(any)`, `like(all)`. PostgREST's full-text and range operators are refused
 * with the reason (`fts(english)` included); anything else unknown is a TG_BAD_OPERATOR listing the operators.
 */
export function parseOperator(column: string, text: string): { op: FilterOp; quant: Quantifier | null } {
  const m = /^([a-z]+)(?:\((any|all)\))?$/.exec(text);
  const base = m?.[1] ?? /^([a-z]+)\(/.exec(text)?.[1] ?? text;
  const missing = NO_COUNTERPART[base];
  if (missing) {
    throw badOp(
      column,
      base,
      `${column}: ${base} is ${missing}, which has no Trino counterpart here; use like, ilike or match for text`,
    );
  }
  if (!m || !(FILTER_OPS as readonly string[]).includes(m[1]!)) throw badOp(column, text);
  const op = m[1] as FilterOp;
  const quant = (m[2] ?? null) as Quantifier | null;
  if (quant && !(QUANTIFIABLE_OPS as readonly string[]).includes(op)) {
    throw badOp(
      column,
      text,
      `${column}: ${op} takes no (${quant}) modifier; it applies to ${QUANTIFIABLE_OPS.join(', ')}`,
    );
  }
  return { op, quant };
}

/**
 * Splits `a,b,"c,d",f(x,y),g.{1,2}` on the commas outside double quotes, parentheses and braces. Items keep their quotes
 * (unquote() removes them where a value is expected), so quoted text may hold any reserved character.
 */
export function splitList(text: string, what: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let braces = 0;
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
    else if (c === '{') braces++;
    else if (c === '}' && --braces < 0) throw unbalanced();
    else if (c === ',' && depth === 0 && braces === 0) {
      out.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  if (quoted || depth !== 0 || braces !== 0) throw unbalanced();
  out.push(text.slice(start).trim());
  return out;
}

/** `"a \\"b\\" c"` -> `a "b" c`; text without surrounding quotes is returned as is. */
export function unquote(item: string): string {
  if (item.length < 2 || !item.startsWith('"') || !item.endsWith('"')) return item;
  return item.slice(1, -1).replace(/\\(.)/gs, '$1');
}

/**
 * One column filter: `op.value`, `op(any).{a,b}` or `not.op.value` for `column`. Inside or=/and= groups a value may
 * be double-quoted to carry commas, dots and parentheses (`quotedValues`).
 */
export function parseColumnFilter(column: ColumnNode, expr: string, quotedValues = false): PredicateNode {
  if (expr.startsWith('not.')) return { kind: 'not', inner: parseColumnFilter(column, expr.slice(4), quotedValues) };
  const dot = expr.indexOf('.');
  const opText = dot < 0 ? expr : expr.slice(0, dot);
  const value = dot < 0 ? undefined : expr.slice(dot + 1);
  const { op, quant } = parseOperator(column.name, opText);
  if (value === undefined) {
    throw new ApiError('TG_BAD_VALUE', `${column.name}: ${opText} needs a value (${opText}.<value>)`, {
      column: column.name,
    });
  }
  if (quant) return buildQuantified(column, op, quant, braceList(column.name, opText, value));
  const listed = op === 'in' || isArrayOp(op);
  return buildPredicate(column, op, quotedValues && !listed ? unquote(value) : value);
}

/**
 * `op(any)` / `op(all)` over a list: any of (all of) the comparisons holds. `eq(any)` is an IN list (pushed like
 * one); an empty list is false for any and true for all, as PostgreSQL's `= ANY('{}')` / `= ALL('{}')`.
 */
export function buildQuantified(column: ColumnNode, op: FilterOp, quant: Quantifier, values: unknown): PredicateNode {
  const items = Array.isArray(values) ? values : null;
  if (!items) throw new ApiError('TG_BAD_VALUE', `${column.name}: ${op}(${quant}) needs a list of values`);
  if (items.length > MAX_LIST) {
    throw new ApiError('TG_TOO_EXPENSIVE', `${column.name}: ${op}(${quant}) takes at most ${MAX_LIST} values`);
  }
  if (op === 'eq' && quant === 'any') return buildPredicate(column, 'in', items);
  const none: PredicateNode = { kind: 'in', column, values: [] };
  if (items.length === 0) return quant === 'any' ? none : { kind: 'not', inner: none };
  const preds = items.map((v) => buildPredicate(column, op, v));
  return preds.length === 1 ? preds[0]! : { kind: quant === 'any' ? 'or' : 'and', items: preds };
}

/** Builds the node for an operator and its textual value (GET) or JSON value (POST). */
export function buildPredicate(column: ColumnNode, op: FilterOp, value: unknown): PredicateNode {
  if (column.source.kind === 'json-path') {
    // An ad-hoc JSON path takes the type its operator and value give it (json-path-column.ts).
    const listed =
      op === 'in'
        ? listOf(column.name, op, value, inList)
        : isArrayOp(op)
          ? listOf(column.name, op, value, braceList)
          : value;
    const typed = pathColumnFor(column, op, listed);
    return buildTyped(typed, op, listed);
  }
  return buildTyped(column, op, value);
}

function isArrayOp(op: string): op is ArrayOp {
  return (ARRAY_OPS as readonly string[]).includes(op);
}

function listOf(
  column: string,
  op: string,
  value: unknown,
  parse: (column: string, op: string, text: string) => string[],
): unknown[] {
  return Array.isArray(value) ? value : parse(column, op, String(value));
}

function buildTyped(column: ColumnNode, op: FilterOp, value: unknown): PredicateNode {
  const family = typeFamily(column.type);
  switch (op) {
    case 'eq':
    case 'neq':
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
    case 'isdistinct': {
      const equality = op === 'eq' || op === 'neq' || op === 'isdistinct';
      if (family === 'other' || (family === 'boolean' && !equality)) {
        throw badOp(column.name, op, `${column.name} (${column.type}) does not support ${op}`);
      }
      return { kind: 'compare', op, column, value: literalFor(column, value, ROUNDING[op]) };
    }
    case 'in': {
      const items = listOf(column.name, op, value, inList);
      if (items.length > MAX_LIST) {
        throw new ApiError('TG_TOO_EXPENSIVE', `${column.name}: in takes at most ${MAX_LIST} values`);
      }
      if (family === 'other') throw badOp(column.name, op, `${column.name} (${column.type}) does not support in`);
      return { kind: 'in', column, values: items.map((v): LiteralNode => literalFor(column, v)) };
    }
    case 'like':
    case 'ilike':
    case 'match':
    case 'imatch': {
      if (family !== 'varchar' && family !== 'varbinary') {
        throw badOp(column.name, op, `${column.name} (${column.type}) does not support ${op}; it matches text`);
      }
      if (typeof value !== 'string') throw new ApiError('TG_BAD_VALUE', `${column.name}: ${op} needs a text pattern`);
      if (value.includes('\u0000') || !value.isWellFormed()) {
        throw new ApiError('TG_BAD_VALUE', `${column.name}: the pattern contains a NUL or an unpaired surrogate`);
      }
      if (op === 'match' || op === 'imatch') {
        return { kind: 'match', column, pattern: regexPattern(column.name, value), caseInsensitive: op === 'imatch' };
      }
      return { kind: 'like', column, ...likePattern(column.name, value), caseInsensitive: op === 'ilike' };
    }
    case 'is':
      return isPredicate(column, value);
    case 'cs':
    case 'cd':
    case 'ov':
      return arrayPredicate(column, op, value);
  }
}

const IS_VALUES = ['null', 'not_null', 'true', 'false', 'unknown'] as const satisfies readonly IsWhat[];

/** `is.null`, `is.not_null`, and on booleans `is.true`, `is.false`, `is.unknown`; any letter case, as PostgREST. */
function isPredicate(column: ColumnNode, value: unknown): PredicateNode {
  const what = (value === null ? 'null' : String(value)).toLowerCase();
  if (!(IS_VALUES as readonly string[]).includes(what)) {
    throw new ApiError(
      'TG_BAD_VALUE',
      `${column.name}: is takes ${IS_VALUES.join(', ')}, not ${JSON.stringify(value)}`,
      { column: column.name },
    );
  }
  if (what !== 'null' && what !== 'not_null' && typeFamily(column.type) !== 'boolean') {
    throw badOp(column.name, 'is', `${column.name} (${column.type}) is not boolean; use is.null or is.not_null`);
  }
  return { kind: 'is', column, what: what as IsWhat };
}

/**
 * `cs`, `cd`, `ov` on an array column: the values have the element type. For an array of rows with a `key` field
 * (`headers`), the values are keys: `headers=cs.{trace}` holds when a header named trace is present.
 */
function arrayPredicate(column: ColumnNode, op: ArrayOp, value: unknown): PredicateNode {
  const refuse = () =>
    badOp(
      column.name,
      op,
      `${column.name} (${column.type}) does not support ${op}; it applies to arrays of scalars and to headers`,
    );
  let type = arrayElementType(column.type);
  let field: string | null = null;
  if (type?.startsWith('row(')) {
    type = rowFieldType(type, 'key');
    field = 'key';
  }
  if (!type || typeFamily(type) === 'other') throw refuse();
  const items = listOf(column.name, op, value, braceList);
  if (items.length > MAX_LIST) {
    throw new ApiError('TG_TOO_EXPENSIVE', `${column.name}: ${op} takes at most ${MAX_LIST} values`);
  }
  const elementColumn: ColumnNode = { ...column, type };
  return { kind: 'array', op, column, field, values: items.map((v) => literalFor(elementColumn, v)) };
}

function inList(column: string, _op: string, text: string): string[] {
  if (!text.startsWith('(') || !text.endsWith(')')) {
    throw new ApiError('TG_BAD_VALUE', `${column}: in takes a list in parentheses, like in.(a,b,"c,d")`);
  }
  const inner = text.slice(1, -1);
  return inner.trim() === '' ? [] : splitList(inner, column).map(unquote);
}

/** PostgreSQL's array literal as PostgREST takes it: `{a,b,"c,d"}`; `{}` is empty. */
function braceList(column: string, op: string, text: string): string[] {
  if (!text.startsWith('{') || !text.endsWith('}')) {
    throw new ApiError('TG_BAD_VALUE', `${column}: ${op} takes a list in braces, like ${op}.{a,b,"c,d"}`);
  }
  const inner = text.slice(1, -1);
  return inner.trim() === '' ? [] : splitList(inner, column).map(unquote);
}

/** A logic group `(item,item,...)` for `or`/`and` (possibly negated), with `col.op.value` items. */
export function parseLogic(kind: 'and' | 'or', body: string, resolve: ColumnResolver, depth = 0): PredicateNode {
  if (depth > 8) throw new ApiError('TG_BAD_REQUEST', 'boolean groups nest deeper than 8 levels');
  body = body.trim();
  if (!body.startsWith('(') || !body.endsWith(')')) {
    throw new ApiError('TG_BAD_REQUEST', `${kind}: the group must be in parentheses, like ${kind}=(a.eq.1,b.lt.2)`);
  }
  const items = splitList(body.slice(1, -1), kind).map((item) => parseLogicItem(item, resolve, depth));
  if (items.length === 0) throw new ApiError('TG_BAD_REQUEST', `${kind}: empty group`);
  return items.length === 1 ? items[0]! : { kind, items };
}

function parseLogicItem(item: string, resolve: ColumnResolver, depth: number): PredicateNode {
  const group = /^(not\.)?(and|or)\s*(\(.*\))$/s.exec(item);
  if (group) {
    const inner = parseLogic(group[2] as 'and' | 'or', group[3]!, resolve, depth + 1);
    return group[1] ? { kind: 'not', inner } : inner;
  }
  // The column reference ends at the first dot outside double quotes: `"a.b".eq.1`, `value->>"x.y".eq.1`.
  const end = refLength(item);
  if (end <= 0 || end >= item.length) {
    throw new ApiError('TG_BAD_REQUEST', `bad filter ${JSON.stringify(item)}: expected column.operator.value`);
  }
  const name = item.slice(0, end);
  const rest = item.slice(end + 1);
  return parseColumnFilter(resolve(name), rest, true);
}
