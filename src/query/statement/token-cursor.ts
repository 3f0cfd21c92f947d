/**
 * A cursor over a statement's tokens for the parsers (parse-condition.ts, parse-select.ts): look, take, expect, and
 * the one nesting counter. Every descent into parentheses, a function's arguments or a NOT passes through `deeper`,
 * which refuses past the cap before the parser recurses: a statement of any nesting cannot exhaust the stack.
 */
import { shown, type SqlRefusals } from './sql-error.js';
import type { Token } from './sql-lexer.js';
import { REFUSED_WORDS, RESERVED } from './refused-constructs.js';

export class TokenCursor {
  private i = 0;
  private depth = 0;

  constructor(
    private readonly tokens: readonly Token[],
    readonly refuse: SqlRefusals,
    private readonly maxDepth: number,
  ) {}

  peek(ahead = 0): Token {
    return this.tokens[Math.min(this.i + ahead, this.tokens.length - 1)]!;
  }

  next(): Token {
    const t = this.peek();
    if (this.i < this.tokens.length - 1) this.i++;
    return t;
  }

  /** True when the token `ahead` is the word `w` (unquoted, any letter case). */
  isWord(w: string, ahead = 0): boolean {
    const t = this.peek(ahead);
    return t.kind === 'word' && t.value === w;
  }

  isOp(op: string, ahead = 0): boolean {
    const t = this.peek(ahead);
    return t.kind === 'op' && t.value === op;
  }

  /** Takes the word `w` when it is next. */
  takeWord(w: string): boolean {
    if (!this.isWord(w)) return false;
    this.i++;
    return true;
  }

  takeOp(op: string): boolean {
    if (!this.isOp(op)) return false;
    this.i++;
    return true;
  }

  expectWord(w: string, context: string): Token {
    if (!this.isWord(w)) throw this.unexpected(`${w.toUpperCase()} ${context}`);
    return this.next();
  }

  expectOp(op: string, context: string): Token {
    if (!this.isOp(op)) throw this.unexpected(`${JSON.stringify(op)} ${context}`);
    return this.next();
  }

  /** The refusal of the next token: the construct it opens when it is one the subset leaves out, else what was expected. */
  unexpected(expected: string) {
    const t = this.peek();
    const known = t.kind === 'word' ? REFUSED_WORDS[t.value] : undefined;
    if (known) return this.refuse.notInSubset(known.construct, t, known.hint);
    return this.refuse.malformed(`unexpected ${describeToken(t)}`, t, `expected ${expected}`);
  }

  /** Runs `inside` one nesting level deeper: past the cap, a refusal at `at`, before any recursion. */
  deeper<T>(at: Token, inside: () => T): T {
    if (++this.depth > this.maxDepth) {
      throw this.refuse.malformed(
        `parentheses, function calls and NOTs nested deeper than ${this.maxDepth} levels`,
        at,
        'write the condition flatter (the cap is limits.maxDepth)',
      );
    }
    try {
      return inside();
    } finally {
      this.depth--;
    }
  }

  /** True when the next token is an identifier: a quoted one, or a word that is not reserved. */
  isIdentifier(ahead = 0): boolean {
    const t = this.peek(ahead);
    return t.kind === 'quoted' || (t.kind === 'word' && !RESERVED.has(t.value));
  }

  /** An identifier: a word folded to lower case (as Trino folds it), a quoted one as written. */
  identifier(context: string): { name: string; token: Token } {
    if (!this.isIdentifier()) throw this.unexpected(context);
    const token = this.next();
    return { name: token.value, token };
  }
}

/** A token in a message: the end, a keyword or word as written, an operator, a literal's text (shortened). */
export function describeToken(t: Token): string {
  switch (t.kind) {
    case 'eof':
      return 'end of the statement';
    case 'word':
      return RESERVED.has(t.value) ? t.value.toUpperCase() : `word ${JSON.stringify(t.raw)}`;
    case 'op':
      return JSON.stringify(t.value);
    case 'quoted':
      return `identifier ${JSON.stringify(t.value.slice(0, 40))}`;
    case 'string':
      return `string ${JSON.stringify(t.value.slice(0, 40))}`;
    default:
      return `${t.kind} ${shown(t.raw)}`;
  }
}
