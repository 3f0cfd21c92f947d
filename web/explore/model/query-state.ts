/**
 * What the builder holds (window, filters, select) and what it becomes: the GET events URL in PostgREST grammar,
 * the POST body's `where` for the aggregations, a curl command, and the page's own URL (the same parameters, so a
 * page can be shared and reloaded).
 */
import type { TimeWindow } from './time-window.js';

export const OPERATORS = ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'like', 'ilike', 'match', 'in', 'is'] as const;
export type Operator = (typeof OPERATORS)[number];

export interface Filter {
  field: string;
  op: Operator;
  /** As typed: one value; `in` takes a comma-separated list; `is` null, not_null, true, false or unknown. */
  value: string;
  negate: boolean;
}

export interface QueryState {
  /** Absent for a table without broker time, where since and until do not apply. */
  window?: TimeWindow;
  filters: Filter[];
  /** Columns, `alias:path` items; empty: every column. */
  select: string[];
}

const FILTER_TEXT = /^(not\.)?([a-z]+)\.(.*)$/s;
const RESERVED = new Set(['since', 'until', 'select', 'limit', 'format', 'explain', 'order', 'cursor', 'follow']);

/** Splits `a, b, "c,d"` on commas outside double quotes; quotes removed, items trimmed. */
export function splitList(text: string): string[] {
  const items: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\\' && quoted && i + 1 < text.length) cur += text[++i];
    else if (c === '"') quoted = !quoted;
    else if (c === ',' && !quoted) {
      items.push(cur.trim());
      cur = '';
    } else cur += c;
  }
  items.push(cur.trim());
  return items.filter((s) => s !== '');
}

/** An item of a PostgREST list, quoted when it holds a reserved character (`in.(a,"b,c")`). */
export function listItem(item: string): string {
  return /[,()"\\{}\s]/.test(item) || item === '' ? `"${item.replace(/["\\]/g, '\\$&')}"` : item;
}

/** The filter's parameter value: `[not.]op.value`. */
export function filterParam(f: Filter): string {
  const value = f.op === 'in' ? `(${splitList(f.value).map(listItem).join(',')})` : f.value;
  return `${f.negate ? 'not.' : ''}${f.op}.${value}`;
}

/** The request's select and filters. */
export function shapeParams(s: Pick<QueryState, 'filters' | 'select'>): [string, string][] {
  const out: [string, string][] = [];
  if (s.select.length) out.push(['select', s.select.join(',')]);
  for (const f of s.filters) if (f.field) out.push([f.field, filterParam(f)]);
  return out;
}

/** The request's parameters in order: select, filters, window (then what the caller adds). */
export function queryParams(s: QueryState): [string, string][] {
  const w = s.window;
  return w ? [...shapeParams(s), ['since', w.since], ['until', w.until]] : shapeParams(s);
}

/** Following the topic from now on (API.md "Following a topic"), with the same select and filters. */
export function followPath(topic: string, s: QueryState): string {
  const params: [string, string][] = [...shapeParams(s), ['since', 'now'], ['follow', 'true']];
  return `/v1/topics/${encodeURIComponent(topic)}/events?${queryString(params)}`;
}

/** Percent-encoding that keeps the grammar readable: `,`, `:`, `>` and `()` stay as they are. */
function encode(text: string): string {
  return encodeURIComponent(text).replace(/%2C/g, ',').replace(/%3A/g, ':').replace(/%3E/g, '>');
}

export function queryString(params: readonly [string, string][]): string {
  return params.map(([k, v]) => `${encode(k)}=${encode(v)}`).join('&');
}

export function eventsPath(topic: string, s: QueryState, extra: [string, string][] = []): string {
  return `/v1/topics/${encodeURIComponent(topic)}/events?${queryString([...queryParams(s), ...extra])}`;
}

/** The POST body's `where` for the same filters (aggregations), or undefined when there are none. */
export function whereOf(filters: readonly Filter[]): unknown {
  const leaves = filters
    .filter((f) => f.field)
    .map((f) => {
      const leaf = { field: f.field, op: f.op, value: f.op === 'in' ? splitList(f.value) : f.value };
      return f.negate ? { not: leaf } : leaf;
    });
  return leaves.length === 0 ? undefined : leaves.length === 1 ? leaves[0] : { and: leaves };
}

/** A shell word in single quotes. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** The curl command for a URL: the credential as a variable, never its value. */
export function curlFor(absoluteUrl: string, withCredential: boolean): string {
  const auth = withCredential ? ` -H "Authorization: Bearer $TOPICGATE_TOKEN"` : '';
  return `curl${auth} ${shellQuote(absoluteUrl)}`;
}

/** Reads the page's own query string back into a state (unknown operators are dropped). */
export function stateFromSearch(search: string, fallback: TimeWindow): QueryState {
  const p = new URLSearchParams(search);
  const filters: Filter[] = [];
  for (const [k, v] of p) {
    if (RESERVED.has(k)) continue;
    const m = FILTER_TEXT.exec(v);
    const op = m?.[2] as Operator | undefined;
    if (!m || !op || !(OPERATORS as readonly string[]).includes(op)) continue;
    const raw = m[3]!;
    const value =
      op === 'in'
        ? splitList(raw.replace(/^\(|\)$/g, ''))
            .map(listItem)
            .join(',')
        : raw;
    filters.push({ field: k, op, value, negate: m[1] !== undefined });
  }
  const select = p.get('select');
  return {
    window: { since: p.get('since') ?? fallback.since, until: p.get('until') ?? fallback.until },
    filters,
    select: select ? splitList(select) : [],
  };
}
