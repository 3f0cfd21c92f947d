/**
 * The SQL subset under attack: the hostile corpus in every place a statement puts text, token soup, and inputs built
 * to exhaust the stack or the time. Whatever the input, parseStatement returns a body the QueryBody schema accepts or
 * throws a 4xx ApiError; a deep or long input is refused by its cap, never by a stack overflow.
 */
import { describe, expect, it } from 'vitest';
import { Value } from 'typebox/value';
import { ApiError } from '../../src/core/errors.js';
import { QueryBody } from '../../src/query/request/read-schema.js';
import { readRequestFromBody } from '../../src/query/request/parse-read-request.js';
import type { ColumnNode } from '../../src/query/tree/nodes.js';
import { resolver } from '../../src/query/request/resolver.js';
import { planReadTree } from '../../src/query/plan-read-tree.js';
import { table, topicOf } from '../cases/columns.js';
import {
  MAX_SQL_LENGTH,
  MAX_WHERE_DEPTH,
  parseStatement,
  type ParsedStatement,
  type StatementLimits,
} from '../../src/query/statement/parse-statement.js';
import { HOSTILE } from '../cases/hostile-corpus.js';

const NOW = Date.parse('2026-11-30T08:00:00.000Z');
const POLICY = { defaultLimit: 100, maxLimit: 1000 };

/** The statement's body, or the ApiError it is refused with; anything else fails the test. */
function outcome(sql: string, limits?: StatementLimits): ParsedStatement | ApiError {
  try {
    const parsed = parseStatement(sql, limits);
    expect(Value.Check(QueryBody, parsed.body)).toBe(true);
    return parsed;
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    expect(err.status).toBeGreaterThanOrEqual(400);
    expect(err.status).toBeLessThan(500);
    return err;
  }
}

const codeOf = (o: ParsedStatement | ApiError) => (o instanceof ApiError ? o.code : 'parsed');
const sqlString = (s: string) => `'${s.replaceAll("'", "''")}'`;
const sqlIdent = (s: string) => `"${s.replaceAll('"', '""')}"`;

const PLACES: [string, (h: string) => string][] = [
  ['the whole statement', (h) => h],
  ['a select item', (h) => `SELECT ${h} FROM orders`],
  ['the topic', (h) => `SELECT * FROM ${h}`],
  ['a value written raw', (h) => `SELECT * FROM orders WHERE status = ${h}`],
  ['a string written raw', (h) => `SELECT * FROM orders WHERE status = '${h}'`],
  ['an identifier written raw', (h) => `SELECT * FROM orders WHERE "${h}" = 1`],
  ['after LIMIT', (h) => `SELECT * FROM orders LIMIT ${h}`],
  ['after a complete statement', (h) => `SELECT * FROM orders ${h}`],
];

describe('the hostile corpus in every place of a statement', () => {
  it.each(PLACES)('%s: a valid body or a 4xx ApiError', (_, place) => {
    for (const h of HOSTILE) outcome(place(h));
  });

  it('a quoted string keeps every character of the text, or refuses NUL and lone surrogates', () => {
    for (const h of HOSTILE) {
      const o = outcome(`SELECT * FROM orders WHERE status = ${sqlString(h)}`);
      if (h.includes('\u0000') || !h.isWellFormed()) expect(codeOf(o)).toBe('TG_BAD_SQL');
      else expect((o as ParsedStatement).body.where).toEqual({ field: 'status', op: 'eq', value: h });
    }
  });

  it('a quoted identifier is the topic name, and the column the planner resolves in select, where, order and group', () => {
    const names = [...HOSTILE, 'a->b', 'a->>b', 'x:y', 'a"b\\c', 'Mixed.Case', 'key'];
    for (const h of names.filter((x) => x.length > 0 && !x.includes('\u0000') && x.isWellFormed())) {
      expect((outcome(`SELECT * FROM ${sqlIdent(h)}`) as ParsedStatement).topic).toEqual({ name: h });
      const topic = topicOf([
        table('key', 'varbinary'),
        table('timestamp_broker', 'timestamp(3)'),
        table(h, 'varchar'),
      ]);
      const id = sqlIdent(h);
      for (const sql of [
        `SELECT ${id} AS x, ${id} FROM t WHERE ${id} IS NULL ORDER BY ${id} DESC`,
        `SELECT ${id}, count(*) AS n FROM t WHERE ${id} = 'v' GROUP BY ${id} ORDER BY ${id}`,
      ]) {
        const { body } = outcome(sql) as ParsedStatement;
        const plan = planReadTree(topic, readRequestFromBody(body, resolver(topic)), POLICY, null, NOW);
        const columns = plan.tree.select.flatMap((o) => (o.kind === 'select-column' ? [o.column.name] : []));
        expect(new Set(columns)).toEqual(new Set([h]));
        const where = plan.tree.where as { items?: { column?: { name: string } }[] };
        expect(where.items?.some((i) => i.column?.name === h)).toBe(true);
      }
    }
  });
});

/** A seeded generator, so a failure is the same failure on the next run. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const SOUP = [
  'SELECT',
  'FROM',
  'WHERE',
  'GROUP',
  'BY',
  'ORDER',
  'LIMIT',
  'AND',
  'OR',
  'NOT',
  'IN',
  'LIKE',
  'IS',
  'NULL',
  'BETWEEN',
  'AS',
  'DISTINCT',
  'count',
  '(',
  ')',
  '*',
  ',',
  '.',
  ';',
  '=',
  '<>',
  '<',
  '>=',
  "'x'",
  '"y"',
  '1',
  '0',
  '9223372036854775808',
  'orders',
  'status',
  'timestamp_broker',
  "date_trunc('hour',",
  "TIMESTAMP '2026-11-01'",
  "X'00'",
  '--',
  '/*',
  '*/',
  'JOIN',
  'HAVING',
  'ESCAPE',
  'DESC',
  'NULLS',
  'FIRST',
  '-',
  '?',
  'topicgate.demo.orders',
];

