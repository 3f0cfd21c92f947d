/**
 * The functions of the SQL subset: the `/query` aggregates (API.md "Aggregation") under their SQL names, and the
 * time buckets of timestamp_broker. `count(DISTINCT x)` is count_distinct; Trino's `max_by(x, timestamp_broker)` and
 * `min_by(x, timestamp_broker)` are latest and earliest (also callable by those names). Any other function is refused
 * by name.
 */
import { durationMs } from '../../core/duration.js';
import type { AggregateSpec } from '../tree/read-specs.js';
import { shown, type SqlRefusals } from './sql-error.js';
import type { ValueExpr } from './statement-ast.js';

export type ColumnExpr = Extract<ValueExpr, { k: 'column' }>;
export type CallExpr = Extract<ValueExpr, { k: 'call' }>;

/** What the translation knows of the statement's names (parse-statement.ts). */
export interface Fields {
  /** The body's reference to the column: qualifier dropped, quoted when the body's grammar needs it. */
  field(c: ColumnExpr): string;
  /** The name the body gives the column's output. */
  name(c: ColumnExpr): string;
  /** True when the name parts are the FROM table (its name, schema.name or alias). */
  isTable(qualifier: readonly string[]): boolean;
}

export interface Bucket {
  /** A duration of the body's grammar: `1h`, `15m`. */
  width: string;
  at: number;
}

/** `date_trunc` units and their epoch-aligned bucket (calendar weeks, months and years are not epoch-aligned). */
const TRUNC_UNITS: Readonly<Record<string, string>> = {
  millisecond: '1ms',
  second: '1s',
  minute: '1m',
  hour: '1h',
  day: '1d',
};

const ONE_COLUMN = ['sum', 'avg', 'min', 'max', 'approx_distinct', 'latest', 'earliest'] as const;
const BY_TIME = { max_by: 'latest', min_by: 'earliest' } as const;

/** The functions a statement may call, for messages and for what a server says it supports. */
export const SQL_FUNCTIONS = ['count', ...ONE_COLUMN, 'approx_percentile', 'max_by', 'min_by', 'date_trunc', 'bucket'];

const TIME = 'timestamp_broker';

/** A time bucket call (`date_trunc('hour', timestamp_broker)`, `bucket('15m', timestamp_broker)`), or null. */
export function bucketOf(call: CallExpr, refuse: SqlRefusals, fields: Fields): Bucket | null {
  if (call.name !== 'date_trunc' && call.name !== 'bucket') return null;
  const [first, column, ...rest] = call.args;
  const shape = `${call.name}('<${call.name === 'bucket' ? 'width' : 'unit'}>', ${TIME})`;
  if (first?.k !== 'literal' || first.lit.t !== 'string' || column?.k !== 'column' || rest.length || call.distinct) {
    throw refuse.malformed(`${call.name} takes ${shape}`, { offset: call.at });
  }
  if (fields.name(column) !== TIME) {
    throw refuse.notInSubset(
      `A time bucket of ${shown(fields.name(column))}`,
      { offset: column.at },
      `buckets are of ${TIME}`,
    );
  }
  const text = first.lit.v.toLowerCase();
  const width = call.name === 'date_trunc' ? TRUNC_UNITS[text] : text;
  const ms = width === undefined ? undefined : durationMs(width);
  if (width === undefined || ms === undefined || ms < 1 || ms > 366 * 86_400_000) {
    const hint =
      call.name === 'date_trunc'
        ? `buckets are epoch-aligned: ${Object.keys(TRUNC_UNITS).join(', ')}; or bucket('<n>m|h|d', ${TIME})`
        : 'a width from 1ms to 366d: 500ms, 30s, 15m, 1h, 7d';
    throw refuse.notInSubset(`${shape.replace(/<\w+>/, first.lit.v.slice(0, 40))}`, { offset: first.at }, hint);
  }
  return { width, at: call.at };
}

/** The aggregate a call names, or a refusal naming the function. */
export function aggregateOf(call: CallExpr, refuse: SqlRefusals, fields: Fields): AggregateSpec {
  const { name, args } = call;
  const column = (i: number): string => {
    const a = args[i];
    if (a?.k !== 'column') throw refuse.malformed(`${name}() takes a column`, { offset: a?.at ?? call.at });
    return fields.field(a);
  };
  if (call.distinct && name !== 'count') {
    throw refuse.notInSubset(`${name}(DISTINCT ...)`, { offset: call.at }, 'count(DISTINCT column) counts values');
  }
  const arity = (n: number) => {
    if (args.length !== n || call.star) throw refuse.malformed(`${name}() takes ${n} argument(s)`, { offset: call.at });
  };
  if (name === 'count') {
    if (call.star && call.distinct) throw refuse.malformed('count(DISTINCT *) counts no column', { offset: call.at });
    if (call.star || (args.length === 1 && args[0]!.k === 'literal' && !call.distinct)) return { fn: 'count' };
    arity(1);
    return { fn: call.distinct ? 'count_distinct' : 'count', field: column(0) };
  }
  if ((ONE_COLUMN as readonly string[]).includes(name)) {
    arity(1);
    return { fn: name as (typeof ONE_COLUMN)[number], field: column(0) };
  }
  if (name === 'max_by' || name === 'min_by') {
    arity(2);
    const by = args[1]!;
    if (by.k !== 'column' || fields.name(by) !== TIME) {
      throw refuse.notInSubset(
        `${name}() by another column than ${TIME}`,
        { offset: by.at },
        `use ${name}(x, ${TIME})`,
      );
    }
    return { fn: BY_TIME[name], field: column(0) };
  }
  if (name === 'approx_percentile') return percentile(call, refuse, column);
  throw refuse.notInSubset(
    `The function ${name}()`,
    { offset: call.at },
    `the functions are ${SQL_FUNCTIONS.join(', ')}`,
  );
}

function percentile(call: CallExpr, refuse: SqlRefusals, column: (i: number) => string): AggregateSpec {
  const p = call.args[1];
  const value = p?.k === 'literal' && p.lit.t === 'number' ? Number(p.lit.v) : NaN;
  if (call.args.length !== 2 || !(value > 0 && value < 1)) {
    throw refuse.malformed('approx_percentile takes (column, p) with p a number between 0 and 1', {
      offset: p?.at ?? call.at,
    });
  }
  return { fn: 'approx_percentile', field: column(0), p: value };
}
