/**
 * The query model: an immutable tree of `kind`-tagged nodes. Routes (GET and POST) and the blob module build
 * these; policy passes transform them; only compile.ts turns them into SQL text.
 */
import type { AGGREGATE_FNS } from './read-specs.js';

/** The broker time column of a topic table: time windows, paging anchors and slices are on it. */
export const TIME_COLUMN = 'timestamp_broker';

/**
 * Where a column's value comes from: a table column, a declared JSON field of the payload (blob expansion), or an
 * ad-hoc JSON arrow path into any JSON-holding column (`value->customer->>country`; `text` for a final `->>`).
 */
export type ColumnSource =
  /** `framed`: the column holds Confluent-framed payloads (API.md "Schema Registry payloads"). */
  | { kind: 'table'; framed?: 'avro' | 'json-sr' }
  /** `framed`: the payload may carry a Confluent frame (json-sr: byte 0, 4-byte schema id) before the JSON. */
  | { kind: 'json'; from: string; path: readonly (string | number)[]; framed?: boolean }
  | { kind: 'json-path'; base: ColumnNode; path: readonly (string | number)[]; text: boolean }
  /**
   * A field of a decoded Avro key or value (`value.amount`, `value->customer->country`): it exists only once the
   * payload is decoded, so the post-decode stage evaluates it, after the scan (passes/post-decode-split.ts).
   * `arrow`: the request wrote it as an arrow path (its output is named by its last key, as PostgREST names paths).
   */
  | { kind: 'decoded'; column: 'key' | 'value'; path: readonly (string | number)[]; arrow: boolean };

export interface ColumnNode {
  kind: 'column';
  name: string;
  /** Trino type text of the column or of the expanded field. */
  type: string;
  source: ColumnSource;
}

/** A typed value, already checked against its column's type; the compiler renders it. */
export type LiteralValue =
  | { t: 'varchar'; v: string }
  | { t: 'varbinary'; v: Buffer }
  | { t: 'integer'; v: string }
  | { t: 'decimal'; v: string }
  | { t: 'double'; v: number }
  | { t: 'boolean'; v: boolean }
  | { t: 'timestamp'; epochMs: number; subMs: string }
  | { t: 'date'; v: string };

export interface LiteralNode {
  kind: 'literal';
  /** The Trino type the literal must have (the column's type), so no cast lands on the column side. */
  type: string;
  value: LiteralValue;
}

/** `isdistinct` is SQL's IS DISTINCT FROM (PostgREST's `isdistinct`): NULL-safe inequality. */
export type CompareOp = 'eq' | 'neq' | 'gt' | 'gte' | 'lt' | 'lte' | 'isdistinct';

/** What `is` tests (PostgREST's `is.null`, `is.not_null`, `is.true`, `is.false`, `is.unknown`). */
export type IsWhat = 'null' | 'not_null' | 'true' | 'false' | 'unknown';

/** PostgreSQL's array operators: `@>` contains, `<@` is contained by, `&&` overlaps. */
export type ArrayOp = 'cs' | 'cd' | 'ov';

export type PredicateNode =
  | { kind: 'compare'; op: CompareOp; column: ColumnNode; value: LiteralNode }
  /** An empty list matches nothing (PostgREST's `in.()`): compiled as FALSE. */
  | { kind: 'in'; column: ColumnNode; values: readonly LiteralNode[] }
  /** `pattern` is the SQL LIKE pattern; `escape` is set when it holds a backslash escape (ESCAPE '\'). */
  | { kind: 'like'; column: ColumnNode; pattern: string; escape: boolean; caseInsensitive: boolean }
  /** A regular expression (PostgREST's `match` / `imatch`); always evaluated after the scan. */
  | { kind: 'match'; column: ColumnNode; pattern: string; caseInsensitive: boolean }
  | { kind: 'is'; column: ColumnNode; what: IsWhat }
  /**
   * Array containment and overlap. `field` names the row field compared when the elements are rows (the header
   * keys of `headers`); the values have the element's (or the field's) type.
   */
  | { kind: 'array'; op: ArrayOp; column: ColumnNode; field: string | null; values: readonly LiteralNode[] }
  | { kind: 'not'; inner: PredicateNode }
  | { kind: 'and' | 'or'; items: readonly PredicateNode[] }
  /** Paging position: rows at or after (or before, for descending order) this broker time. */
  | { kind: 'anchor'; column: ColumnNode; dir: 'asc' | 'desc'; value: LiteralNode };

/** One of the aggregate functions a request may name (the list is tree/read-specs.ts's). */
export type AggregateFn = (typeof AGGREGATE_FNS)[number];

export type SelectNode =
  | { kind: 'select-column'; column: ColumnNode; as: string }
  | { kind: 'aggregate'; fn: AggregateFn; column: ColumnNode | null; p?: number; as: string; time: ColumnNode | null }
  | { kind: 'bucket'; column: ColumnNode; ms: number; as: string };

export interface OrderNode {
  /** Output name of a selected column or aggregate. */
  name: string;
  /** The column, when ordering by one that is not selected. */
  column?: ColumnNode;
  dir: 'asc' | 'desc';
  nulls?: 'first' | 'last';
}

export interface SourceNode {
  kind: 'source';
  catalog: string;
  schema: string;
  table: string;
  topicKind: 'topic' | 'table';
  /** Every column of the table, in table order: the tie-breaker of a total order over rows. */
  columns: readonly ColumnNode[];
}

/** A table a load writes into (API.md "Loads run by Trino"): names checked by loads/load-target.ts. */
export interface TargetNode {
  kind: 'target';
  catalog: string;
  schema: string;
  table: string;
}

export interface DedupeNode {
  by: readonly ColumnNode[];
  keep: 'latest' | 'earliest';
  time: ColumnNode;
}

export interface QueryNode {
  kind: 'query';
  source: SourceNode;
  select: readonly SelectNode[];
  where: PredicateNode | null;
  /** Names of select items to group by (aggregation queries). */
  groupBy: readonly string[];
  order: readonly OrderNode[];
  /** Rows to return; the compiler asks for one more to learn whether a next page exists. */
  limit: number;
  offset: number;
  dedupe: DedupeNode | null;
  /** Add the remaining columns to ORDER BY so the order is total and pages are exact. */
  totalOrder: boolean;
}

/** Conjoins predicates, flattening nested ANDs; null when there is nothing to conjoin. */
export function and(...preds: (PredicateNode | null | undefined)[]): PredicateNode | null {
  const items: PredicateNode[] = [];
  for (const p of preds) {
    if (!p) continue;
    if (p.kind === 'and') items.push(...p.items);
    else items.push(p);
  }
  if (items.length === 0) return null;
  return items.length === 1 ? items[0]! : { kind: 'and', items };
}

export function isAggregate(q: QueryNode): boolean {
  return q.groupBy.length > 0 || q.select.some((s) => s.kind === 'aggregate');
}
