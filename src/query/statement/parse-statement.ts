/**
 * topicgate's SQL subset (API.md "Flight SQL") read into the body of `POST /v1/topics/{topic}/query`: a client's SQL
 * never reaches Trino as written; the body goes through the same read entry, checks and compiler as the REST API.
 *
 * The parser is the project's own (sql-lexer.ts, parse-select.ts, parse-condition.ts, parse-value.ts), not a SQL
 * parser package. Measured against node-sql-parser 5.4 (its Trino grammar) on the hostile corpus in eight places of
 * a statement and on deep inputs: the package accepts JOIN, UNION, WITH, subqueries, window functions, INSERT and
 * `...; DROP TABLE` (an AST walk would have to refuse each), its errors are PEG lists (`Expected "!", "$", ... but
 * "=" found`) naming no construct, one input threw a plain Error, and 1,000 nested parentheses overflow the stack;
 * it reads a typical statement in about 525 us (this parser: 35 us) and ships 252 KB of grammar (this folder: 30 KB
 * minified). This grammar is small, each refusal names the construct with its line and column, nesting is counted
 * before the parser descends (limits.maxDepth) and the length is capped before the lexer runs.
 *
 * Exported API (for the Flight SQL entrance):
 * - `parseStatement(sql, limits?)` -> `{ topic: { schema?, name }, body: QueryBody, probe }`, or an ApiError:
 *   TG_BAD_SQL (400) naming the construct and its line and column. `probe` is true for a schema probe (`WHERE 1=0`,
 *   `WHERE FALSE`, `LIMIT 0`): plan the body for its columns and scan nothing. `body.limit` is absent without LIMIT
 *   (the entrance decides: a bulk read or the default page). Names the body holds are checked against the topic
 *   when the body is planned (readRequestFromBody, then the planner), as for `/query`.
 * - `qualifiedTopicId(topic, schemas)` -> the topic id the catalog knows (`orders`, or `<schema>:<table>` when several
 *   schemas are served), or null when the statement names a schema that is not served.
 * - `SQL_CATALOG` (`topicgate`), the one catalog a statement may name; `SQL_FUNCTIONS`, the functions it may call.
 *
 * The mapping: identifiers fold to lower case unless double-quoted (quoted ones are kept as written, so an expanded
 * field with capitals can be named); `value.amount` is the dotted field of a decoded payload; a qualifier naming the
 * FROM table (`orders.status`, `o.status`) is dropped. Conditions become `where` (top-level `timestamp_broker >=` /
 * `<` become since / until; `now() - INTERVAL '15' MINUTE` is the relative `-15m`); GROUP BY keys and time buckets are output in front of the selected items, as `/query`
 * outputs them. A string compared with a varbinary column is read as the body reads one: UTF-8 text, or bytes when
 * it starts with `\x`.
 */
import { DEFAULT_MAX_DEPTH, MAX_DEPTH, CAP_CEILINGS } from '../../config/access-schema.js';
import type { QueryBody } from '../request/read-schema.js';
import type { Where } from '../request/where-schema.js';
import { SqlRefusals } from './sql-error.js';
import { tokenize } from './sql-lexer.js';
import { TokenCursor } from './token-cursor.js';
import { parseSelect } from './parse-select.js';
import type { FromTable, SelectStatement } from './statement-ast.js';
import { WhereTranslation } from './translate-where.js';
import { SelectTranslation } from './translate-select.js';
import type { ColumnExpr, Fields } from './sql-functions.js';
import { timeBounds } from './time-bounds.js';

export { SQL_FUNCTIONS } from './sql-functions.js';

/** The catalog of the Flight SQL model (API.md "Flight SQL"): the only one a statement may name. */
export const SQL_CATALOG = 'topicgate';
/** The longest statement, in characters, when the caller sets no other. */
export const MAX_SQL_LENGTH = 262_144;
/** How deep the body's `where` may nest (parse-read-request.ts whereFromJson refuses deeper). */
export const MAX_WHERE_DEPTH = 8;
/** The most items of one AND or OR in the body's `where` (where-schema.ts). */
const MAX_GROUP_ITEMS = 100;

