/**
 * The operators of PostgREST's filter grammar (docs/postgrest-parity.md): the ones supported here, the `(any)` /
 * `(all)` modifiers, and the PostgreSQL-only ones refused with the reason.
 */
import { ApiError } from '../../core/errors.js';
import type { ArrayOp, CompareOp } from '../tree/nodes.js';

export const COMPARE_OPS = [
  'eq',
  'neq',
  'gt',
  'gte',
  'lt',
  'lte',
  'isdistinct',
] as const satisfies readonly CompareOp[];
export const ARRAY_OPS = ['cs', 'cd', 'ov'] as const satisfies readonly ArrayOp[];
export const FILTER_OPS = [...COMPARE_OPS, 'in', 'like', 'ilike', 'match', 'imatch', 'is', ...ARRAY_OPS] as const;
export type FilterOp = (typeof FILTER_OPS)[number];

/**
 * What value an operator takes: one value, a list in parentheses (`in.(a,b)`), a list in braces (`cs.{a,b}`),
 * a text pattern, or an `is` word. Every reader of a filter's value (GET text, POST JSON, JSON-path typing) asks here.
 */
export type Operand = 'value' | 'paren-list' | 'brace-list' | 'pattern' | 'is-word';

export const OPERANDS = {
  eq: 'value',
  neq: 'value',
  gt: 'value',
  gte: 'value',
  lt: 'value',
  lte: 'value',
  isdistinct: 'value',
  in: 'paren-list',
  like: 'pattern',
  ilike: 'pattern',
  match: 'pattern',
  imatch: 'pattern',
  is: 'is-word',
  cs: 'brace-list',
  cd: 'brace-list',
  ov: 'brace-list',
} as const satisfies Record<FilterOp, Operand>;

/** True when the operator takes a list (in parentheses or braces). */
export function takesList(op: FilterOp): boolean {
  return OPERANDS[op] === 'paren-list' || OPERANDS[op] === 'brace-list';
}

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

export function badOp(column: string, op: string, why?: string): ApiError {
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

export function isArrayOp(op: string): op is ArrayOp {
  return (ARRAY_OPS as readonly string[]).includes(op);
}
