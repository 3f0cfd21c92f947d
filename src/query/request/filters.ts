/**
 * PostgREST's filter grammar, read into predicate nodes:
 *   col=eq.5   col=not.in.(a,b,"c,d")   col=like.*abc*   col=is.null
 *   or=(a.eq.1,b.lt.2)   and=(a.gte.1,or(b.is.null,b.eq.x))   not.or=(...)
 * Every column is resolved (and so checked) before a node is built.
 */
import { ApiError, assertNever } from '../../core/errors.js';
import type { ArrayOp, ColumnNode, CompareOp, IsWhat, LiteralNode, PredicateNode } from '../tree/nodes.js';
import { arrayElementType, rowFieldsOf, rowFieldType, typeFamily } from '../../core/type-family.js';
import { literalFor, type Rounding } from './values.js';
import { likePattern, regexPattern } from './patterns.js';
import { pathColumnFor, retype } from './json-path-column.js';
import { badOp, OPERANDS, takesList, type FilterOp, type Quantifier } from './filter-operators.js';
import { logicSyntax, opSyntax, type FilterSyntax, type OpSyntax } from './filter-syntax.js';
import { MAX_LIST, braceList, inList, listOf, unquote } from './filter-lists.js';

// The grammar's public surface stays here (row policies and the tests import it from filters.ts).
export { FILTER_OPS, QUANTIFIABLE_OPS, parseOperator, type FilterOp, type Quantifier } from './filter-operators.js';
export { splitList, unquote } from './filter-lists.js';
export { logicSyntax, opSyntax, paramSyntax, type FilterSyntax, type OpSyntax } from './filter-syntax.js';

export type ColumnResolver = (name: string) => ColumnNode;

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

/**
 * One column filter: `op.value`, `op(any).{a,b}` or `not.op.value` for `column`. Inside or=/and= groups a value may
 * be double-quoted to carry commas, dots and parentheses (`quotedValues`).
 */
export function parseColumnFilter(column: ColumnNode, expr: string, quotedValues = false): PredicateNode {
  const s = opSyntax(column.name, expr);
  let node = filterNode(column, s, quotedValues);
  for (let i = 0; i < s.nots; i++) node = { kind: 'not', inner: node };
  return node;
}

function filterNode(column: ColumnNode, s: OpSyntax, quotedValues: boolean): PredicateNode {
  const { op, quant, value } = s;
  if (value === undefined) {
    throw new ApiError('TG_BAD_VALUE', `${column.name}: ${s.opText} needs a value (${s.opText}.<value>)`, {
      column: column.name,
    });
  }
  if (quant) return buildQuantified(column, op, quant, braceList(column.name, s.opText, value));
  return buildPredicate(column, op, quotedValues && !takesList(op) ? unquote(value) : value);
}

/** Predicate nodes for filters as written, every column resolved (and so checked) first. */
export function buildFilter(syntax: FilterSyntax, resolve: ColumnResolver): PredicateNode {
  switch (syntax.kind) {
    case 'filter':
      return parseColumnFilter(resolve(syntax.column), syntax.expr, syntax.quoted);
    case 'not':
      return { kind: 'not', inner: buildFilter(syntax.inner, resolve) };
    case 'and':
    case 'or':
      return { kind: syntax.kind, items: syntax.items.map((i) => buildFilter(i, resolve)) };
    default:
      return assertNever(syntax, 'filter syntax');
  }
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

/**
 * Builds the node for an operator and its textual value (GET) or JSON value (POST). A JSON arrow path takes the type
 * its operator and value give it, unless `pathAs` fixes it (a row policy's claims compare as text, or as numbers).
 */
export function buildPredicate(
  column: ColumnNode,
  op: FilterOp,
  value: unknown,
  pathAs?: 'text' | 'number',
): PredicateNode {
  if (column.source.kind === 'json-path') {
    // An ad-hoc JSON path takes the type its operator and value give it (json-path-column.ts).
    const operand = OPERANDS[op];
    const listed =
      operand === 'paren-list'
        ? listOf(column.name, op, value, inList)
        : operand === 'brace-list'
          ? listOf(column.name, op, value, braceList)
          : value;
    const typed = pathAs ? retype(column, pathAs === 'text' ? 'varchar' : 'double') : pathColumnFor(column, op, listed);
    return buildTyped(typed, op, listed);
  }
  return buildTyped(column, op, value);
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
  if (type !== null && rowFieldsOf(type) !== null) {
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

/** A logic group `(item,item,...)` for `or`/`and` (possibly negated), with `col.op.value` items. */
export function parseLogic(kind: 'and' | 'or', body: string, resolve: ColumnResolver): PredicateNode {
  return buildFilter(logicSyntax(kind, body), resolve);
}
