/** The one quote-aware scanner (postgrest-scanner.ts): separators count only outside double-quoted text. */
import { describe, expect, it } from 'vitest';
import { readQuoted, scanUnquoted } from '../../src/query/request/postgrest-scanner.js';
import { OPERANDS, takesList } from '../../src/query/request/filter-operators.js';

const firstDot = (text: string) => scanUnquoted(text, (c) => c === '.');

describe('scanUnquoted', () => {
  it.each([
    ['a.eq.1', 1, true],
    ['"a.b".eq.1', 5, true],
    ['"a\\".b".eq', 7, true],
    ['"a.b', -1, false],
    ['abc', -1, true],
  ])('%s: first unquoted dot at %i, balanced %s', (text, stop, balanced) => {
    expect(firstDot(text)).toEqual({ stop, balanced });
  });
});

describe('readQuoted', () => {
  it('removes escapes and ends after the closing quote; an unclosed quote is null', () => {
    expect(readQuoted('x"a \\"b\\" c"->y', 1)).toEqual({ value: 'a "b" c', end: 12 });
    expect(readQuoted('"open', 0)).toBeNull();
  });
});

describe('one operator-to-operand table', () => {
  it('lists take in, cs, cd, ov; the rest one value, a pattern or an is word', () => {
    expect(Object.keys(OPERANDS).filter((op) => takesList(op as keyof typeof OPERANDS))).toEqual([
      'in',
      'cs',
      'cd',
      'ov',
    ]);
    expect(OPERANDS.like).toBe('pattern');
    expect(OPERANDS.is).toBe('is-word');
  });
});
