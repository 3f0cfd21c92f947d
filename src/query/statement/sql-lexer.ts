/**
 * The tokens of topicgate's SQL subset, as Trino's lexer reads them: unquoted words (identifiers and keywords,
 * ASCII letters, digits and `_`, any letter case), double-quoted identifiers (`""` is a quote), strings in single
 * quotes (`''` is a quote), numbers (integers kept as written, so digits beyond 2^53 stay exact; decimals; `1e3`),
 * `X'0aff'` bytes, operators and punctuation; `--` and `/* ... *\/` comments are skipped. One pass, no recursion:
 * a text of any shape costs time linear in its length, and the length is capped before the pass.
 */
import type { SqlRefusals } from './sql-error.js';

export type TokenKind = 'word' | 'quoted' | 'string' | 'number' | 'bytes' | 'op' | 'eof';

export interface Token {
  kind: TokenKind;
  /** A word in lower case; a quoted identifier or a string without its quotes; bytes as hex; an operator. */
  value: string;
  /** The text as written (messages show it). */
  raw: string;
  offset: number;
}

/** Operators and punctuation, longest first so `<=` is read before `<`. */
const OPERATORS = ['<>', '!=', '<=', '>=', '||', '->', '=>', '::', '=', '<', '>', '(', ')', ',', '.', ';', '*'];
const MORE_OPERATORS = ['+', '-', '/', '%', '?', '[', ']', '{', '}', ':', '|', '&', '^', '~', '@', '$', '#', '!'];
const WORD_START = /[A-Za-z_]/;
const WORD = /[A-Za-z0-9_]*/y;
const NUMBER = /(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/y;
const HEX_BODY = /[0-9A-Fa-f\s]*/y;
const LINE_END = /[\r\n]/g;

/** The tokens of `text`, ending with one `eof` token; a character outside the grammar is a TG_BAD_SQL naming it. */
export function tokenize(text: string, refuse: SqlRefusals): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f') {
      i++;
    } else if (text.startsWith('--', i)) {
      LINE_END.lastIndex = i;
      i = LINE_END.exec(text) ? LINE_END.lastIndex - 1 : text.length;
    } else if (text.startsWith('/*', i)) {
      const end = text.indexOf('*/', i + 2);
      if (end < 0) throw refuse.malformed('a /* comment that is never closed', { offset: i });
      i = end + 2;
    } else {
      const token = readToken(text, i, refuse);
      tokens.push(token);
      i = token.offset + token.raw.length;
    }
  }
  tokens.push({ kind: 'eof', value: '', raw: '', offset: text.length });
  return tokens;
}

function readToken(text: string, i: number, refuse: SqlRefusals): Token {
  const c = text[i]!;
  const next = text[i + 1];
  if ((c === 'X' || c === 'x') && next === "'") return readBytes(text, i, refuse);
  if ((c === 'U' || c === 'u') && next === '&' && text[i + 2] === "'") {
    throw refuse.notInSubset("A U&'...' Unicode string", { offset: i }, "write the characters themselves in '...'");
  }
  if (WORD_START.test(c)) {
    WORD.lastIndex = i;
    const raw = WORD.exec(text)![0];
    return { kind: 'word', value: raw.toLowerCase(), raw, offset: i };
  }
  if (c === '"') return readQuoted(text, i, '"', 'quoted', refuse);
  if (c === "'") return readQuoted(text, i, "'", 'string', refuse);
  if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(next ?? ''))) return readNumber(text, i, refuse);
  const op = OPERATORS.find((o) => text.startsWith(o, i)) ?? MORE_OPERATORS.find((o) => o === c);
  if (op) return { kind: 'op', value: op, raw: op, offset: i };
  throw refuse.malformed(`the character ${describeChar(text, i)} is not part of topicgate's SQL`, { offset: i });
}

/** A character in a message: itself when printable, else its code point (NUL, controls, lone surrogates). */
function describeChar(text: string, i: number): string {
  const cp = text.codePointAt(i)!;
  const printable =
    cp > 0x20 && cp !== 0x7f && !(cp >= 0xd800 && cp <= 0xdfff) && !/\p{C}/u.test(String.fromCodePoint(cp));
  const hex = `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
  return printable ? `${JSON.stringify(String.fromCodePoint(cp))} (${hex})` : hex;
}

/** `'...'` (a string, `''` inside) or `"..."` (an identifier, `""` inside). */
function readQuoted(text: string, start: number, q: string, kind: 'quoted' | 'string', refuse: SqlRefusals): Token {
  let value = '';
  let i = start + 1;
  for (;;) {
    const end = text.indexOf(q, i);
    if (end < 0) {
      const what =
        kind === 'string' ? "a string (') that is never closed" : 'a quoted identifier (") that is never closed';
      throw refuse.malformed(what, { offset: start });
    }
    value += text.slice(i, end);
    if (text[end + 1] !== q) {
      i = end + 1;
      break;
    }
    value += q;
    i = end + 2;
  }
  checkText(value, start, refuse);
  if (kind === 'quoted' && value === '') throw refuse.malformed('an empty quoted identifier ""', { offset: start });
  return { kind, value, raw: text.slice(start, i), offset: start };
}

/** SQL text carries no NUL, and a lone UTF-16 surrogate is not text at all: refused where the token starts. */
function checkText(value: string, start: number, refuse: SqlRefusals): void {
  if (value.includes('\u0000')) throw refuse.malformed('a NUL character (U+0000) inside quotes', { offset: start });
  if (!value.isWellFormed()) throw refuse.malformed('an unpaired UTF-16 surrogate inside quotes', { offset: start });
}

function readNumber(text: string, i: number, refuse: SqlRefusals): Token {
  NUMBER.lastIndex = i;
  const raw = NUMBER.exec(text)![0];
  const after = text[i + raw.length];
  if (after !== undefined && /[A-Za-z0-9_.]/.test(after)) {
    const word = /^[A-Za-z0-9_.]*/.exec(text.slice(i))![0];
    throw refuse.malformed(`the number ${JSON.stringify(word)} is malformed`, { offset: i });
  }
  return { kind: 'number', value: raw, raw, offset: i };
}

/** `X'0A ff'`: hex digits in pairs (spaces between them allowed, as Trino's). */
function readBytes(text: string, i: number, refuse: SqlRefusals): Token {
  HEX_BODY.lastIndex = i + 2;
  const body = HEX_BODY.exec(text)![0];
  const end = i + 2 + body.length;
  const hex = body.replace(/\s/g, '');
  if (text[end] !== "'" || hex.length % 2 !== 0) {
    throw refuse.malformed("X'...' bytes must be pairs of hex digits, closed by '", { offset: i });
  }
  return { kind: 'bytes', value: hex.toLowerCase(), raw: text.slice(i, end + 1), offset: i };
}
