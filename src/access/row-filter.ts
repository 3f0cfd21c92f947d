/**
 * A row policy's filter (API.md "Access": PostgREST grammar, may name `{claims.<name>}`), read in two steps:
 *
 * 1. parseRowFilter, once at start-up: the text becomes a template tree. Placeholders are recognized here, before
 *    any claim is known, and only as a whole value (or a whole `in` item), so no claim text is ever parsed.
 * 2. bindRowFilter, per request: each placeholder is replaced by the caller's claim VALUE and the leaves become
 *    predicate nodes through the same builder the request filters use (src/query/filters.ts), against the
 *    topic's resolver. A claim holding `,`, `)` or `or=(` stays one value: it never meets the grammar.
 *
 * A claim that is missing, or has a shape its place cannot take, makes the whole policy match nothing (never
 * just drops a leaf: under a `not.` a dropped leaf would widen what the caller sees).
 */
import { ApiError, assertNever } from '../errors.js';
import {
  FILTER_OPS,
  buildPredicate,
  splitList,
  unquote,
  type ColumnResolver,
  type FilterOp,
} from '../query/filters.js';
import type { PredicateNode } from '../query/nodes.js';

export type ValueTemplate = { kind: 'text'; text: string } | { kind: 'claim'; name: string };

export type FilterTemplate =
  | { kind: 'leaf'; column: string; op: FilterOp; values: readonly ValueTemplate[] }
  | { kind: 'not'; inner: FilterTemplate }
  | { kind: 'and' | 'or'; items: readonly FilterTemplate[] };

const PLACEHOLDER = /^\{claims\.([A-Za-z0-9_:-]+(?:\.[A-Za-z0-9_:-]+)*)\}$/;
/** Operators a claim may feed: comparisons and `in`. A claim in a `like` pattern could carry `*` and widen it. */
const CLAIM_OPS: ReadonlySet<FilterOp> = new Set(['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'in']);

function bad(why: string): Error {
  return new Error(why);
}

/** One value: a whole placeholder, or text (which must not hold a partial placeholder). */
function valueTemplate(raw: string, quotedValues: boolean, op: FilterOp): ValueTemplate {
  const claim = PLACEHOLDER.exec(raw);
  if (claim) {
    if (!CLAIM_OPS.has(op))
      throw bad(`a {claims.<name>} value is allowed with eq, neq, gt, gte, lt, lte and in, not ${op}`);
    return { kind: 'claim', name: claim[1]! };
  }
  const quoted = quotedValues && raw.startsWith('"') && raw.endsWith('"') && raw.length >= 2;
  // Quoted text is literal (`"{claims.x}"` is those characters); unquoted text must not half-hold a placeholder.
  if (!quoted && raw.includes('{claims.'))
    throw bad(`${JSON.stringify(raw)}: a {claims.<name>} placeholder must be the whole value`);
  return { kind: 'text', text: quotedValues ? unquote(raw) : raw };
}

function columnTemplate(column: string, expr: string, quotedValues: boolean): FilterTemplate {
  if (expr.startsWith('not.')) return { kind: 'not', inner: columnTemplate(column, expr.slice(4), quotedValues) };
  const dot = expr.indexOf('.');
  const op = dot < 0 ? expr : expr.slice(0, dot);
  if (!(FILTER_OPS as readonly string[]).includes(op)) throw bad(`${column}: unknown operator ${JSON.stringify(op)}`);
  if (dot < 0) throw bad(`${column}: ${op} needs a value (${op}.<value>)`);
  const value = expr.slice(dot + 1);
  if (op !== 'in')
    return { kind: 'leaf', column, op: op as FilterOp, values: [valueTemplate(value, quotedValues, op as FilterOp)] };
  if (!value.startsWith('(') || !value.endsWith(')')) throw bad(`${column}: in takes a list in parentheses`);
  const inner = value.slice(1, -1);
  if (inner.trim() === '') throw bad(`${column}: in needs at least one value`);
  const items = splitList(inner, column).map((item) => valueTemplate(item, true, 'in'));
  return { kind: 'leaf', column, op: 'in', values: items };
}

function logicTemplate(kind: 'and' | 'or', body: string, depth: number): FilterTemplate {
  if (depth > 8) throw bad('boolean groups nest deeper than 8 levels');
  if (!body.startsWith('(') || !body.endsWith(')')) throw bad(`${kind}: the group must be in parentheses`);
  const items = splitList(body.slice(1, -1), kind).map((item) => logicItem(item, depth));
  return items.length === 1 ? items[0]! : { kind, items };
}

function logicItem(item: string, depth: number): FilterTemplate {
  const group = /^(not\.)?(and|or)(\(.*\))$/s.exec(item);
  if (group) {
    const inner = logicTemplate(group[2] as 'and' | 'or', group[3]!, depth + 1);
    return group[1] ? { kind: 'not', inner } : inner;
  }
  let name: string;
  let rest: string;
  if (item.startsWith('"')) {
    const end = item.indexOf('".', 1);
    if (end < 0) throw bad(`bad filter ${JSON.stringify(item)}`);
    name = item.slice(1, end);
    rest = item.slice(end + 2);
  } else {
    const dot = item.indexOf('.');
    if (dot <= 0) throw bad(`bad filter ${JSON.stringify(item)}: expected column.operator.value`);
    name = item.slice(0, dot);
    rest = item.slice(dot + 1);
  }
  return columnTemplate(name, rest, true);
}

/**
 * Reads a policy filter (`country=in.(DE,FR)`, `tenant=eq.{claims.tenant}&or=(a.eq.1,b.eq.2)`) into a template;
 * the `&`-joined parts are ANDed. Throws an Error naming the defect (reported at start-up).
 */
export function parseRowFilter(text: string): FilterTemplate {
  const parts = splitList(text, 'filter', '&').filter((p) => p !== '');
  if (parts.length === 0) throw bad('empty filter');
  const items = parts.map((part): FilterTemplate => {
    const eq = part.indexOf('=');
    if (eq <= 0) throw bad(`${JSON.stringify(part)}: expected column=operator.value`);
    const name = part.slice(0, eq);
    const expr = part.slice(eq + 1);
    if (name === 'or' || name === 'and') return logicTemplate(name, expr, 0);
    if (name === 'not.or' || name === 'not.and')
      return { kind: 'not', inner: logicTemplate(name === 'not.or' ? 'or' : 'and', expr, 0) };
    return columnTemplate(name, expr, false);
  });
  return items.length === 1 ? items[0]! : { kind: 'and', items };
}

/** The caller's claims, as the principal carries them. */
export type Claims = Readonly<Record<string, unknown>>;

/** A claim by dotted name (`realm_access.roles`); undefined when any step is missing. */
export function claimValue(claims: Claims, name: string): unknown {
  let v: unknown = claims;
  for (const step of name.split('.')) {
    if (v === null || typeof v !== 'object' || Array.isArray(v) || !Object.hasOwn(v, step)) return undefined;
    v = (v as Record<string, unknown>)[step];
  }
  return v;
}

/** Thrown inside binding: the policy cannot be satisfied by this caller (it matches nothing). */
class Deny extends Error {}

const scalar = (v: unknown): v is string | number | boolean =>
  typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v)) || typeof v === 'boolean';

