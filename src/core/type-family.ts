/**
 * What a Trino type text means to the gateway, read from its parsed form (trino-types.ts): the value family a
 * request value is checked against, the parts of nested types, precision and scale, and whether Trino can sort it.
 * Texts are parsed once and cached: a column's type text is read many times per request.
 */
import { formatTrinoType, longArg, parseTrinoType, type TrinoType } from './trino-types.js';

const parsed = new Map<string, TrinoType>();
const MAX_CACHED = 4096;

/** The parsed type of `text`; text that is not a type is an unknown type of that name, never an error. */
export function trinoTypeOf(text: string): TrinoType {
  let t = parsed.get(text);
  if (t) return t;
  try {
    t = parseTrinoType(text);
  } catch {
    t = { base: text, args: [] };
  }
  if (parsed.size >= MAX_CACHED) parsed.clear();
  parsed.set(text, t);
  return t;
}

/** The family a Trino type belongs to, for deciding which values and operators apply. */
export type TypeFamily =
  'varchar' | 'varbinary' | 'integer' | 'decimal' | 'double' | 'boolean' | 'timestamp' | 'date' | 'other';

const FAMILIES: Readonly<Record<string, TypeFamily>> = {
  varchar: 'varchar',
  char: 'varchar',
  // A decoded Avro enum (blob/avro/avro-shape.ts): its symbol as text.
  enum: 'varchar',
  varbinary: 'varbinary',
  tinyint: 'integer',
  smallint: 'integer',
  integer: 'integer',
  bigint: 'integer',
  decimal: 'decimal',
  double: 'double',
  real: 'double',
  boolean: 'boolean',
  timestamp: 'timestamp',
  date: 'date',
};

export function typeFamily(type: string): TypeFamily {
  return FAMILIES[trinoTypeOf(type).base] ?? 'other';
}

/** The type parameter `index` of a `base` type, as text; null for any other type. */
function part(type: string, base: string, index: number): string | null {
  const t = trinoTypeOf(type);
  const arg = t.base === base ? t.args[index] : undefined;
  return arg?.kind === 'type' ? formatTrinoType(arg.type) : null;
}

/** `array(T)` -> `T`; null for any other type. */
export function arrayElementType(type: string): string | null {
  return part(type, 'array', 0);
}

/** `map(varchar, T)` -> `T`; null for any other type (a decoded Avro map has text keys). */
export function mapValueType(type: string): string | null {
  const t = trinoTypeOf(type);
  const key = t.args[0];
  return key?.kind === 'type' && key.type.base === 'varchar' ? part(type, 'map', 1) : null;
}

/** The named fields of `row(name type, ...)`, in order; null for any other type. */
export function rowFieldsOf(type: string): { name: string; type: string }[] | null {
  const t = trinoTypeOf(type);
  if (t.base !== 'row') return null;
  return t.args.flatMap((a) =>
    a.kind === 'type' && a.name !== undefined ? [{ name: a.name, type: formatTrinoType(a.type) }] : [],
  );
}

/** The type of the field `name` of `row(name type, ...)`; null when the row has no such field. */
export function rowFieldType(type: string, name: string): string | null {
  return rowFieldsOf(type)?.find((f) => f.name === name)?.type ?? null;
}

/** Precision of a timestamp(p) type, with or without time zone; 3 when unspecified. */
export function timestampPrecision(type: string): number {
  const t = trinoTypeOf(type);
  return isTimestamp(type) ? longArg(t, 0, 3) : 3;
}

/** Precision and scale of a decimal(p, s) type; (38, 0) when unspecified. */
export function decimalDigits(type: string): { precision: number; scale: number } {
  const t = trinoTypeOf(type);
  return t.base === 'decimal' ? { precision: longArg(t, 0, 38), scale: longArg(t, 1, 0) } : { precision: 38, scale: 0 };
}

/** A timestamp, with or without time zone (the broker time column's type). */
export function isTimestamp(type: string): boolean {
  const { base } = trinoTypeOf(type);
  return base === 'timestamp' || base === 'timestamp with time zone';
}

/**
 * Whether Trino can sort by the type (ORDER BY, and the columns that make a total order): a map or json never,
 * an array when its element can be, a row when all its fields can be.
 */
export function orderable(type: string): boolean {
  return orderableType(trinoTypeOf(type));
}

function orderableType(t: TrinoType): boolean {
  if (t.base === 'map' || t.base === 'json') return false;
  if (t.base === 'array' || t.base === 'row') return t.args.every((a) => a.kind !== 'type' || orderableType(a.type));
  return true;
}

/** A type as the text formats and discovery name it: every enum as `varchar` (what its values are there). */
export function enumsAsText(type: string): string {
  const t = trinoTypeOf(type);
  return hasEnum(t) ? formatTrinoType(withoutEnums(t)) : type;
}

function hasEnum(t: TrinoType): boolean {
  return t.base === 'enum' || t.args.some((a) => a.kind === 'type' && hasEnum(a.type));
}

function withoutEnums(t: TrinoType): TrinoType {
  if (t.base === 'enum') return { base: 'varchar', args: [] };
  return { base: t.base, args: t.args.map((a) => (a.kind === 'type' ? { ...a, type: withoutEnums(a.type) } : a)) };
}
