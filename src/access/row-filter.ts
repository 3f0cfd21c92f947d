/**
 * A row policy's filter (API.md "Access": PostgREST grammar, may name `{claims.<name>}`), read in two steps:
 *
 * 1. parseRowFilter, once at start-up: the text is read by the request filters' own grammar
 *    (query/request/filter-syntax.ts) into its syntax tree, and every filter in it is checked for placeholders. They are
 *    recognized only as a whole value (or a whole `in` item), so no claim text is ever parsed.
 * 2. bindRowFilter, per request: a filter without placeholders becomes a predicate exactly as a request's does
 *    (query/request/filters.ts); in one with placeholders each is replaced by the caller's claim VALUE, and the predicate
 *    is built from the values through the same builder. A claim holding `,`, `)` or `or=(` stays one value: it
 *    never meets the grammar.
 *
 * A claim that is missing, or has a shape its place cannot take, makes the whole policy match nothing (never
 * just drops a filter: under a `not.` a dropped one would widen what the caller sees).
 *
 * Against a JSON arrow path a claim compares as text (`7` is not `"07"` nor `7.0`, a 20-digit id not its
 * neighbours), unless the placeholder says `{claims.<name>|number}`; against a typed column, in the column's type.
 */
import { ApiError, assertNever } from '../core/errors.js';
import {
  buildPredicate,
  opSyntax,
  paramSyntax,
  parseColumnFilter,
  splitList,
  unquote,
  type ColumnResolver,
  type FilterOp,
  type FilterSyntax,
} from '../query/request/filters.js';
import { braceList, inList } from '../query/request/filter-lists.js';
import { isArrayOp } from '../query/request/filter-operators.js';
import type { PredicateNode } from '../query/tree/nodes.js';

/** A policy filter: the grammar's syntax tree, its placeholders checked. */
export type FilterTemplate = FilterSyntax;

type ValueTemplate = { kind: 'text'; text: string } | { kind: 'claim'; name: string; number: boolean };

/**
 * A filter that names claims: its operator, its values (texts and placeholders), its leading `not.`s, and how a
 * JSON arrow path compares with them: as text, unless the placeholders say `|number` (a claim that looks
 * like a number must not turn a tenant id into a double, where `7` equals `"07"` and `7.0`).
 */
interface ClaimFilter {
  nots: number;
  op: FilterOp;
  values: readonly ValueTemplate[];
  pathAs: 'text' | 'number';
}

