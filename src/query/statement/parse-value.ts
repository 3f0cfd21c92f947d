/**
 * Values of the SQL subset: column references (`status`, `value.amount`, `"customer.country"`, `o.status`),
 * literals (strings, numbers, TRUE/FALSE/NULL, `TIMESTAMP '...'`, `DATE '...'`, `X'..'`), function calls (checked by
 * the translation) and `*`. No arithmetic, casts, subscripts or subqueries: each is refused by name.
 */
import type { SqlLiteral, ValueExpr } from './statement-ast.js';
import type { TokenCursor } from './token-cursor.js';
import type { Token } from './sql-lexer.js';
import { REFUSED_WORDS } from './refused-constructs.js';

const ARITHMETIC: Readonly<Record<string, string>> = {
  '+': 'Arithmetic (+)',
  '-': 'Arithmetic (-)',
  '*': 'Arithmetic (*)',
  '/': 'Arithmetic (/)',
  '%': 'Arithmetic (%)',
  '||': 'Concatenation (||)',
  '::': 'A cast (::)',
  '[': 'A subscript ([...])',
  '->': 'A lambda or arrow (->)',
};

/** One value, then a refusal when arithmetic, a cast or a subscript follows it. */
export function parseValue(c: TokenCursor): ValueExpr {
  const value = parsePrimary(c);
  const t = c.peek();
  const what = t.kind === 'op' ? ARITHMETIC[t.value] : undefined;
  if (what) throw c.refuse.notInSubset(what, t, 'compare and select columns as they are');
  return value;
}

function parsePrimary(c: TokenCursor): ValueExpr {
  const t = c.peek();
  if (t.kind === 'number' || t.kind === 'string' || t.kind === 'bytes') {
    c.next();
    return literal(t, t.kind === 'bytes' ? { t: 'bytes', hex: t.value } : { t: t.kind, v: t.value });
  }
  if (t.kind === 'op') return parseOperatorValue(c, t);
  if (t.kind === 'word') {
    const typed = typedLiteral(c, t);
    if (typed) return typed;
    if (c.isOp('(', 1) && !REFUSED_WORDS[t.value]) return parseCall(c);
  }
  if (c.isIdentifier()) return parseColumn(c);
  throw c.unexpected('a column, a literal or an aggregate');
}

function literal(t: Token, lit: SqlLiteral): ValueExpr {
  return { k: 'literal', lit, at: t.offset };
}

/** `-5` and `+5`; `*`; a parenthesized value; `?` and a subquery are refused by name. */
function parseOperatorValue(c: TokenCursor, t: Token): ValueExpr {
  if ((t.value === '-' || t.value === '+') && c.peek(1).kind === 'number') {
    c.next();
    const n = c.next();
    return literal(t, { t: 'number', v: t.value === '-' ? `-${n.value}` : n.value });
  }
  if (t.value === '*') {
    c.next();
    return { k: 'star', qualifier: [], at: t.offset };
  }
  if (t.value === '?') throw c.refuse.notInSubset('A parameter (?)', t, 'write the value into the statement');
  if (t.value === '(') {
    if (c.isWord('select', 1) || c.isWord('with', 1)) {
      throw c.refuse.notInSubset('A subquery', t, 'read one topic per statement');
    }
    return c.deeper(t, () => {
      c.next();
      const inner = parseValue(c);
      c.expectOp(')', 'to close the parenthesis');
      return inner;
    });
  }
  throw c.unexpected('a column, a literal or an aggregate');
}

/** TRUE, FALSE, NULL, `TIMESTAMP '...'`, `DATE '...'`; null when the word is none of these. */
function typedLiteral(c: TokenCursor, t: Token): ValueExpr | null {
  if (t.value === 'true' || t.value === 'false') {
    c.next();
    return literal(t, { t: 'boolean', v: t.value === 'true' });
  }
  if (t.value === 'null') {
    c.next();
    return literal(t, { t: 'null' });
  }
  if (NOW_WORDS.has(t.value) || (t.value === 'now' && c.isOp('(', 1) && c.isOp(')', 2))) return relativeTime(c, t);
  const s = c.peek(1);
  if ((t.value === 'timestamp' || t.value === 'date') && s.kind === 'string') {
    c.next();
    c.next();
    return literal(t, t.value === 'date' ? { t: 'date', v: s.value } : { t: 'timestamp', v: s.value });
  }
  return null;
}

const NOW_WORDS = new Set(['current_timestamp', 'localtimestamp']);
/** Trino's interval units the body's durations have (core/duration.ts). */
const INTERVAL_UNITS: Readonly<Record<string, string>> = { second: 's', minute: 'm', hour: 'h', day: 'd' };

/**
 * `now()`, `current_timestamp`, `localtimestamp`, optionally `- INTERVAL 'n' SECOND|MINUTE|HOUR|DAY`: a time relative
 * to the request, as the body writes one (`now`, `-15m`), read when the request is planned.
 */
function relativeTime(c: TokenCursor, t: Token): ValueExpr {
  c.next();
  if (t.value === 'now') {
    c.next();
    c.next();
  }
  if (c.isOp('+') && c.isWord('interval', 1)) {
    throw c.refuse.notInSubset(
      'A time after now (+ INTERVAL)',
      c.peek(),
      'subtract the interval: now() - INTERVAL ...',
    );
  }
  if (!(c.isOp('-') && c.isWord('interval', 1))) return literal(t, { t: 'relative', v: 'now' });
  c.next();
  const interval = c.next();
  const n = c.peek();
  const unit = c.peek(1);
  const code = unit.kind === 'word' ? INTERVAL_UNITS[unit.value] : undefined;
  if (n.kind !== 'string' || !/^\d{1,9}$/.test(n.value.trim()) || !code) {
    throw c.refuse.malformed(
      "an interval before now must be written INTERVAL '<n>' SECOND|MINUTE|HOUR|DAY",
      interval,
      "e.g. now() - INTERVAL '15' MINUTE",
    );
  }
  c.next();
  c.next();
  return literal(t, { t: 'relative', v: `-${Number(n.value.trim())}${code}` });
}

/** `name(...)`, `name(*)`, `name(DISTINCT x)`; OVER, FILTER and WITHIN GROUP after it are refused by name. */
function parseCall(c: TokenCursor): ValueExpr {
  const name = c.next();
  const open = c.peek();
  return c.deeper(open, () => {
    c.next();
    const distinct = c.takeWord('distinct');
    if (!distinct) c.takeWord('all');
    const args: ValueExpr[] = [];
    let star = false;
    if (c.isOp('*') && c.isOp(')', 1)) {
      c.next();
      star = true;
    } else if (!c.isOp(')')) {
      do args.push(parseValue(c));
      while (c.takeOp(','));
    }
    c.expectOp(')', `to close the arguments of ${name.value}`);
    for (const w of ['over', 'filter', 'within']) {
      const known = REFUSED_WORDS[w];
      if (c.isWord(w) && known) throw c.refuse.notInSubset(known.construct, c.peek(), known.hint);
    }
    return { k: 'call', name: name.value, args, distinct, star, at: name.offset };
  });
}

/** `a`, `a.b.c`, `"a.b"`, `t.*`: identifiers joined by dots (a trailing `.*` is a qualified star). */
function parseColumn(c: TokenCursor): ValueExpr {
  const first = c.identifier('a column');
  const parts = [first.name];
  while (c.isOp('.')) {
    c.next();
    if (c.isOp('*')) {
      c.next();
      return { k: 'star', qualifier: parts, at: first.token.offset };
    }
    parts.push(c.identifier('a name after "."').name);
  }
  return { k: 'column', parts, at: first.token.offset };
}