export interface StatementLimits {
  /** Nesting of parentheses, function calls and NOTs (default limits.maxDepth's default, 64; at most 256). */
  maxDepth?: number;
  /** Characters of the statement (default MAX_SQL_LENGTH). */
  maxLength?: number;
}

export interface StatementTopic {
  schema?: string;
  name: string;
}

export interface ParsedStatement {
  topic: StatementTopic;
  body: QueryBody;
  probe: boolean;
}

/** Reads one statement of the subset into the topic it reads and the `/query` body; refusals are TG_BAD_SQL. */
export function parseStatement(sql: string, limits: StatementLimits = {}): ParsedStatement {
  const refuse = new SqlRefusals(sql);
  const maxLength = limits.maxLength ?? MAX_SQL_LENGTH;
  if (sql.length > maxLength) {
    throw refuse.malformed(
      `the statement has ${sql.length} characters, above the cap of ${maxLength}`,
      { offset: 0 },
      'send a shorter statement',
    );
  }
  const maxDepth = Math.min(limits.maxDepth ?? DEFAULT_MAX_DEPTH, MAX_DEPTH);
  const stmt = parseSelect(new TokenCursor(tokenize(sql, refuse), refuse, maxDepth));
  return translate(stmt, refuse);
}

function translate(stmt: SelectStatement, refuse: SqlRefusals): ParsedStatement {
  const topic = topicOf(stmt.from, refuse);
  const fields = fieldsOf(stmt.from);
  checkCounts(stmt, refuse);
  const folded = stmt.where ? new WhereTranslation(refuse, fields).fold(stmt.where) : true;
  if (typeof folded === 'object') checkWhere(folded, stmt, refuse);
  const s = new SelectTranslation(refuse, fields, stmt.select);
  if (stmt.distinct && stmt.groupBy.length > 0) {
    throw refuse.notInSubset('SELECT DISTINCT with GROUP BY', { offset: stmt.from.at }, 'group by the columns alone');
  }
  const groupBy = stmt.distinct ? s.distinctKeys(stmt.from.at) : s.groupBy(stmt.groupBy);
  const order = s.order(stmt.order, groupBy.length > 0);
  const { where, since, until } = timeBounds(typeof folded === 'object' ? folded : undefined);
  const body: QueryBody = {};
  const select = s.select();
  if (select) body.select = select;
  if (where) body.where = where;
  if (since !== undefined) body.since = since;
  if (until !== undefined) body.until = until;
  if (groupBy.length) body.groupBy = groupBy;
  if (order.length) body.order = order;
  const limit = limitOf(stmt, refuse);
  if (limit) body.limit = limit;
  return { topic, body, probe: folded === false || stmt.limit?.n === 0n };
}

function topicOf(from: FromTable, refuse: SqlRefusals): StatementTopic {
  if (from.catalog !== null && from.catalog !== SQL_CATALOG) {
    throw refuse.malformed(
      `the catalog ${JSON.stringify(from.catalog.slice(0, 60))} is not served`,
      { offset: from.at },
      `write <topic>, <schema>.<topic> or ${SQL_CATALOG}.<schema>.<topic>`,
    );
  }
  return from.schema === null ? { name: from.name } : { schema: from.schema, name: from.name };
}

function limitOf(stmt: SelectStatement, refuse: SqlRefusals): number | undefined {
  if (!stmt.limit || stmt.limit.n === 0n) return undefined;
  if (stmt.limit.n > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw refuse.malformed(`LIMIT ${stmt.limit.n} is above ${Number.MAX_SAFE_INTEGER}`, { offset: stmt.limit.at });
  }
  return Number(stmt.limit.n);
}

