/**
 * The words of Trino's SQL that topicgate's subset leaves out, each with the construct it opens and what to do
 * instead, so a refusal names the construct rather than a token; and the reserved words (Trino's, plus the clause
 * words an alias written without AS could otherwise swallow), which are never bare identifiers.
 */

export interface RefusedConstruct {
  construct: string;
  hint: string;
}

const WRITES = 'topicgate reads topics; nothing is written through it';
const ONE_TOPIC = 'read one topic per statement';
const METADATA = 'use the Flight SQL metadata calls (GetTables, GetDbSchemas) or GET /v1/topics';

const statement = (word: string, hint: string): [string, RefusedConstruct] => [
  word,
  { construct: `${word.toUpperCase()} (a statement other than SELECT)`, hint },
];

/** Words that start a statement other than SELECT, by their lower-case spelling. */
export const STATEMENT_WORDS: Readonly<Record<string, RefusedConstruct>> = Object.fromEntries([
  ...['insert', 'update', 'delete', 'merge', 'create', 'drop', 'alter', 'truncate', 'comment', 'refresh'].map((w) =>
    statement(w, WRITES),
  ),
  ...['grant', 'revoke', 'deny', 'call', 'set', 'reset', 'use', 'prepare', 'execute', 'deallocate', 'analyze'].map(
    (w) => statement(w, 'send one SELECT; prepared statements are the Flight SQL calls'),
  ),
  ...['start', 'commit', 'rollback'].map((w) => statement(w, 'reads need no transaction')),
  ...['show', 'describe'].map((w) => statement(w, METADATA)),
  statement('explain', 'POST /v1/topics/{topic}/query with "explain": true returns the plan'),
  statement('values', 'select from a topic'),
]);

/** Words inside a statement that open a construct outside the subset, by their lower-case spelling. */
export const REFUSED_WORDS: Readonly<Record<string, RefusedConstruct>> = Object.fromEntries([
  ['with', { construct: 'WITH (a common table expression)', hint: ONE_TOPIC }],
  ...['join', 'inner', 'left', 'right', 'full', 'outer', 'cross', 'natural', 'on', 'using'].map(
    (w): [string, RefusedConstruct] => [w, { construct: 'JOIN', hint: ONE_TOPIC }],
  ),
  ['lateral', { construct: 'LATERAL', hint: ONE_TOPIC }],
  ['unnest', { construct: 'UNNEST', hint: ONE_TOPIC }],
  ['tablesample', { construct: 'TABLESAMPLE', hint: 'narrow the read with WHERE and LIMIT' }],
  ['match_recognize', { construct: 'MATCH_RECOGNIZE', hint: ONE_TOPIC }],
  ['for', { construct: 'FOR (time travel)', hint: 'bound timestamp_broker in WHERE' }],
  ...['union', 'intersect', 'except'].map((w): [string, RefusedConstruct] => [
    w,
    { construct: `${w.toUpperCase()} (a set operation)`, hint: ONE_TOPIC },
  ]),
  ['having', { construct: 'HAVING', hint: 'filter rows with WHERE; groups cannot be filtered' }],
  ['offset', { construct: 'OFFSET', hint: 'narrow the window on timestamp_broker in WHERE instead' }],
  ['fetch', { construct: 'FETCH FIRST', hint: 'write LIMIT n' }],
  ['window', { construct: 'WINDOW (a window function)', hint: 'aggregate with GROUP BY' }],
  ['over', { construct: 'OVER (a window function)', hint: 'aggregate with GROUP BY' }],
  ['filter', { construct: 'FILTER (an aggregate filter)', hint: 'filter rows with WHERE' }],
  ['within', { construct: 'WITHIN GROUP', hint: 'use approx_percentile(column, p)' }],
  ['case', { construct: 'CASE', hint: 'select columns and aggregates as they are' }],
  ['cast', { construct: 'CAST', hint: 'compare the column with a literal of its own type' }],
  ['exists', { construct: 'EXISTS (a subquery)', hint: ONE_TOPIC }],
  [
    'interval',
    {
      construct: 'INTERVAL (other than now() - INTERVAL)',
      hint: "write now() - INTERVAL '15' MINUTE or TIMESTAMP '...'",
    },
  ],
  ['extract', { construct: 'EXTRACT', hint: "group by date_trunc('hour', timestamp_broker)" }],
  ['rollup', { construct: 'ROLLUP', hint: 'GROUP BY columns and one time bucket' }],
  ['cube', { construct: 'CUBE', hint: 'GROUP BY columns and one time bucket' }],
  ['grouping', { construct: 'GROUPING SETS', hint: 'GROUP BY columns and one time bucket' }],
]);

/**
 * Words never read as a bare identifier or an alias (quote them to use them as names: `"order"`): Trino's reserved
 * words of the subset and of the constructs it refuses, and the clause words an alias without AS would swallow.
 */
export const RESERVED: ReadonlySet<string> = new Set([
  ...Object.keys(REFUSED_WORDS).filter((w) => w !== 'filter'),
  ...['select', 'from', 'where', 'group', 'by', 'order', 'limit', 'and', 'or', 'not', 'in', 'like', 'ilike', 'is'],
  ...['null', 'between', 'true', 'false', 'as', 'asc', 'desc', 'nulls', 'distinct', 'all', 'escape', 'when'],
  ...['then', 'else', 'end', 'into', 'current_date', 'current_time', 'current_timestamp', 'localtimestamp'],
]);
