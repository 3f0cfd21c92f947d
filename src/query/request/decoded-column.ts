/**
 * Fields of a decoded Avro key or value as columns (API.md "Schema Registry payloads"): `value.amount`,
 * `value.customer.country`, or as an arrow path `value->customer->country`. A field is typed by the reader schema
 * (its Trino type, blob/avro/avro-shape.ts), so filters take typed values and aggregates check their field as they do
 * for any column; the post-decode stage evaluates it (passes/post-decode-split.ts). Steps go into records by field
 * name, into arrays by a 0-based index and into maps by key. `->>` reads the same typed value as `->` (an Avro field
 * has a type; there is no JSON text to unquote).
 */
import { ApiError } from '../../core/errors.js';
import type { ColumnNode } from '../tree/nodes.js';
import { MAX_PATH_STEPS, refText, type ColumnRef } from './column-ref.js';
import { arrayElementType, enumsAsText, mapValueType, rowFieldsOf } from '../../core/type-family.js';
import type { TopicModel } from '../tree/topic-model.js';

export type DecodedBase = 'key' | 'value';

/** The type one step into `type`, or why there is none. */
function step(type: string, key: string | number): string | { why: string } {
  const fields = rowFieldsOf(type);
  if (fields) {
    const f = typeof key === 'string' ? fields.find((x) => x.name === key) : undefined;
    return f
      ? f.type
      : { why: `has no field ${JSON.stringify(key)} (fields: ${fields.map((x) => x.name).join(', ')})` };
  }
  const element = arrayElementType(type);
  if (element !== null) {
    return typeof key === 'number' ? element : { why: `is an array: step into it with an index (->0)` };
  }
  const value = mapValueType(type);
  if (value !== null) return String(key) === key ? value : { why: 'is a map: step into it with a key' };
  return { why: `(${enumsAsText(type)}) has no fields` };
}

/** The decoded field at `path` of `base`; a path the reader schema does not have is a 400 naming the step. */
export function decodedColumn(
  base: DecodedBase,
  baseType: string,
  path: readonly (string | number)[],
  arrow: boolean,
): ColumnNode {
  if (path.length > MAX_PATH_STEPS) {
    throw new ApiError('TG_BAD_REQUEST', `${base}: a path may have at most ${MAX_PATH_STEPS} steps`, {
      column: base,
      maxSteps: MAX_PATH_STEPS,
    });
  }
  const name = arrow ? refText({ name: base, path: [...path], text: false }) : [base, ...path.map(String)].join('.');
  let type = baseType;
  let at: string = base;
  for (const key of path) {
    const next = step(type, key);
    if (typeof next !== 'string') {
      throw new ApiError('TG_UNKNOWN_COLUMN', `${name}: the decoded ${at} ${next.why}`, { column: name });
    }
    type = next;
    at = `${at}.${key}`;
  }
  return { kind: 'column', name, type, source: { kind: 'decoded', column: base, path, arrow } };
}

/**
 * A request's reference to a decoded field, or null when it names none: an arrow path from a decoded column, or a
 * dotted name (`value.customer.country`) whose first part is one and which no column has as its name.
 */
export function decodedRef(
  decoded: ReadonlyMap<DecodedBase, string> | undefined,
  text: string,
  ref: ColumnRef,
): ColumnNode | null {
  if (!decoded) return null;
  const arrowBase = decoded.get(ref.name as DecodedBase);
  if (ref.path.length && arrowBase !== undefined)
    return decodedColumn(ref.name as DecodedBase, arrowBase, ref.path, true);
  // A dotted name, as written or double-quoted (in `or=(...)` and `order=` a `.` ends an unquoted reference).
  if (ref.path.length || !ref.name.includes('.') || text.includes('->')) return null;
  const [first, ...rest] = ref.name.split('.');
  const baseType = decoded.get(first as DecodedBase);
  if (baseType === undefined || rest.some((k) => k === '')) return null;
  return decodedColumn(
    first as DecodedBase,
    baseType,
    rest.map((k) => (/^\d{1,9}$/.test(k) ? Number(k) : k)),
    false,
  );
}

/** True when the column is a decoded field (evaluated by the post-decode stage, never in SQL). */
export const isDecoded = (c: ColumnNode | null | undefined): boolean => c?.source.kind === 'decoded';

/**
 * A dotted name into an Avro key or value that this request has not decoded (cursors; `decode=false`): a 400 that
 * says so, instead of an unknown column.
 */
export function undecodedField(topic: Pick<TopicModel, 'columns' | 'decoded'>, text: string): void {
  const base = text.split('.')[0]!;
  const column = topic.columns.get(base);
  if (topic.decoded || !text.includes('.') || column?.source.kind !== 'table' || column.source.framed !== 'avro')
    return;
  throw new ApiError(
    'TG_BAD_REQUEST',
    `${text}: decoded ${base} fields are columns only in reads that decode (GET or POST on /events and /query); ` +
      `cursor filters and decode=false reads see the stored bytes`,
    { column: text },
  );
}
