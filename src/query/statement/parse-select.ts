/**
 * One SELECT statement of the subset: `SELECT [DISTINCT] items FROM [[catalog.]schema.]topic [[AS] alias]
 * [WHERE ...] [GROUP BY ...] [ORDER BY ...] [LIMIT n|ALL] [;]`. Any other statement, clause or a second statement is
 * refused, naming it.
 */
import type { FromTable, OrderItem, SelectItem, SelectStatement, ValueExpr } from './statement-ast.js';
import type { TokenCursor } from './token-cursor.js';
import { shownNumber } from './sql-error.js';
import { parseCondition } from './parse-condition.js';
import { parseValue } from './parse-value.js';
import { STATEMENT_WORDS } from './refused-constructs.js';

/** The statement the tokens hold, which must be one SELECT. */
export function parseSelect(c: TokenCursor): SelectStatement {
  const first = c.peek();
  const other = first.kind === 'word' ? STATEMENT_WORDS[first.value] : undefined;
  if (other) throw c.refuse.notInSubset(other.construct, first, other.hint);
  if (c.isOp('(')) throw c.refuse.notInSubset('A parenthesized query', first, 'send one SELECT');
  c.expectWord('select', 'at the start: topicgate takes one SELECT statement');
  const distinct = c.takeWord('distinct');
  if (!distinct) c.takeWord('all');
  const select = list(c, () => selectItem(c));
  if (c.peek().kind === 'eof' || c.isOp(';')) {
    throw c.refuse.notInSubset('SELECT without FROM', first, 'select from a topic: SELECT ... FROM <topic>');
  }
  c.expectWord('from', 'after the select list');
  const from = fromTable(c);
  const where = c.takeWord('where') ? parseCondition(c) : null;
  const groupBy = clause(c, 'group', () => parseValue(c));
  const order = clause(c, 'order', () => orderItem(c));
  const limit = limitClause(c);
  const ended = c.takeOp(';');
  if (c.peek().kind !== 'eof') {
    if (ended) {
      throw c.refuse.notInSubset('A second statement', c.peek(), 'send one statement at a time');
    }
    throw c.unexpected('WHERE, GROUP BY, ORDER BY, LIMIT or the end of the statement');
  }
  return { distinct, select, from, where, groupBy, order, limit };
}

/** `GROUP BY items` / `ORDER BY items`, or none. */
function clause<T>(c: TokenCursor, word: 'group' | 'order', item: () => T): T[] {
  if (!c.takeWord(word)) return [];
  c.expectWord('by', `after ${word.toUpperCase()}`);
  return list(c, item);
}

function list<T>(c: TokenCursor, item: () => T): T[] {
  const out = [item()];
  while (c.takeOp(',')) out.push(item());
  return out;
}

/** An alias: after AS, or a bare identifier right after the item (as Trino reads `SELECT a b`). */
function alias(c: TokenCursor): string | null {
  if (c.takeWord('as')) return c.identifier('a name after AS').name;
  return c.isIdentifier() ? c.identifier('an alias').name : null;
}

function selectItem(c: TokenCursor): SelectItem {
  const at = c.peek().offset;
  const expr = parseValue(c);
  return { expr, alias: expr.k === 'star' ? null : alias(c), at };
}

/** `topic`, `schema.topic`, `catalog.schema.topic`; a subquery, a second table or a JOIN is refused by name. */
function fromTable(c: TokenCursor): FromTable {
  const t = c.peek();
  if (c.isOp('(')) throw c.refuse.notInSubset('A subquery in FROM', t, 'read one topic per statement');
  const parts = [c.identifier('a topic after FROM').name];
  while (c.takeOp('.')) parts.push(c.identifier('a name after "."').name);
  if (parts.length > 3) {
    throw c.refuse.malformed(
      `the table name has ${parts.length} parts`,
      t,
      'write topic, schema.topic or topicgate.schema.topic',
    );
  }
  const [name, schema = null, catalog = null] = parts.reverse() as [string, string?, string?];
  const table: FromTable = { catalog, schema, name, alias: alias(c), at: t.offset };
  if (c.isOp(','))
    throw c.refuse.notInSubset('A second table in FROM (a join)', c.peek(), 'read one topic per statement');
  return table;
}

function orderItem(c: TokenCursor): OrderItem {
  const at = c.peek().offset;
  const expr: ValueExpr = parseValue(c);
  const dir = c.takeWord('asc') ? 'asc' : c.takeWord('desc') ? 'desc' : null;
  let nulls: OrderItem['nulls'] = null;
  if (c.takeWord('nulls')) {
    if (c.isWord('first') || c.isWord('last')) nulls = c.next().value as 'first' | 'last';
    else throw c.unexpected('FIRST or LAST after NULLS');
  }
  return { expr, dir, nulls, at };
}

/** `LIMIT n` (a whole number) or `LIMIT ALL` (no limit). */
function limitClause(c: TokenCursor): SelectStatement['limit'] {
  if (!c.takeWord('limit')) return null;
  if (c.takeWord('all')) return null;
  const t = c.peek();
  if (t.kind !== 'number' || !/^\d+$/.test(t.value)) throw c.unexpected('a whole number or ALL after LIMIT');
  // Digits past a safe integer are refused before they are read as one (a long number reads in quadratic time).
  if (t.value.replace(/^0+(?=\d)/, '').length > 16) {
    throw c.refuse.malformed(`LIMIT ${shownNumber(t.value)} is above ${Number.MAX_SAFE_INTEGER}`, t);
  }
  c.next();
  return { n: BigInt(t.value), at: t.offset };
}
