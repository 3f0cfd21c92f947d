/**
 * The one refusal of the SQL subset: a 400 TG_BAD_SQL whose message names the construct and where it starts
 * (line and column, 1-based, counted in characters), so a Flight SQL client's INVALID_ARGUMENT points at it.
 */
import { ApiError } from '../../core/errors.js';

/** Where a token starts: its offset in the statement's text. */
export interface SqlPosition {
  offset: number;
}

/** Line and column (1-based) of `offset`: `\r\n`, `\n` and a lone `\r` each end a line; a column counts code points. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  const end = Math.min(offset, text.length);
  for (let i = 0; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || (c === 13 && text.charCodeAt(i + 1) !== 10)) {
      line++;
      start = i + 1;
    }
  }
  let column = 1;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    // The second half of a surrogate pair is the same character.
    if (!(c >= 0xdc00 && c <= 0xdfff && i > start && text.charCodeAt(i - 1) >= 0xd800)) column++;
  }
  return { line, column };
}

/** A number as written, at most 20 digits of it in a message. */
export const shownNumber = (digits: string): string => (digits.length > 20 ? `${digits.slice(0, 20)}...` : digits);

/** Some statement text shown in a message: at most 40 characters, JSON-escaped (control characters visible). */
export function shown(text: string): string {
  const cut = [...text].slice(0, 40).join('');
  return JSON.stringify(cut.length < text.length ? `${cut}...` : cut);
}

/** Throws the statement's refusals: each knows the text, so a message can say the line and column. */
export class SqlRefusals {
  constructor(readonly text: string) {}

  /** `<construct> is not part of topicgate's SQL (line L, column C): <hint>`. */
  notInSubset(construct: string, at: SqlPosition, hint: string): ApiError {
    return this.error(`${construct} is not part of topicgate's SQL`, at, hint, construct);
  }

  /** A malformed statement: `<what> (line L, column C)[: <hint>]`. */
  malformed(what: string, at: SqlPosition, hint?: string): ApiError {
    return this.error(what, at, hint);
  }

  private error(what: string, at: SqlPosition, hint?: string, construct?: string): ApiError {
    const { line, column } = lineColumn(this.text, at.offset);
    const where = `(line ${line}, column ${column})`;
    const message = hint ? `${what} ${where}: ${hint}` : `${what} ${where}`;
    return new ApiError('TG_BAD_SQL', message, { line, column, ...(construct ? { construct } : {}) });
  }
}
