/**
 * What the SQL subset refuses: each construct outside it is a TG_BAD_SQL whose message names the construct and its
 * line and column; malformed text is named where it starts. The exact messages are the contract a Flight SQL
 * client reads in its INVALID_ARGUMENT.
 */
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/core/errors.js';
import { parseStatement } from '../../src/query/statement/parse-statement.js';

function refusal(sql: string): string {
  try {
    parseStatement(sql);
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe('TG_BAD_SQL');
    expect((err as ApiError).status).toBe(400);
    return (err as ApiError).message;
  }
  throw new Error(`parsed: ${sql}`);
}

const NOT_IN = "is not part of topicgate's SQL";

const REFUSED: [string, string][] = [
  [
    'SELECT * FROM orders JOIN customers ON orders.id = customers.id',
    `JOIN ${NOT_IN} (line 1, column 22): read one topic per statement`,
  ],
  ['SELECT * FROM orders o LEFT JOIN c ON 1=1', `JOIN ${NOT_IN} (line 1, column 24): read one topic per statement`],
  [
    'SELECT * FROM orders, customers',
    `A second table in FROM (a join) ${NOT_IN} (line 1, column 21): read one topic per statement`,
  ],
  [
    'SELECT * FROM (SELECT * FROM orders)',
    `A subquery in FROM ${NOT_IN} (line 1, column 15): read one topic per statement`,
  ],
  [
    'SELECT * FROM orders WHERE id IN (SELECT id FROM x)',
    `A subquery ${NOT_IN} (line 1, column 34): list the values: IN (a, b, c)`,
  ],
  [
    'SELECT * FROM orders WHERE id = (SELECT 1)',
    `A subquery ${NOT_IN} (line 1, column 33): read one topic per statement`,
  ],
  [
    'SELECT * FROM orders WHERE EXISTS (SELECT 1)',
    `EXISTS (a subquery) ${NOT_IN} (line 1, column 28): read one topic per statement`,
  ],
  [
    'SELECT key FROM orders UNION SELECT key FROM x',
    `UNION (a set operation) ${NOT_IN} (line 1, column 24): read one topic per statement`,
  ],
  [
    'WITH x AS (SELECT 1) SELECT * FROM x',
    `WITH (a common table expression) ${NOT_IN} (line 1, column 1): read one topic per statement`,
  ],
  [
    'SELECT count(*) OVER (PARTITION BY key) FROM orders',
    `OVER (a window function) ${NOT_IN} (line 1, column 17): aggregate with GROUP BY`,
  ],
  [
    'SELECT row_number() FROM orders',
    `The function row_number() ${NOT_IN} (line 1, column 8): the functions are count, sum, avg, min, max, approx_distinct, latest, earliest, approx_percentile, max_by, min_by, date_trunc, bucket`,
  ],
  [
    "INSERT INTO orders VALUES ('x')",
    `INSERT (a statement other than SELECT) ${NOT_IN} (line 1, column 1): topicgate reads topics; nothing is written through it`,
  ],
  [
    'create table x (a int)',
    `CREATE (a statement other than SELECT) ${NOT_IN} (line 1, column 1): topicgate reads topics; nothing is written through it`,
  ],
  [
    'DROP TABLE orders',
    `DROP (a statement other than SELECT) ${NOT_IN} (line 1, column 1): topicgate reads topics; nothing is written through it`,
  ],
  [
    'SHOW TABLES',
    `SHOW (a statement other than SELECT) ${NOT_IN} (line 1, column 1): use the Flight SQL metadata calls (GetTables, GetDbSchemas) or GET /v1/topics`,
  ],
  [
    'SELECT key, count(*) FROM orders GROUP BY key HAVING count(*) > 1',
    `HAVING ${NOT_IN} (line 1, column 47): filter rows with WHERE; groups cannot be filtered`,
  ],
  [
    'SELECT * FROM orders; DROP TABLE orders',
    `A second statement ${NOT_IN} (line 1, column 23): send one statement at a time`,
  ],
  ['SELECT * FROM orders; SELECT 1', `A second statement ${NOT_IN} (line 1, column 23): send one statement at a time`],
  [
    'SELECT * FROM orders OFFSET 10',
    `OFFSET ${NOT_IN} (line 1, column 22): narrow the window on timestamp_broker in WHERE instead`,
  ],
  [
    'SELECT CASE WHEN a THEN 1 END FROM orders',
    `CASE ${NOT_IN} (line 1, column 8): select columns and aggregates as they are`,
  ],
  [
    'SELECT CAST(id AS varchar) FROM orders',
    `CAST ${NOT_IN} (line 1, column 8): compare the column with a literal of its own type`,
  ],
  [
    'SELECT id::varchar FROM orders',
    `A cast (::) ${NOT_IN} (line 1, column 10): compare and select columns as they are`,
  ],
  [
    'SELECT * FROM orders WHERE id = 1 + 1',
    `Arithmetic (+) ${NOT_IN} (line 1, column 35): compare and select columns as they are`,
  ],
  [
    "SELECT * FROM orders WHERE a = 'x' || 'y'",
    `Concatenation (||) ${NOT_IN} (line 1, column 36): compare and select columns as they are`,
  ],
  [
    'SELECT * FROM orders WHERE id = ?',
    `A parameter (?) ${NOT_IN} (line 1, column 33): write the value into the statement`,
  ],
  ['SELECT 1', `SELECT without FROM ${NOT_IN} (line 1, column 1): select from a topic: SELECT ... FROM <topic>`],
  [
    'SELECT id FROM orders WHERE id = ANY (1)',
    `A quantified comparison (ANY) ${NOT_IN} (line 1, column 34): use IN (...)`,
  ],
  [
    'SELECT * FROM orders WHERE a = b',
    `A comparison of two columns ${NOT_IN} (line 1, column 28): compare a column with a literal`,
  ],
  [
    "SELECT * FROM orders WHERE lower(status) = 'x'",
    `The function lower() in WHERE ${NOT_IN} (line 1, column 28): filter on columns`,
  ],
  [
    "SELECT * FROM orders WHERE a LIKE 'x*y'",
    `A literal * in a LIKE pattern ${NOT_IN} (line 1, column 35): match it with _ (any one character)`,
  ],
  [
    "SELECT date_trunc('week', timestamp_broker), count(*) FROM orders GROUP BY 1",
    `date_trunc('week', timestamp_broker) ${NOT_IN} (line 1, column 19): buckets are epoch-aligned: millisecond, second, minute, hour, day; or bucket('<n>m|h|d', timestamp_broker)`,
  ],
  [
    "SELECT date_trunc('hour', ts), count(*) FROM orders GROUP BY 1",
    `A time bucket of "ts" ${NOT_IN} (line 1, column 27): buckets are of timestamp_broker`,
  ],
  [
    'SELECT sum(DISTINCT x) FROM orders',
    `sum(DISTINCT ...) ${NOT_IN} (line 1, column 8): count(DISTINCT column) counts values`,
  ],
  [
    'SELECT max_by(x, y) FROM orders',
    `max_by() by another column than timestamp_broker ${NOT_IN} (line 1, column 18): use max_by(x, timestamp_broker)`,
  ],
  [
    "SELECT U&'\\0041' FROM orders",
    `A U&'...' Unicode string ${NOT_IN} (line 1, column 8): write the characters themselves in '...'`,
  ],
  ["SELECT 'x' FROM orders", `A literal in the select list ${NOT_IN} (line 1, column 8): select columns`],
  [
    "SELECT * FROM orders WHERE timestamp_broker >= INTERVAL '1' DAY",
    `INTERVAL (other than now() - INTERVAL) ${NOT_IN} (line 1, column 48): write now() - INTERVAL '15' MINUTE or TIMESTAMP '...'`,
  ],
  [
    "SELECT * FROM orders WHERE timestamp_broker < now() + INTERVAL '1' DAY",
    `A time after now (+ INTERVAL) ${NOT_IN} (line 1, column 53): subtract the interval: now() - INTERVAL ...`,
  ],
  [
    'SELECT * FROM orders TABLESAMPLE BERNOULLI (10)',
    `TABLESAMPLE ${NOT_IN} (line 1, column 22): narrow the read with WHERE and LIMIT`,
  ],
  ['SELECT * FROM orders FETCH FIRST 1 ROWS ONLY', `FETCH FIRST ${NOT_IN} (line 1, column 22): write LIMIT n`],
];

