/**
 * Ad-hoc JSON paths as columns: `value->customer->>country` is a ColumnNode whose source is the path
 * into a JSON-holding column, so filters, select, order, groupBy and aggregates treat it like any expanded field,
 * and the compiler renders it through sql-text.ts with the same safety (not UTF-8, not JSON, missing or mistyped:
 * NULL, never a failed query). `->>` gives text (varchar), `->` gives JSON. Compared with a number or a time, the
 * path is read as the literal's type (PostgREST compares `->` as jsonb, where a number is a number; a text
 * comparison of numbers would order 10 before 9). A row policy's claim is not a request's value: it compares as
 * text unless the policy says `|number` (buildPredicate's `pathAs`, access/row-filter.ts).
 */
import { ApiError, assertNever } from '../../core/errors.js';
import { OPERANDS, type FilterOp } from './filter-operators.js';
import type { ColumnNode } from '../tree/nodes.js';
import { refText, type ColumnRef } from './column-ref.js';
import { trinoTypeOf, typeFamily } from '../../core/type-family.js';

/** Builds the path column over `base`; a base that cannot hold JSON text is a 400 naming it. */
export function jsonPathColumn(base: ColumnNode, ref: ColumnRef): ColumnNode {
  const family = typeFamily(base.type);
  if (family !== 'varbinary' && family !== 'varchar' && trinoTypeOf(base.type).base !== 'json') {
    throw new ApiError(
      'TG_BAD_REQUEST',
      `${refText(ref)}: ${base.name} (${base.type}) holds no JSON text; arrow paths apply to varbinary (value, key), varchar and json columns`,
      { column: base.name },
    );
  }
  if (base.source.kind === 'table' && base.source.framed === 'avro') {
    throw new ApiError(
      'TG_BAD_REQUEST',
      `${refText(ref)}: ${base.name} holds Avro, not JSON; its decoded fields are in the ${base.name} column of each response`,
      { column: base.name },
    );
  }
  return {
    kind: 'column',
    name: refText(ref),
    type: ref.text ? 'varchar' : 'json',
    source: { kind: 'json-path', base, path: ref.path, text: ref.text },
  };
}

const NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;
const INSTANT = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/i;

/** The type a request value gives a comparison with a path: double for a number, timestamp for an instant, else text. */
function valueType(v: unknown): string {
  if (typeof v === 'number') return 'double';
  if (typeof v !== 'string') return 'varchar';
  if (NUMBER.test(v)) return 'double';
  return INSTANT.test(v) ? 'timestamp(3)' : 'varchar';
}

/** One type for a list: all numbers, all instants, or text. */
function listType(values: readonly unknown[]): string {
  const types = new Set(values.map(valueType));
  return types.size === 1 ? [...types][0]! : 'varchar';
}

/** The path read as `type` (the compiler casts it with try_cast: a mistyped field is NULL). */
export function retype(c: ColumnNode, type: string): ColumnNode {
  return c.type === type ? c : { ...c, type };
}

/**
 * The path column as an operator and its value(s) need it: comparisons take the literal's type, text operators
 * take text, `is.true|false|unknown` a boolean, and array operators an array of the values' type.
 */
export function pathColumnFor(c: ColumnNode, op: FilterOp, value: unknown): ColumnNode {
  if (c.source.kind !== 'json-path') return c;
  const operand = OPERANDS[op];
  switch (operand) {
    case 'value':
      return retype(c, valueType(value));
    case 'paren-list':
      return retype(c, Array.isArray(value) ? listType(value) : 'varchar');
    case 'pattern':
      return retype(c, 'varchar');
    case 'is-word': {
      const what = String(value).toLowerCase();
      return what === 'true' || what === 'false' || what === 'unknown' ? retype(c, 'boolean') : c;
    }
    case 'brace-list':
      return retype(
        c,
        `array(${Array.isArray(value) && value.length && listType(value) === 'double' ? 'double' : 'varchar'})`,
      );
    default:
      return assertNever(operand, 'operand');
  }
}

/** Aggregates: numeric functions read the path as a number; the rest compare JSON as its text. */
export function pathColumnForAggregate(c: ColumnNode, fn: string): ColumnNode {
  if (c.source.kind !== 'json-path') return c;
  if (fn === 'sum' || fn === 'avg' || fn === 'approx_percentile') return retype(c, 'double');
  if (fn === 'latest' || fn === 'earliest' || fn === 'count') return c;
  return retype(c, 'varchar');
}