/** How a soup statement starts: nothing, a SELECT, or a statement that some soup completes. */
const PREFIXES = [
  '',
  'SELECT',
  'SELECT * FROM orders',
  "SELECT * FROM orders WHERE status = 'x'",
  'SELECT status FROM orders WHERE',
];

describe('token soup', () => {
  it('5,000 random statements: each a valid body or a TG_BAD_SQL', () => {
    const rnd = prng(42);
    const codes = new Map<string, number>();
    for (let n = 0; n < 5000; n++) {
      const start = PREFIXES[Math.floor(rnd() * PREFIXES.length)]!;
      const words = Array.from({ length: 1 + Math.floor(rnd() * 14) }, () => SOUP[Math.floor(rnd() * SOUP.length)]!);
      const code = codeOf(outcome([start, ...words].join(rnd() < 0.5 ? ' ' : '\n')));
      codes.set(code, (codes.get(code) ?? 0) + 1);
    }
    expect([...codes.keys()].sort()).toEqual(['TG_BAD_SQL', 'parsed']);
    expect(codes.get('parsed')).toBeGreaterThan(50);
  });
});

describe('deep and long inputs', () => {
  const BIG = { maxLength: 10_000_000 };
  const depthRefusal = /^parentheses, function calls and NOTs nested deeper than 64 levels \(line 1, column \d+\)/;

  it.each([
    ['100,000 nested parentheses', `SELECT * FROM orders WHERE ${'('.repeat(100_000)}a = 1${')'.repeat(100_000)}`],
    ['100,000 NOTs', `SELECT * FROM orders WHERE ${'NOT '.repeat(100_000)}a = 1`],
    ['100,000 nested calls', `SELECT ${'count('.repeat(100_000)}a${')'.repeat(100_000)} FROM orders`],
    ['100,000 unclosed parentheses', `SELECT * FROM orders WHERE ${'('.repeat(100_000)}`],
    ['100,000 parenthesized values', `SELECT * FROM orders WHERE a = ${'('.repeat(100_000)}1${')'.repeat(100_000)}`],
  ])('%s: refused at the cap, no stack overflow', (_, sql) => {
    const o = outcome(sql, BIG);
    expect(o).toBeInstanceOf(ApiError);
    expect((o as ApiError).message).toMatch(depthRefusal);
  });

  it('nesting up to limits.maxDepth is read; one more level is refused', () => {
    const nested = (n: number) => `SELECT * FROM orders WHERE ${'('.repeat(n)}a = 1${')'.repeat(n)}`;
    expect(codeOf(outcome(nested(3), { maxDepth: 3 }))).toBe('parsed');
    expect((outcome(nested(4), { maxDepth: 3 }) as ApiError).message).toMatch(
      /deeper than 3 levels \(line 1, column 31\)/,
    );
  });

  it(`conditions nesting ${MAX_WHERE_DEPTH} levels make a body the body reader takes; one more is refused`, () => {
    const alternate = (levels: number): string => {
      let cond = 'a = 0';
      for (let i = 1; i <= levels; i++) cond = `a = ${i} ${i % 2 ? 'AND' : 'OR'} (${cond})`;
      return `SELECT * FROM orders WHERE ${cond}`;
    };
    const col: ColumnNode = { kind: 'column', name: 'a', type: 'bigint', source: { kind: 'table' } };
    const ok = outcome(alternate(MAX_WHERE_DEPTH)) as ParsedStatement;
    expect(() => readRequestFromBody(ok.body, () => col)).not.toThrow();
    const deeper = outcome(alternate(MAX_WHERE_DEPTH + 1)) as ApiError;
    expect(deeper.message).toBe(
      `the conditions nest deeper than ${MAX_WHERE_DEPTH} levels of AND, OR and NOT (line 1, column 28): write them flatter (IN lists, fewer parentheses)`,
    );
  });

  it('a chain of 50,000 ANDs is refused by its count, a 100,000-value IN list is read', () => {
    const chain = Array.from({ length: 50_000 }, (_, i) => `a = ${i}`).join(' AND ');
    expect((outcome(`SELECT * FROM orders WHERE ${chain}`, BIG) as ApiError).message).toMatch(
      /^50000 conditions in one AND or OR, above 100 \(line 1, column 28\)/,
    );
    const values = Array.from({ length: 100_000 }, (_, i) => String(i)).join(',');
    const o = outcome(`SELECT * FROM orders WHERE a IN (${values})`, BIG) as ParsedStatement;
    expect((o.body.where as { value: string[] }).value).toHaveLength(100_000);
  });

  it(`a statement over ${MAX_SQL_LENGTH} characters is refused before it is read, naming the cap`, () => {
    const sql = `SELECT * FROM orders WHERE a = '${'x'.repeat(MAX_SQL_LENGTH)}'`;
    expect((outcome(sql) as ApiError).message).toBe(
      `the statement has ${sql.length} characters, above the cap of ${MAX_SQL_LENGTH} (line 1, column 1): send a shorter statement`,
    );
  });

  it('200,000 comments and quotes are read in one linear pass', () => {
    const comments = `SELECT * FROM orders ${'--\n'.repeat(100_000)}${'/**/'.repeat(100_000)}`;
    expect(codeOf(outcome(comments, BIG))).toBe('parsed');
    const quotes = `SELECT * FROM orders WHERE a = '${"''".repeat(200_000)}'`;
    expect((outcome(quotes, BIG) as ParsedStatement).body.where).toEqual({
      field: 'a',
      op: 'eq',
      value: "'".repeat(200_000),
    });
  });
});