/** The body schema's own ceilings on list lengths, said with the clause's position. */
function checkCounts(stmt: SelectStatement, refuse: SqlRefusals): void {
  const check = (n: number, max: number, what: string, at: number) => {
    if (n > max) throw refuse.malformed(`${n} ${what}, above the most a read takes (${max})`, { offset: at });
  };
  check(stmt.select.length, CAP_CEILINGS.selectItems, 'select items', stmt.select[0]!.at);
  check(stmt.groupBy.length, CAP_CEILINGS.groupByItems, 'GROUP BY items', stmt.groupBy[0]?.at ?? 0);
  check(stmt.order.length, CAP_CEILINGS.orderItems, 'ORDER BY items', stmt.order[0]?.at ?? 0);
}

/** The folded `where` within what the body takes: nesting and the items of one AND / OR. */
function checkWhere(where: Where, stmt: SelectStatement, refuse: SqlRefusals): void {
  const at = { offset: stmt.where!.at };
  const visit = (w: Where, depth: number): void => {
    if (depth > MAX_WHERE_DEPTH) {
      throw refuse.malformed(
        `the conditions nest deeper than ${MAX_WHERE_DEPTH} levels of AND, OR and NOT`,
        at,
        'write them flatter (IN lists, fewer parentheses)',
      );
    }
    const items = 'and' in w ? w.and : 'or' in w ? w.or : 'not' in w ? [w.not] : [];
    if (items.length > MAX_GROUP_ITEMS) {
      throw refuse.malformed(
        `${items.length} conditions in one AND or OR, above ${MAX_GROUP_ITEMS}`,
        at,
        'write a list of values as IN (...)',
      );
    }
    for (const i of items) visit(i, depth + 1);
  };
  visit(where, 0);
}

/** Body references need quotes when a name holds what the body's reference grammar reads (column-ref.ts). */
const NEEDS_QUOTES = /[":]|->/;
const quoted = (name: string) => `"${name.replace(/["\\]/g, '\\$&')}"`;

/** The statement's names: a qualifier naming the FROM table is dropped; dotted names step into decoded payloads. */
function fieldsOf(from: FromTable): Fields {
  const qualifiers = [
    ...(from.alias !== null ? [[from.alias]] : []),
    [from.name],
    ...(from.schema !== null ? [[from.schema, from.name]] : []),
    ...(from.catalog !== null ? [[from.catalog, from.schema, from.name]] : []),
  ];
  const isTable = (q: readonly string[]) =>
    qualifiers.some((t) => t.length === q.length && t.every((p, i) => p === q[i]));
  const partsOf = (c: ColumnExpr): string[] => {
    for (let n = Math.min(3, c.parts.length - 1); n >= 1; n--)
      if (isTable(c.parts.slice(0, n))) return c.parts.slice(n);
    return c.parts;
  };
  return {
    isTable,
    name: (c) => partsOf(c).join('.'),
    field: (c) => {
      const parts = partsOf(c);
      // A key holding a dot cannot be a dotted step: the arrow form names it (decoded-column.ts).
      if (parts.slice(1).some((p) => p.includes('.')))
        return parts.map((p, i) => (i ? `->${quoted(p)}` : quoted(p))).join('');
      const name = parts.join('.');
      return NEEDS_QUOTES.test(name) || name === '*' ? quoted(name) : name;
    },
  };
}

/**
 * The catalog's id of the topic a statement names (read/topic-catalog.ts): the table name when one schema is served,
 * else `<schema>:<table>`; a name written as one identifier (`"demo:orders"`) is taken as an id. Null when the
 * statement names a schema that is not served (the entrance answers as for an unknown topic).
 */
export function qualifiedTopicId(topic: StatementTopic, schemas: readonly string[]): string | null {
  if (topic.schema === undefined) return topic.name;
  if (!schemas.includes(topic.schema)) return null;
  return schemas.length === 1 ? topic.name : `${topic.schema}:${topic.name}`;
}
