/**
 * Whole queries from a tree: the SELECT of a page (with dedupe, grouping, total order, offset and the look-ahead
 * row), a cursor batch's summary and a count. Every column, predicate and literal is compiled by compile.ts.
 */
import { assertNever } from '../../core/errors.js';
import type { ColumnNode, QueryNode, SelectNode } from '../tree/nodes.js';
import { isAggregate } from '../tree/nodes.js';
import { doubleLiteral, quoteIdent } from './sql-text.js';
import { orderable, typeFamily } from '../../core/type-family.js';
import { compileColumn, compileWhere } from './compile.js';

const DEDUPE_RN = '__topicgate_rn';

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
        if (orderable(c.type) && !q.order.some((o) => o.name === c.name)) parts.push(`${compileColumn(c)}${dir}`);
      }
    }
  }
  return parts.length ? parts.join(', ') : null;
}

function compileFrom(q: QueryNode): string {
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
      .filter((c) => orderable(c.type) && c.name !== d.time.name)
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
