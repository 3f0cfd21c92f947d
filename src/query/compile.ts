/**
 * The compiler: a query tree in, Trino SQL text out. The only place SQL text is produced (with sql-text.ts for
 * every name and value). Predicates keep the column bare and the literal in the column's type, so the storage
 * can evaluate them (VAST_TOPIC_TABLES.md "What the VAST connector pushes down").
 */
import { assertNever } from '../errors.js';
import type { ColumnNode, LiteralNode, PredicateNode, QueryNode, SelectNode } from './nodes.js';
import { isAggregate } from './nodes.js';
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
import { typeFamily } from './values.js';

const COMPARE_SQL = { eq: '=', neq: '<>', gt: '>', gte: '>=', lt: '<', lte: '<=' } as const satisfies Record<
  string,
  string
>;

/** Row number column used by dedupe; never shown (the outer select lists its columns). */
const DEDUPE_RN = '__topicgate_rn';

export function compileLiteral(lit: LiteralNode): string {
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

/**
 * A column reference. Expanded fields are Trino JSON functions over the payload: invalid UTF-8 gives NULL
 * (from_utf8 would silently substitute U+FFFD), non-JSON and missing or mistyped fields give NULL (try_cast).
 */
export function compileColumn(c: ColumnNode): string {
  const src = c.source;
  if (src.kind === 'table') return quoteIdent(c.name);
  const raw = quoteIdent(src.from);
  const text = `CASE WHEN to_utf8(from_utf8(${raw})) = ${raw} THEN from_utf8(${raw}) END`;
  const path = jsonPathLiteral(src.path);
  const family = typeFamily(c.type);
  if (family === 'other') return `try_cast(json_extract(${text}, ${path}) AS ${c.type})`;
  const scalar = `json_extract_scalar(${text}, ${path})`;
  if (family === 'timestamp') {
    // ISO-8601 text with a zone (as JSON payloads carry it) to the zone-less UTC timestamp of the column type.
    return `try(CAST(from_iso8601_timestamp(${scalar}) AT TIME ZONE 'UTC' AS ${c.type}))`;
  }
  return family === 'varchar' ? scalar : `try_cast(${scalar} AS ${c.type})`;
}

export function compilePredicate(p: PredicateNode): string {
  switch (p.kind) {
    case 'compare':
      return `${compileColumn(p.column)} ${COMPARE_SQL[p.op]} ${compileLiteral(p.value)}`;
    case 'in':
      return `${compileColumn(p.column)} IN (${p.values.map(compileLiteral).join(', ')})`;
    case 'like': {
      let col = compileColumn(p.column);
      if (typeFamily(p.column.type) === 'varbinary') col = `from_utf8(${col})`;
      const pattern = stringLiteral(p.caseInsensitive ? p.pattern.toLowerCase() : p.pattern);
      const esc = p.escape ? ` ESCAPE '\\'` : '';
      return p.caseInsensitive ? `lower(${col}) LIKE ${pattern}${esc}` : `${col} LIKE ${pattern}${esc}`;
    }
    case 'is':
      return p.what === 'null'
        ? `${compileColumn(p.column)} IS NULL`
        : `${compileColumn(p.column)} = ${p.what === 'true' ? 'TRUE' : 'FALSE'}`;
    case 'not':
      if (p.inner.kind === 'is') {
        // PostgREST's not.is.true is SQL's IS NOT TRUE: NULLs stay in.
        return p.inner.what === 'null'
          ? `${compileColumn(p.inner.column)} IS NOT NULL`
          : `${compileColumn(p.inner.column)} IS DISTINCT FROM ${p.inner.what === 'true' ? 'TRUE' : 'FALSE'}`;
      }
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

function compileSelectItem(s: SelectNode): string {
  switch (s.kind) {
    case 'select-column': {
      const expr = compileColumn(s.column);
      return s.column.source.kind === 'table' && s.as === s.column.name ? expr : `${expr} AS ${quoteIdent(s.as)}`;
    }
    case 'bucket': {
      const col = compileColumn(s.column);
      // Start of the UTC bucket holding the timestamp (buckets aligned to the Unix epoch).
      return `date_add('millisecond', -mod(to_milliseconds(${col} - TIMESTAMP '1970-01-01 00:00:00.000'), ${s.ms}), ${col}) AS ${quoteIdent(s.as)}`;
    }
    case 'aggregate': {
      const col = s.column ? compileColumn(s.column) : '*';
      const time = s.time ? compileColumn(s.time) : '';
      const expr = (() => {
        switch (s.fn) {
          case 'count':
            return `count(${col})`;
          case 'count_distinct':
            return `count(DISTINCT ${col})`;
          case 'approx_distinct':
          case 'sum':
          case 'avg':
          case 'min':
          case 'max':
            return `${s.fn}(${col})`;
          case 'approx_percentile':
            // Trino would coerce a decimal to real (24-bit mantissa); double keeps cents.
            return `approx_percentile(${s.column && typeFamily(s.column.type) === 'decimal' ? `CAST(${col} AS double)` : col}, ${doubleLiteral(s.p ?? 0.5)})`;
          case 'latest':
            return `max_by(${col}, ${time})`;
          case 'earliest':
            return `min_by(${col}, ${time})`;
          default:
            return assertNever(s.fn, 'aggregate');
        }
      })();
      return `${expr} AS ${quoteIdent(s.as)}`;
    }
    default:
      return assertNever(s, 'select item');
  }
}

/** Types Trino can sort by (maps and json cannot). */
function orderable(c: ColumnNode): boolean {
  return !/\b(map|json)\b/.test(c.type.replace(/\b(row|array)\(/g, ''));
}

function compileOrder(q: QueryNode): string | null {
  const parts = q.order.map((o) => {
    const selected = q.select.some((s) => s.as === o.name);
    const ref = o.column && !selected ? compileColumn(o.column) : quoteIdent(o.name);
    return `${ref} ${o.dir.toUpperCase()}${o.nulls ? ` NULLS ${o.nulls.toUpperCase()}` : ''}`;
  });
  if (q.totalOrder) {
    const dir = q.order[0]?.dir === 'desc' ? ' DESC' : '';
    if (isAggregate(q)) {
      for (const name of q.groupBy) if (!q.order.some((o) => o.name === name)) parts.push(`${quoteIdent(name)}${dir}`);
    } else {
      // Every column of the table breaks ties, so the order is total (identical duplicates are interchangeable).
      for (const c of q.source.columns) {
        if (orderable(c) && !q.order.some((o) => o.name === c.name)) parts.push(`${compileColumn(c)}${dir}`);
      }
    }
  }
  return parts.length ? parts.join(', ') : null;
}

export function compileFrom(q: QueryNode): string {
  const s = q.source;
  return `${quoteIdent(s.catalog)}.${quoteIdent(s.schema)}.${quoteIdent(s.table)}`;
}

/** The full SELECT. Asks for limit + 1 rows: the extra row says whether a next page exists. */
export function compileQuery(q: QueryNode, opts: { extraRow?: boolean } = {}): string {
  const select = q.select.map(compileSelectItem).join(', ');
  const where = compileWhere(q.where);
  let from = compileFrom(q);
  let outerWhere = where;
  if (q.dedupe) {
    const d = q.dedupe;
    const dir = d.keep === 'latest' ? 'DESC' : 'ASC';
    const tie = q.source.columns
      .filter((c) => orderable(c) && c.name !== d.time.name)
      .map((c) => `${compileColumn(c)} ${dir}`);
    const window = `row_number() OVER (PARTITION BY ${d.by.map(compileColumn).join(', ')} ORDER BY ${[`${compileColumn(d.time)} ${dir}`, ...tie].join(', ')})`;
    from = `(SELECT *, ${window} AS ${quoteIdent(DEDUPE_RN)} FROM ${from}${where ? ` WHERE ${where}` : ''})`;
    outerWhere = `${quoteIdent(DEDUPE_RN)} = 1`;
  }
  let sql = `SELECT ${select} FROM ${from}`;
  if (outerWhere) sql += ` WHERE ${outerWhere}`;
  if (q.groupBy.length) {
    const ordinals = q.groupBy.map((name) => {
      const i = q.select.findIndex((s) => s.as === name);
      if (i < 0) throw new Error(`group by ${name} is not selected`);
      return String(i + 1);
    });
    sql += ` GROUP BY ${ordinals.join(', ')}`;
  }
  const order = compileOrder(q);
  if (order) sql += ` ORDER BY ${order}`;
  if (q.offset > 0) sql += ` OFFSET ${q.offset}`;
  // A bulk read (limit=all) has no LIMIT at all.
  if (q.limit !== Infinity) sql += ` LIMIT ${q.limit + (opts.extraRow === false ? 0 : 1)}`;
  return sql;
}

/**
 * For a batch of a named cursor: how many rows the query returns, the broker time of its last row, and how
 * many of its rows share that time. `q` must be ordered by broker time first.
 */
export function compileTailSummary(q: QueryNode, time: ColumnNode): string {
  const inner = compileQuery(
    { ...q, select: [{ kind: 'select-column', column: time, as: '__topicgate_t' }] },
    { extraRow: false },
  );
  const t = quoteIdent('__topicgate_t');
  return `WITH b AS (${inner}) SELECT count(*), max(${t}), count_if(${t} = (SELECT max(${t}) FROM b)) FROM b`;
}

/** How many rows the query's WHERE matches (no order, no paging). */
export function compileCount(q: QueryNode): string {
  const where = compileWhere(q.where);
  return `SELECT count(*) FROM ${compileFrom(q)}${where ? ` WHERE ${where}` : ''}`;
}