const PLACEHOLDER = /^\{claims\.([A-Za-z0-9_:-]+(?:\.[A-Za-z0-9_:-]+)*)(\|number)?\}$/;
/** Operators a claim may feed: comparisons and `in`. A claim in a `like` pattern could carry `*` and widen it. */
const CLAIM_OPS: ReadonlySet<FilterOp> = new Set(['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'in']);

/** One value as written: a whole placeholder, or text (quoted text is literal, `"{claims.x}"` those characters). */
function valueTemplate(raw: string, quotedValues: boolean): ValueTemplate {
  const claim = PLACEHOLDER.exec(raw);
  if (claim) return { kind: 'claim', name: claim[1]!, number: claim[2] !== undefined };
  const quoted = quotedValues && raw.startsWith('"') && raw.endsWith('"') && raw.length >= 2;
  if (!quoted && raw.includes('{claims.'))
    throw new Error(`${JSON.stringify(raw)}: a {claims.<name>} placeholder must be the whole value`);
  return { kind: 'text', text: quotedValues ? unquote(raw) : raw };
}

/**
 * The claims a filter names, or null when it names none (it is then read as a request's filter is). Throws an
 * Error naming a placeholder in a place a claim cannot take.
 */
function claimFilter(f: Extract<FilterSyntax, { kind: 'filter' }>): ClaimFilter | null {
  if (!f.expr.includes('{claims.')) return null;
  const s = opSyntax(f.column, f.expr);
  if (s.value === undefined) return null;
  const listed = s.op === 'in' && !s.quant;
  if (listed && (!s.value.startsWith('(') || !s.value.endsWith(')')))
    throw new Error(`${f.column}: in takes a list in parentheses`);
  const values = listed
    ? splitList(s.value.slice(1, -1), f.column).map((item) => valueTemplate(item, true))
    : [valueTemplate(s.value, f.quoted)];
  const claims = values.filter((v) => v.kind === 'claim');
  if (claims.length === 0) return null;
  if (!CLAIM_OPS.has(s.op) || s.quant)
    throw new Error(`a {claims.<name>} value is allowed with eq, neq, gt, gte, lt, lte and in, not ${s.opText}`);
  const numbers = claims.filter((c) => c.number).length;
  if (numbers > 0 && numbers < claims.length)
    throw new Error(`${f.column}: |number on every claim of the filter, or on none`);
  return { nots: s.nots, op: s.op, values, pathAs: numbers > 0 ? 'number' : 'text' };
}

/**
 * What can be checked before the topic's columns are known: each operator, that it has a value of the shape it
 * takes (a list in parentheses or braces), and where the placeholders are.
 */
function checkFilters(t: FilterSyntax): void {
  switch (t.kind) {
    case 'filter': {
      const s = opSyntax(t.column, t.expr);
      if (s.value === undefined) throw new Error(`${t.column}: ${s.opText} needs a value (${s.opText}.<value>)`);
      if (s.quant || isArrayOp(s.op)) braceList(t.column, s.opText, s.value);
      else if (s.op === 'in') inList(t.column, s.opText, s.value);
      claimFilter(t);
      return;
    }
    case 'not':
      checkFilters(t.inner);
      return;
    case 'and':
    case 'or':
      for (const i of t.items) checkFilters(i);
      return;
    default:
      assertNever(t, 'filter syntax');
  }
}

/**
 * Reads a policy filter (`country=in.(DE,FR)`, `tenant=eq.{claims.tenant}&or=(a.eq.1,b.eq.2)`) into a template;
 * the `&`-joined parts are ANDed, each read as a query-string parameter is. Throws an Error naming the defect
 * (reported at start-up).
 */
export function parseRowFilter(text: string): FilterTemplate {
  const parts = splitList(text, 'filter', '&').filter((p) => p !== '');
  if (parts.length === 0) throw new Error('empty filter');
  const items = parts.map((part) => {
    const eq = part.indexOf('=');
    if (eq <= 0) throw new Error(`${JSON.stringify(part)}: expected column=operator.value`);
    return paramSyntax(part.slice(0, eq), part.slice(eq + 1));
  });
  const t: FilterTemplate = items.length === 1 ? items[0]! : { kind: 'and', items };
  checkFilters(t);
  return t;
}

/** The names of the claims a policy filter reads (`{claims.<name>}`), each once. */
export function claimNames(t: FilterTemplate): string[] {
  switch (t.kind) {
    case 'filter':
      return (claimFilter(t)?.values ?? []).flatMap((v) => (v.kind === 'claim' ? [v.name] : []));
    case 'not':
      return claimNames(t.inner);
    case 'and':
    case 'or':
      return [...new Set(t.items.flatMap(claimNames))];
    default:
      return assertNever(t, 'filter syntax');
  }
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

/**
 * A claim value as it is compared. An integer beyond 2^53 was rounded when the token was read (JSON numbers are
 * doubles there), so its digits are not the provider's: it matches nothing. Compared as text (a JSON arrow path
 * without `|number`), a number is its digits, and only an integer has one spelling.
 */
function claimScalar(v: string | number | boolean, asText: boolean): string | number | boolean {
  if (typeof v !== 'number') return asText ? String(v) : v;
  if (Number.isInteger(v) ? !Number.isSafeInteger(v) : asText) throw new Deny();
  return asText ? String(v) : v;
}

function bindValues(t: ClaimFilter, claims: Claims, asText: boolean): unknown[] {
  const out: unknown[] = [];
  for (const v of t.values) {
    if (v.kind === 'text') {
      out.push(v.text);
      continue;
    }
    const c = claimValue(claims, v.name);
    // An array claim fills an `in` list item by item (`tenant=in.({claims.tenants})`).
    if (Array.isArray(c) && t.op === 'in' && c.every(scalar)) out.push(...c.map((x) => claimScalar(x, asText)));
    else if (scalar(c)) out.push(claimScalar(c, asText));
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
    case 'filter': {
      const c = claimFilter(t);
      if (!c) return parseColumnFilter(resolve(t.column), t.expr, t.quoted);
      const column = resolve(t.column);
      const path = column.source.kind === 'json-path';
      const values = bindValues(c, claims, path && c.pathAs === 'text');
      let node: PredicateNode;
      try {
        node = buildPredicate(column, c.op, c.op === 'in' ? values : values[0], path ? c.pathAs : undefined);
      } catch (err) {
        // A claim that is not a value of the column's type (or an empty or huge list) matches nothing.
        if (err instanceof ApiError) throw new Deny();
        throw err;
      }
      for (let i = 0; i < c.nots; i++) node = { kind: 'not', inner: node };
      return node;
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
    case 'filter':
      try {
        const c = claimFilter(t);
        if (!c) parseColumnFilter(resolve(t.column), t.expr, t.quoted);
        const column = c ? resolve(t.column) : null;
        if (column && c?.pathAs === 'number' && column.source.kind !== 'json-path')
          return [`${t.column}: |number applies to JSON arrow paths (value->field); ${column.name} is ${column.type}`];
        return [];
      } catch (err) {
        return [(err as Error).message];
      }
    default:
      return assertNever(t, 'filter template');
  }
}
