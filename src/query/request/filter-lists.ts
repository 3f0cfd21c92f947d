/**
 * The lists of PostgREST's grammar: comma-separated items outside quotes, parentheses and braces; `in.(a,b)` and
 * PostgreSQL's array literal `{a,b}` (any/all, cs/cd/ov).
 */
import { ApiError } from '../../core/errors.js';
import { scanUnquoted } from './postgrest-scanner.js';

/**
 * The most values one list (in, any/all, cs/cd/ov) may carry whatever the configuration: the ceiling of
 * `limits.maxInValues`, which caps the values of a whole request (query/passes/request-caps.ts, default 1000).
 */
export const MAX_LIST = 100_000;

/**
 * Splits `a,b,"c,d",f(x,y),g.{1,2}` on the commas (or `separator`) outside double quotes, parentheses and braces.
 * Items keep their quotes (unquote() removes them where a value is expected), so quoted text may hold any reserved
 * character.
 */
export function splitList(text: string, what: string, separator = ','): string[] {
  const out: string[] = [];
  let depth = 0;
  let braces = 0;
  let start = 0;
  const unbalanced = () => new ApiError('TG_BAD_REQUEST', `${what}: unbalanced quotes or parentheses`);
  const { balanced } = scanUnquoted(text, (c, i) => {
    if (c === '(') depth++;
    else if (c === ')' && --depth < 0) throw unbalanced();
    else if (c === '{') braces++;
    else if (c === '}' && --braces < 0) throw unbalanced();
    else if (c === separator && depth === 0 && braces === 0) {
      out.push(text.slice(start, i).trim());
      start = i + 1;
    }
    return false;
  });
  if (!balanced || depth !== 0 || braces !== 0) throw unbalanced();
  out.push(text.slice(start).trim());
  return out;
}

/** `"a \\"b\\" c"` -> `a "b" c`; text without surrounding quotes is returned as is. */
export function unquote(item: string): string {
  if (item.length < 2 || !item.startsWith('"') || !item.endsWith('"')) return item;
  return item.slice(1, -1).replace(/\\(.)/gs, '$1');
}

export function listOf(
  column: string,
  op: string,
  value: unknown,
  parse: (column: string, op: string, text: string) => string[],
): unknown[] {
  return Array.isArray(value) ? value : parse(column, op, String(value));
}

export function inList(column: string, _op: string, text: string): string[] {
  if (!text.startsWith('(') || !text.endsWith(')')) {
    throw new ApiError('TG_BAD_VALUE', `${column}: in takes a list in parentheses, like in.(a,b,"c,d")`);
  }
  const inner = text.slice(1, -1);
  return inner.trim() === '' ? [] : splitList(inner, column).map(unquote);
}

/** PostgreSQL's array literal as PostgREST takes it: `{a,b,"c,d"}`; `{}` is empty. */
export function braceList(column: string, op: string, text: string): string[] {
  if (!text.startsWith('{') || !text.endsWith('}')) {
    throw new ApiError('TG_BAD_VALUE', `${column}: ${op} takes a list in braces, like ${op}.{a,b,"c,d"}`);
  }
  const inner = text.slice(1, -1);
  return inner.trim() === '' ? [] : splitList(inner, column).map(unquote);
}
