/**
 * The parsed statement, before it becomes a `/query` body: only what the subset has, each node with the offset where
 * it starts (refusals in the translation name a line and column too).
 */

/**
 * A literal as written: numbers keep their text (exact digits), times their ISO-8601 text, bytes their hex; a time
 * relative to the request (`now()`, `current_timestamp - INTERVAL '15' MINUTE`) the body's relative time (`now`, `-15m`).
 */
export type SqlLiteral =
  | { t: 'relative'; v: string }
  | { t: 'string'; v: string }
  | { t: 'number'; v: string }
  | { t: 'boolean'; v: boolean }
  | { t: 'null' }
  | { t: 'timestamp'; v: string }
  | { t: 'date'; v: string }
  | { t: 'bytes'; hex: string };

/** A value: a column (its name parts, folded as Trino folds them), a literal, a function call, or `*`. */
export type ValueExpr =
  | { k: 'column'; parts: string[]; at: number }
  | { k: 'literal'; lit: SqlLiteral; at: number }
  | { k: 'call'; name: string; args: ValueExpr[]; distinct: boolean; star: boolean; at: number }
  | { k: 'star'; qualifier: string[]; at: number };

export type CompareSqlOp = '=' | '<>' | '<' | '<=' | '>' | '>=' | 'distinct';

/** A condition of WHERE. */
export type Condition =
  | { k: 'and' | 'or'; items: Condition[]; at: number }
  | { k: 'not'; inner: Condition; at: number }
  | { k: 'compare'; op: CompareSqlOp; left: ValueExpr; right: ValueExpr; at: number }
  | { k: 'in'; value: ValueExpr; list: ValueExpr[]; at: number }
  | { k: 'like'; value: ValueExpr; pattern: ValueExpr; escape: ValueExpr | null; ci: boolean; at: number }
  | { k: 'is'; value: ValueExpr; what: 'null' | 'true' | 'false' | 'unknown'; at: number }
  | { k: 'between'; value: ValueExpr; lo: ValueExpr; hi: ValueExpr; at: number }
  | { k: 'value'; value: ValueExpr; at: number };

export interface SelectItem {
  expr: ValueExpr;
  alias: string | null;
  at: number;
}

export interface OrderItem {
  expr: ValueExpr;
  dir: 'asc' | 'desc' | null;
  nulls: 'first' | 'last' | null;
  at: number;
}

/** FROM's table: `[catalog.][schema.]name`, optionally with an alias. */
export interface FromTable {
  catalog: string | null;
  schema: string | null;
  name: string;
  alias: string | null;
  at: number;
}

export interface SelectStatement {
  distinct: boolean;
  select: SelectItem[];
  from: FromTable;
  where: Condition | null;
  groupBy: ValueExpr[];
  order: OrderItem[];
  /** null: no LIMIT (or LIMIT ALL). */
  limit: { n: bigint; at: number } | null;
}
