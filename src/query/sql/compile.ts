/**
 * The compiler: a query tree in, Trino SQL text out. The only place SQL text is produced (with sql-text.ts for
 * every name and value). Predicates keep the column bare and the literal in the column's type, so the storage
 * can evaluate them (VAST_TOPIC_TABLES.md "What the VAST connector pushes down"). One switch per node kind, in
 * the one module that writes SQL (STYLE.md habit 1); the queries built from them are in compile-query.ts.
 */
import { assertNever } from '../../core/errors.js';
import type { ColumnNode, CompareOp, IsWhat, LiteralNode, PredicateNode } from '../tree/nodes.js';
import {
  booleanLiteral,
  dateLiteral,
  decimalLiteral,
  doubleLiteral,
  integerLiteral,
  jsonPathLiteral,
  quoteIdent,
  stringLiteral,
  timestampLiteral,
  varbinaryLiteral,
} from './sql-text.js';
import { typeFamily } from '../../core/type-family.js';

const COMPARE_SQL = {
  eq: '=',
  neq: '<>',
  gt: '>',
  gte: '>=',
  lt: '<',
  lte: '<=',
  isdistinct: 'IS DISTINCT FROM',
} as const satisfies Record<CompareOp, string>;

/** `is` and its negation (`not.is`), as PostgreSQL's IS tests: `not.is.true` keeps NULLs (IS NOT TRUE). */
const IS_SQL = {
  null: ['IS NULL', 'IS NOT NULL'],
  not_null: ['IS NOT NULL', 'IS NULL'],
  true: ['= TRUE', 'IS DISTINCT FROM TRUE'],
  false: ['= FALSE', 'IS DISTINCT FROM FALSE'],
  unknown: ['IS NULL', 'IS NOT NULL'],
} as const satisfies Record<IsWhat, readonly [string, string]>;