const MALFORMED: [string, string][] = [
  [
    'SELECT * FROM hive.default.orders',
    'the catalog "hive" is not served (line 1, column 15): write <topic>, <schema>.<topic> or topicgate.<schema>.<topic>',
  ],
  [
    'SELECT * FROM a.b.c.d',
    'the table name has 4 parts (line 1, column 15): write topic, schema.topic or topicgate.schema.topic',
  ],
  ["SELECT * FROM orders WHERE a = 'open", "a string (') that is never closed (line 1, column 32)"],
  ['SELECT * FROM orders /* open', 'a /* comment that is never closed (line 1, column 22)'],
  ['SELECT "" FROM orders', 'an empty quoted identifier "" (line 1, column 8)'],
  [
    'SELECT * FROM orders WHERE a = NULL',
    'a comparison with NULL is never true (line 1, column 32): write IS NULL or IS NOT NULL',
  ],
  [
    'SELECT * FROM orders WHERE a = 1 = 2',
    'unexpected "=" (line 1, column 34): expected WHERE, GROUP BY, ORDER BY, LIMIT or the end of the statement',
  ],
  [
    'SELECT * FROM orders WHERE',
    'unexpected end of the statement (line 1, column 27): expected a column, a literal or an aggregate',
  ],
  [
    'SELECT * FROM orders WHERE a = 1\n  AND\n    b @ 2',
    'unexpected "@" (line 3, column 7): expected WHERE, GROUP BY, ORDER BY, LIMIT or the end of the statement',
  ],
  ['SELECT * FROM orders WHERE a = 12ab', 'the number "12ab" is malformed (line 1, column 32)'],
  [
    "SELECT * FROM orders WHERE a = X'abc'",
    "X'...' bytes must be pairs of hex digits, closed by ' (line 1, column 32)",
  ],
  ['SELECT * FROM orders WHERE a = \u0000', "the character U+0000 is not part of topicgate's SQL (line 1, column 32)"],
  ["SELECT * FROM orders WHERE a = 'a\u0000b'", 'a NUL character (U+0000) inside quotes (line 1, column 32)'],
  ["SELECT * FROM orders WHERE a = '\ud800'", 'an unpaired UTF-16 surrogate inside quotes (line 1, column 32)'],
  [
    'SELECT * FROM orders WHERE a = `x`',
    'the character "`" (U+0060) is not part of topicgate\'s SQL (line 1, column 32)',
  ],
  [
    'SELECT \'😀\' AS "é" FROM orders WHERE a = §',
    'the character "§" (U+00A7) is not part of topicgate\'s SQL (line 1, column 41)',
  ],
  [
    "SELECT * FROM orders WHERE t = TIMESTAMP '2026-02-30 00:00:00'",
    '"2026-02-30T00:00:00Z" is not a valid date-time (line 1, column 32)',
  ],
  [
    "SELECT * FROM orders WHERE t = TIMESTAMP '2026-11-01 00:00:00 Europe/Paris'",
    'TIMESTAMP "2026-11-01 00:00:00 Europe/Paris" is not a timestamp (line 1, column 32): write TIMESTAMP \'YYYY-MM-DD HH:MM:SS[.fff][ UTC|Z|+HH:MM]\'',
  ],
  [
    'SELECT status AS "a b" FROM orders',
    'the alias "a b" is not a plain name (line 1, column 8): an alias is ASCII letters, digits and _ (at most 128), starting with a letter or _',
  ],
  ['SELECT key FROM orders ORDER BY 3', 'ORDER BY 3: the select list has 1 items (line 1, column 33)'],
  [
    'SELECT key FROM orders GROUP BY count(*)',
    'GROUP BY an aggregate that is not selected (line 1, column 33): select it',
  ],
  [
    "SELECT date_trunc('hour', timestamp_broker) FROM orders",
    'the time bucket bucket is not in GROUP BY (line 1, column 8): add it',
  ],
  [
    'SELECT approx_percentile(x, 2) FROM orders',
    'approx_percentile takes (column, p) with p a number between 0 and 1 (line 1, column 29)',
  ],
  [
    'SELECT * FROM orders LIMIT 99999999999999999999',
    'LIMIT 99999999999999999999 is above 9007199254740991 (line 1, column 28)',
  ],
  ['SELECT count(DISTINCT *) FROM orders', 'count(DISTINCT *) counts no column (line 1, column 8)'],
  ['SELECT * FROM orders LIMIT -1', 'unexpected "-" (line 1, column 28): expected a whole number or ALL after LIMIT'],
  [
    "SELECT * FROM orders WHERE timestamp_broker >= now() - INTERVAL '1' MONTH",
    "an interval before now must be written INTERVAL '<n>' SECOND|MINUTE|HOUR|DAY (line 1, column 56): e.g. now() - INTERVAL '15' MINUTE",
  ],
  [
    '',
    'unexpected end of the statement (line 1, column 1): expected SELECT at the start: topicgate takes one SELECT statement',
  ],
];

describe('parseStatement: what is outside the subset is named, with its line and column', () => {
  it.each(REFUSED)('%s', (sql, message) => {
    expect(refusal(sql)).toBe(message);
  });
});

describe('parseStatement: malformed text is named where it starts', () => {
  it.each(MALFORMED)('%j', (sql, message) => {
    expect(refusal(sql)).toBe(message);
  });

  it('a LIMIT of 200,000 digits is refused before it is read as a number, its message shortened', () => {
    expect(refusal(`SELECT * FROM orders LIMIT ${'9'.repeat(200_000)}`)).toBe(
      'LIMIT 99999999999999999999... is above 9007199254740991 (line 1, column 28)',
    );
  });

  it('the details carry the line and column, and the construct when one is named', () => {
    try {
      parseStatement('SELECT *\nFROM orders\n  JOIN x');
    } catch (err) {
      expect((err as ApiError).details).toEqual({ line: 3, column: 3, construct: 'JOIN' });
      return;
    }
    throw new Error('parsed');
  });
});
