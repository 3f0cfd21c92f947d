/**
 * The shape of PostgREST's filter grammar, before any column is resolved or value typed: `col=[not.]op.value`
 * parameters, `or=(...)` / `and=(...)` groups (negated with `not.`), nested groups, and each filter's
 * `[not.]op[(any|all)].value`. It is read here once for everyone who writes filters in it: request parameters
 * (filters.ts turns the syntax into predicate nodes) and row policies (access/row-filter.ts binds claims into it).
 */
import { ApiError } from '../../core/errors.js';
import { refLength } from './column-ref.js';
import { parseOperator, type FilterOp, type Quantifier } from './filter-operators.js';
import { splitList } from './filter-lists.js';
import { MAX_DEPTH } from '../../config/access-schema.js';

// MAX_DEPTH: the deepest a request may nest whatever the configuration, the ceiling of `limits.maxDepth` (default
// 64, checked in query/passes/request-caps.ts). Trino's parser overflows its stack near 800 nested NOTs, and every
// walker of a predicate tree recurses, so `not.` chains are refused here, before a tree is built, when they pass it.

/** A filter as written. `quoted`: the filter sits in a group, where a value may be double-quoted. */
export type FilterSyntax =
  | { kind: 'filter'; column: string; expr: string; quoted: boolean }
  | { kind: 'not'; inner: FilterSyntax }
  | { kind: 'and' | 'or'; items: readonly FilterSyntax[] };

/** A filter's `[not.]op[(any|all)][.value]`, with its leading `not.`s counted. */
export interface OpSyntax {
  nots: number;
  /** The operator as written (`eq(any)`), for messages. */
  opText: string;
  op: FilterOp;
  quant: Quantifier | null;
  /** The value as written (quotes, parentheses and braces kept); undefined when none was given. */
  value: string | undefined;
}

/** Reads `[not.]op.value` of a filter on `column` (named in errors); an unknown operator is a TG_BAD_OPERATOR. */
export function opSyntax(column: string, expr: string): OpSyntax {
  let nots = 0;
  while (expr.startsWith('not.')) {
    nots++;
    expr = expr.slice(4);
  }
  if (nots >= MAX_DEPTH) {
    throw new ApiError(
      'TG_TOO_EXPENSIVE',
      `${column}: ${nots} not. prefixes nest deeper than limits.maxDepth can be set (at most ${MAX_DEPTH})`,
      { limit: 'maxDepth', max: MAX_DEPTH, found: nots + 1, parameter: 'where' },
    );
  }
  const dot = expr.indexOf('.');
  const opText = dot < 0 ? expr : expr.slice(0, dot);
  const { op, quant } = parseOperator(column, opText);
  return { nots, opText, op, quant, value: dot < 0 ? undefined : expr.slice(dot + 1) };
}

/** One `name=value` of a query string (or of a row policy's filter): a boolean group or a column filter. */
export function paramSyntax(name: string, text: string): FilterSyntax {
  if (name === 'or' || name === 'and') return logicSyntax(name, text);
  if (name === 'not.or' || name === 'not.and')
    return { kind: 'not', inner: logicSyntax(name === 'not.or' ? 'or' : 'and', text) };
  return { kind: 'filter', column: name, expr: text, quoted: false };
}

/** A group `(item,item,...)` of `or` / `and`, whose items are `col.op.value` or nested (`not.`)`and(...)`/`or(...)`. */
export function logicSyntax(kind: 'and' | 'or', body: string, depth = 0): FilterSyntax {
  if (depth > 8) throw new ApiError('TG_BAD_REQUEST', 'boolean groups nest deeper than 8 levels');
  body = body.trim();
  if (!body.startsWith('(') || !body.endsWith(')')) {
    throw new ApiError('TG_BAD_REQUEST', `${kind}: the group must be in parentheses, like ${kind}=(a.eq.1,b.lt.2)`);
  }
  const items = splitList(body.slice(1, -1), kind).map((item) => logicItem(item, depth));
  if (items.length === 0) throw new ApiError('TG_BAD_REQUEST', `${kind}: empty group`);
  return items.length === 1 ? items[0]! : { kind, items };
}

function logicItem(item: string, depth: number): FilterSyntax {
  const group = /^(not\.)?(and|or)\s*(\(.*\))$/s.exec(item);
  if (group) {
    const inner = logicSyntax(group[2] as 'and' | 'or', group[3]!, depth + 1);
    return group[1] ? { kind: 'not', inner } : inner;
  }
  // The column reference ends at the first dot outside double quotes: `"a.b".eq.1`, `value->>"x.y".eq.1`.
  const end = refLength(item);
  if (end <= 0 || end >= item.length) {
    throw new ApiError('TG_BAD_REQUEST', `bad filter ${JSON.stringify(item)}: expected column.operator.value`);
  }
  return { kind: 'filter', column: item.slice(0, end), expr: item.slice(end + 1), quoted: true };
}