/** Row number column used by dedupe; never shown (the outer select lists its columns). */
function compileLiteral(lit: LiteralNode): string {
  const v = lit.value;
  switch (v.t) {
    case 'varchar':
      return stringLiteral(v.v);
    case 'varbinary':
      return varbinaryLiteral(v.v);
    case 'integer': {
      const base = lit.type.replace(/\(.*$/, '').toUpperCase();
      // A typed literal (SMALLINT '5') so a narrow column is never widened by a cast.
      return base === 'INTEGER' || base === 'BIGINT' || base === 'SMALLINT' || base === 'TINYINT'
        ? `${base} '${integerLiteral(v.v)}'`
        : integerLiteral(v.v);
    }
    case 'decimal':
      return decimalLiteral(v.v);
    case 'double':
      return lit.type === 'real' && Number.isFinite(v.v) ? `REAL '${v.v}'` : doubleLiteral(v.v);
    case 'boolean':
      return booleanLiteral(v.v);
    case 'timestamp':
      return timestampLiteral(v.epochMs, v.subMs);
    case 'date':
      return dateLiteral(v.v);
    default:
      return assertNever(v, 'literal');
  }
}

/** json-sr bytes without their Confluent frame when they have one (byte 0, a 4-byte schema id, then the JSON). */
function unframed(raw: string): string {
  return `IF(substr(${raw}, 1, 1) = X'00' AND length(${raw}) >= 5, substr(${raw}, 6), ${raw})`;
}

/** Text of UTF-8 bytes, or NULL when they are not UTF-8 (from_utf8 alone would substitute U+FFFD silently). */
function utf8Text(raw: string): string {
  return `CASE WHEN to_utf8(from_utf8(${raw})) = ${raw} THEN from_utf8(${raw}) END`;
}

/** A JSON scalar read as `type`: text as is, a timestamp from ISO-8601 text, anything else by try_cast. */
function scalarAs(scalar: string, type: string): string {
  const family = typeFamily(type);
  if (family === 'varchar') return scalar;
  if (family === 'timestamp') {
    // ISO-8601 text with a zone (as JSON payloads carry it) to the zone-less UTC timestamp of the column type.
    return `try(CAST(from_iso8601_timestamp(${scalar}) AT TIME ZONE 'UTC' AS ${type}))`;
  }
  return `try_cast(${scalar} AS ${type})`;
}

/**
 * An ad-hoc arrow path (json-path-column.ts) over a JSON-holding column: varbinary must be UTF-8 (else NULL), text
 * that is not JSON gives NULL (json_extract never fails on it). `->` is the JSON value; `->>` its text as
 * PostgreSQL's `->>` gives it: a scalar unquoted (numbers as written), an object or array as JSON text, JSON null as
 * NULL. A path
 * retyped by a comparison's literal is the scalar read as that type (mistyped: NULL).
 */
function compileJsonPath(c: ColumnNode, src: Extract<ColumnNode['source'], { kind: 'json-path' }>): string {
  const column = compileColumn(src.base);
  const framed = src.base.source.kind === 'table' && src.base.source.framed === 'json-sr';
  const base = framed ? unframed(column) : column;
  const doc = typeFamily(src.base.type) === 'varbinary' ? utf8Text(base) : base;
  const path = jsonPathLiteral(src.path);
  if (c.type === 'json') return `json_extract(${doc}, ${path})`;
  if (c.type === 'varchar') {
    // A scalar costs one parse of the document (COALESCE is lazy); only objects, arrays, JSON null and missing keys
    // take the second, where JSON null's text 'null' becomes NULL (a JSON string "null" is a scalar: kept).
    return `COALESCE(json_extract_scalar(${doc}, ${path}), NULLIF(json_format(json_extract(${doc}, ${path})), 'null'))`;
  }
  if (typeFamily(c.type) === 'other') return `try_cast(json_extract(${doc}, ${path}) AS ${c.type})`;
  return scalarAs(`json_extract_scalar(${doc}, ${path})`, c.type);
}

/**
 * A column reference. Expanded fields are Trino JSON functions over the payload: invalid UTF-8 gives NULL
 * (from_utf8 would silently substitute U+FFFD), non-JSON and missing or mistyped fields give NULL (try_cast).
 */
export function compileColumn(c: ColumnNode): string {
  const src = c.source;
  if (src.kind === 'table') return quoteIdent(c.name);
  if (src.kind === 'json-path') return compileJsonPath(c, src);
  // The post-decode split takes every decoded field out of the tree before it is compiled (post-decode-split.ts).
  if (src.kind === 'decoded') throw new Error(`the decoded field ${c.name} cannot be SQL: a planner defect`);
  const from = quoteIdent(src.from);
  const text = utf8Text(src.framed ? unframed(from) : from);
  const path = jsonPathLiteral(src.path);
  if (typeFamily(c.type) === 'other') return `try_cast(json_extract(${text}, ${path}) AS ${c.type})`;
  return scalarAs(`json_extract_scalar(${text}, ${path})`, c.type);
}

/** A text column for pattern matching: varbinary through from_utf8 (invalid bytes become U+FFFD, as in like). */
function textOf(c: ColumnNode): string {
  const col = compileColumn(c);
  return typeFamily(c.type) === 'varbinary' ? `from_utf8(${col})` : col;
}

/**
 * cs / cd / ov as PostgreSQL's @>, <@ and && over Trino arrays; an array of rows is compared by its key field
 * (`field`). An empty list: every non-null array contains it, only an empty array is contained by it, nothing
 * overlaps it.
 */
function compileArray(p: Extract<PredicateNode, { kind: 'array' }>): string {
  const col = compileColumn(p.column);
  const elements = p.field ? `transform(${col}, e -> e.${quoteIdent(p.field)})` : col;
  const list = `ARRAY[${p.values.map(compileLiteral).join(', ')}]`;
  switch (p.op) {
    case 'cs':
      return p.values.length ? `cardinality(array_except(${list}, ${elements})) = 0` : `${col} IS NOT NULL`;
    case 'cd':
      return p.values.length ? `cardinality(array_except(${elements}, ${list})) = 0` : `cardinality(${col}) = 0`;
    case 'ov':
      return p.values.length ? `arrays_overlap(${elements}, ${list})` : 'FALSE';
    default:
      return assertNever(p.op, 'array operator');
  }
}

export function compilePredicate(p: PredicateNode): string {
  switch (p.kind) {
    case 'compare':
      return `${compileColumn(p.column)} ${COMPARE_SQL[p.op]} ${compileLiteral(p.value)}`;
    case 'in':
      // PostgREST's in.() (= ANY('{}')) matches nothing; SQL has no empty IN list.
      if (p.values.length === 0) return 'FALSE';
      return `${compileColumn(p.column)} IN (${p.values.map(compileLiteral).join(', ')})`;
    case 'like': {
      const col = textOf(p.column);
      const pattern = stringLiteral(p.caseInsensitive ? p.pattern.toLowerCase() : p.pattern);
      const esc = p.escape ? ` ESCAPE '\\'` : '';
      return p.caseInsensitive ? `lower(${col}) LIKE ${pattern}${esc}` : `${col} LIKE ${pattern}${esc}`;
    }
    case 'match':
      // try(): a construct Trino's regex engine refuses gives NULL (no row), never a failed query (patterns.ts).
      return `try(regexp_like(${textOf(p.column)}, ${stringLiteral(p.caseInsensitive ? `(?i)${p.pattern}` : p.pattern)}))`;
    case 'is':
      return `${compileColumn(p.column)} ${IS_SQL[p.what][0]}`;
    case 'array':
      return compileArray(p);
    case 'not':
      if (p.inner.kind === 'is') return `${compileColumn(p.inner.column)} ${IS_SQL[p.inner.what][1]}`;
      return `NOT (${compilePredicate(p.inner)})`;
    case 'and':
    case 'or':
      return `(${p.items.map(compilePredicate).join(p.kind === 'and' ? ' AND ' : ' OR ')})`;
    case 'anchor':
      return `${compileColumn(p.column)} ${p.dir === 'asc' ? '>=' : '<='} ${compileLiteral(p.value)}`;
    default:
      return assertNever(p, 'predicate');
  }
}

/** The WHERE clause text of a tree, without the keyword: top-level conjuncts stay separate for the storage. */
export function compileWhere(p: PredicateNode | null): string | null {
  if (!p) return null;
  if (p.kind === 'and') return p.items.map(compilePredicate).join(' AND ');
  return compilePredicate(p);
}
