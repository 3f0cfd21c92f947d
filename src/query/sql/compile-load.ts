/**
 * A load's statements (API.md "Loads run by Trino: topic into table"), from the tree of its read: the target made
 * from the read's select (its columns and their types, no rows), the window deleted from the target, the window
 * inserted, and the window counted in the target. Every statement starts with the load's marker comment, so the
 * gateway can find its own statements among Trino's queries (loads/earlier-statements.ts).
 */
import type { ColumnNode, QueryNode, TargetNode } from '../tree/nodes.js';
import { compileQuery } from './compile-query.js';
import { quoteIdent, stringLiteral, timestampLiteral } from './sql-text.js';

/** A window of whole broker milliseconds: [lo, hi), or everything before hi when lo is absent. */
export interface LoadWindow {
  lo?: number;
  hi: number;
}

export interface LoadStatements {
  /** The target's schema, when it is missing. */
  createSchema: string;
  /** The target, with the read's columns and types, when it is missing. */
  create: string;
  delete: string;
  insert: string;
  /** Rows of the window in the target (returns one row: the count). */
  count: string;
}

/** `"catalog"."schema"."table"`. */
export function compileTarget(t: TargetNode): string {
  return `${quoteIdent(t.catalog)}.${quoteIdent(t.schema)}.${quoteIdent(t.table)}`;
}

/**
 * The statements of one run over `window`. `q` is the read of that window (no order, no limit), `time` the
 * topic's broker time column, which the target holds under the same name.
 */
export function compileLoad(
  q: QueryNode,
  target: TargetNode,
  time: ColumnNode,
  window: LoadWindow,
  marker: string,
): LoadStatements {
  if (q.limit !== Infinity || q.order.length > 0) throw new Error('a load reads its window whole and unordered');
  const t = compileTarget(target);
  const select = compileQuery(q);
  const ts = quoteIdent(time.name);
  const inWindow = [
    ...(window.lo !== undefined ? [`${ts} >= ${timestampLiteral(window.lo)}`] : []),
    `${ts} < ${timestampLiteral(window.hi)}`,
  ].join(' AND ');
  const columns = q.select.map((s) => quoteIdent(s.as)).join(', ');
  return {
    createSchema: `${marker} CREATE SCHEMA IF NOT EXISTS ${quoteIdent(target.catalog)}.${quoteIdent(target.schema)}`,
    create: `${marker} CREATE TABLE ${t} AS ${select} WITH NO DATA`,
    delete: `${marker} DELETE FROM ${t} WHERE ${inWindow}`,
    insert: `${marker} INSERT INTO ${t} (${columns}) ${select}`,
    count: `${marker} SELECT count(*) FROM ${t} WHERE ${inWindow}`,
  };
}

/** Trino's catalogs (those the user may see): the target's must be among them. */
export function compileCatalogs(): string {
  return 'SHOW CATALOGS';
}

/** The target's schema (one row when it exists) and table (one row when it exists), in one query. */
export function compileTargetExists(t: TargetNode): string {
  const info = `${quoteIdent(t.catalog)}.information_schema`;
  const s = stringLiteral(t.schema);
  return (
    `SELECT (SELECT count(*) FROM ${info}.schemata WHERE schema_name = ${s}), ` +
    `(SELECT count(*) FROM ${info}.tables WHERE table_schema = ${s} AND table_name = ${stringLiteral(t.table)})`
  );
}

/** Statements carrying `marker` that Trino has not finished (their ids), from its list of queries. */
export function compileUnfinished(marker: string): string {
  // The marker ends with `*/`, so one load's marker is never the start of another's.
  return (
    "SELECT query_id FROM system.runtime.queries WHERE state NOT IN ('FINISHED', 'FAILED') " +
    `AND starts_with(query, ${stringLiteral(marker)})`
  );
}

/** Ends a query in Trino (a statement of an earlier run still going on). */
export function compileKillQuery(queryId: string, message: string): string {
  return `CALL system.runtime.kill_query(query_id => ${stringLiteral(queryId)}, message => ${stringLiteral(message)})`;
}