function bindValues(t: Extract<FilterTemplate, { kind: 'leaf' }>, claims: Claims): unknown[] {
  const out: unknown[] = [];
  for (const v of t.values) {
    if (v.kind === 'text') {
      out.push(v.text);
      continue;
    }
    const c = claimValue(claims, v.name);
    // An array claim fills an `in` list item by item (`tenant=in.({claims.tenants})`).
    if (Array.isArray(c) && t.op === 'in' && c.every(scalar)) out.push(...c);
    else if (scalar(c)) out.push(c);
    else throw new Deny();
  }
  return out;
}

function bind(t: FilterTemplate, claims: Claims, resolve: ColumnResolver): PredicateNode {
  switch (t.kind) {
    case 'not':
      return { kind: 'not', inner: bind(t.inner, claims, resolve) };
    case 'and':
    case 'or':
      return { kind: t.kind, items: t.items.map((i) => bind(i, claims, resolve)) };
    case 'leaf': {
      const column = resolve(t.column);
      const values = bindValues(t, claims);
      try {
        return buildPredicate(column, t.op, t.op === 'in' ? values : values[0]);
      } catch (err) {
        // A claim that is not a value of the column's type (or an empty or huge list) matches nothing.
        if (err instanceof ApiError && t.values.some((v) => v.kind === 'claim')) throw new Deny();
        throw err;
      }
    }
    default:
      return assertNever(t, 'filter template');
  }
}

/**
 * The predicate of a policy for a caller with `claims`, or null when the policy matches nothing for it (a
 * missing claim, or one of a shape or type its place cannot take). An unknown column throws the resolver's error.
 */
export function bindRowFilter(t: FilterTemplate, claims: Claims, resolve: ColumnResolver): PredicateNode | null {
  try {
    return bind(t, claims, resolve);
  } catch (err) {
    if (err instanceof Deny) return null;
    throw err;
  }
}

/**
 * Problems of a template against a topic's columns, for the start-up check: unknown columns, and literal values
 * that are not of their column's type. Claim values can only be checked per request (they match nothing then).
 */
export function templateProblems(t: FilterTemplate, resolve: ColumnResolver): string[] {
  switch (t.kind) {
    case 'not':
      return templateProblems(t.inner, resolve);
    case 'and':
    case 'or':
      return t.items.flatMap((i) => templateProblems(i, resolve));
    case 'leaf':
      try {
        const column = resolve(t.column);
        if (t.values.every((v) => v.kind === 'text')) {
          const texts = t.values.map((v) => (v as { text: string }).text);
          buildPredicate(column, t.op, t.op === 'in' ? texts : texts[0]);
        }
        return [];
      } catch (err) {
        return [(err as Error).message];
      }
    default:
      return assertNever(t, 'filter template');
  }
}
