/**
 * Text patterns as PostgREST passes them to PostgreSQL, read into what Trino needs:
 * - LIKE: `*`, `%` and `_` are wildcards, and a backslash escapes the next character (PostgreSQL's default LIKE
 *   escape). Trino's LIKE has no default escape and accepts `\` only before `%`, `_` or `\`, so other escaped
 *   characters are written plainly and the ESCAPE clause is added only when an escape remains.
 * - match/imatch: a regular expression, checked here so a malformed one is a 400, not a failed query.
 */
import { ApiError } from '../../core/errors.js';

export function likePattern(column: string, text: string): { pattern: string; escape: boolean } {
  // PostgREST turns every `*` into `%` before PostgreSQL reads the pattern, so `\*` is a literal `%` there too.
  const src = text.replace(/\*/g, '%');
  let pattern = '';
  let escaped = false;
  for (let i = 0; i < src.length; i++) {
    const c = src[i]!;
    if (c !== '\\') {
      pattern += c;
      continue;
    }
    const next = src[++i];
    if (next === undefined) {
      throw new ApiError('TG_BAD_VALUE', `${column}: the pattern ends with the escape character \\`, { column });
    }
    if (next === '%' || next === '_' || next === '\\') {
      pattern += `\\${next}`;
      escaped = true;
    } else pattern += next;
  }
  return { pattern, escape: escaped };
}

/** The most characters a regular expression may have (a longer one is a 400). */
export const MAX_REGEX_LENGTH = 1000;

/**
 * A regular expression for Trino's regexp_like. Only its shape is checked here (groups and classes closed, no
 * dangling escape): a JavaScript parse would refuse what Trino's engine (Joni) accepts, such as `(?i)`, `a++` or
 * `(?>ab)`. The compiler wraps the call in try(), so a construct Joni refuses gives NULL (no row), never a failed
 * query.
 */
export function regexPattern(column: string, text: string): string {
  if (text.length > MAX_REGEX_LENGTH) {
    throw new ApiError('TG_BAD_VALUE', `${column}: the regular expression is longer than ${MAX_REGEX_LENGTH}`, {
      column,
      max: MAX_REGEX_LENGTH,
    });
  }
  if (!balancedRegex(text)) {
    throw new ApiError('TG_BAD_VALUE', `${column}: ${JSON.stringify(text)} is not a regular expression`, { column });
  }
  return text;
}

/** Groups closed, character classes closed, no escape at the very end (`\(` and `[(]` are literal). */
function balancedRegex(text: string): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\\') {
      if (++i >= text.length) return false;
    } else if (c === '[') {
      // A class ends at the first `]` that is not its first character (`[]a]`) or escaped.
      let j = i + 1;
      if (text[j] === '^') j++;
      if (text[j] === ']') j++;
      while (j < text.length && text[j] !== ']') j += text[j] === '\\' ? 2 : 1;
      if (j >= text.length) return false;
      i = j;
    } else if (c === '(') depth++;
    else if (c === ')' && --depth < 0) return false;
  }
  return depth === 0;
}
