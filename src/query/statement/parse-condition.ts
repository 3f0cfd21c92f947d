/**
 * WHERE conditions of the SQL subset: OR over AND over NOT over predicates (`= <> != < <= > >=`, `IS [NOT] NULL|TRUE|
 * FALSE|UNKNOWN`, `IS [NOT] DISTINCT FROM`, `[NOT] IN (...)`, `[NOT] LIKE|ILIKE ... [ESCAPE ...]`, `[NOT] BETWEEN`),
 * parentheses. AND and OR chains are loops; parentheses and NOTs descend through the cursor's nesting counter.
 */
import type { CompareSqlOp, Condition, ValueExpr } from './statement-ast.js';
import type { TokenCursor } from './token-cursor.js';
import { parseValue } from './parse-value.js';

const COMPARE: Readonly<Record<string, CompareSqlOp>> = {
  '=': '=',
  '<>': '<>',
  '!=': '<>',
  '<': '<',
  '<=': '<=',
  '>': '>',
  '>=': '>=',
};

/** A whole condition: `a OR b OR ...`. */
export function parseCondition(c: TokenCursor): Condition {
  return chain(c, 'or', () => chain(c, 'and', () => parseNot(c)));
}

function chain(c: TokenCursor, word: 'and' | 'or', item: () => Condition): Condition {
  const first = item();
  const items = [first];
  while (c.takeWord(word)) items.push(item());
  return items.length === 1 ? first : { k: word, items, at: first.at };
}

/** `NOT NOT p`: each NOT is one level of nesting. */
function parseNot(c: TokenCursor): Condition {
  const t = c.peek();
  if (!c.isWord('not')) return parsePredicate(c);
  return c.deeper(t, () => {
    c.next();
    return { k: 'not', inner: parseNot(c), at: t.offset };
  });
}

function parsePredicate(c: TokenCursor): Condition {
  const t = c.peek();
  if (c.isOp('(') && !c.isWord('select', 1) && !c.isWord('with', 1)) {
    const inner = c.deeper(t, () => {
      c.next();
      const cond = parseCondition(c);
      c.expectOp(')', 'to close the parenthesis');
      return cond;
    });
    // `(a) = 1`: a parenthesized value on the left of a predicate.
    return inner.k === 'value' ? predicateTail(c, inner.value) : inner;
  }
  return predicateTail(c, parseValue(c));
}

/** What follows a value: a comparison, IS, IN, LIKE, BETWEEN (each possibly after NOT), or nothing (a boolean). */
function predicateTail(c: TokenCursor, value: ValueExpr): Condition {
  const t = c.peek();
  const op = t.kind === 'op' ? COMPARE[t.value] : undefined;
  if (op) {
    c.next();
    for (const w of ['any', 'some', 'all']) {
      if (c.isWord(w)) {
        throw c.refuse.notInSubset(`A quantified comparison (${w.toUpperCase()})`, c.peek(), 'use IN (...)');
      }
    }
    return { k: 'compare', op, left: value, right: parseValue(c), at: value.at };
  }
  if (c.isWord('is')) return parseIs(c, value);
  const negated = c.isWord('not') && ['in', 'like', 'ilike', 'between'].some((w) => c.isWord(w, 1));
  if (negated) c.next();
  const cond = parseListOrPattern(c, value);
  if (!cond) return { k: 'value', value, at: value.at };
  return negated ? { k: 'not', inner: cond, at: value.at } : cond;
}

function parseListOrPattern(c: TokenCursor, value: ValueExpr): Condition | null {
  const at = value.at;
  if (c.takeWord('in')) {
    const open = c.expectOp('(', 'after IN');
    if (c.isWord('select') || c.isWord('with')) {
      throw c.refuse.notInSubset('A subquery', open, 'list the values: IN (a, b, c)');
    }
    const list: ValueExpr[] = [];
    c.deeper(open, () => {
      do list.push(parseValue(c));
      while (c.takeOp(','));
      c.expectOp(')', 'to close the IN list');
    });
    return { k: 'in', value, list, at };
  }
  if (c.isWord('like') || c.isWord('ilike')) {
    const ci = c.next().value === 'ilike';
    const pattern = parseValue(c);
    const escapeChar = c.takeWord('escape') ? parseValue(c) : null;
    return { k: 'like', value, pattern, escape: escapeChar, ci, at };
  }
  if (c.takeWord('between')) {
    for (const w of ['symmetric', 'asymmetric']) {
      if (c.isWord(w)) throw c.refuse.notInSubset(`BETWEEN ${w.toUpperCase()}`, c.peek(), 'write BETWEEN low AND high');
    }
    const lo = parseValue(c);
    c.expectWord('and', 'between the bounds of BETWEEN');
    return { k: 'between', value, lo, hi: parseValue(c), at };
  }
  return null;
}

/** `IS [NOT] NULL|TRUE|FALSE|UNKNOWN`, `IS [NOT] DISTINCT FROM v`. */
function parseIs(c: TokenCursor, value: ValueExpr): Condition {
  c.next();
  const negated = c.takeWord('not');
  const at = value.at;
  let cond: Condition;
  if (c.takeWord('distinct')) {
    c.expectWord('from', 'after IS DISTINCT');
    cond = { k: 'compare', op: 'distinct', left: value, right: parseValue(c), at };
  } else {
    const what = (['null', 'true', 'false', 'unknown'] as const).find((w) => c.isWord(w));
    if (!what) throw c.unexpected('NULL, TRUE, FALSE, UNKNOWN or DISTINCT FROM after IS');
    c.next();
    cond = { k: 'is', value, what, at };
  }
  return negated ? { k: 'not', inner: cond, at } : cond;
}
