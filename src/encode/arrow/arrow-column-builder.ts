/**
 * Trino type -> Arrow type and column builder, chosen once per column (API.md: "Arrow carries varbinary as
 * Binary", BIGINT as Int64, timestamps as Arrow timestamps):
 * varbinary Binary (exact bytes); varchar, char, json Utf8; bigint Int64; integer Int32; smallint Int16;
 * tinyint Int8; double Float64; real Float32 (NaN/Infinity as IEEE values); boolean Bool; decimal(p,s)
 * Decimal128(p,s); timestamp(p) and timestamp(p) with time zone: Timestamp in UTC, unit ms for p<=3, us for p<=6,
 * ns above (digits past ns, p 10-12, are truncated; a zone the runtime cannot resolve fails the stream rather
 * than guess an instant); date DateDay; array List; row Struct; map Map_.
 * time, interval, uuid, ipaddress: Utf8 of Trino's text; a decoded Avro enum (`enum(...)`): Dictionary<Int32, Utf8>.
 * Any other type: Utf8 of its JSON text.
 */
import {
  Binary,
  Bool,
  DateDay,
  Decimal,
  Field,
  Float32,
  Float64,
  Int16,
  Int32,
  Int64,
  Int8,
  List,
  Map_,
  Struct,
  Timestamp,
  TimeUnit,
  Utf8,
} from 'apache-arrow';
import { knownBase, longArg, rowFields, typeArg, type TrinoBase, type TrinoType } from '../../core/trino-types.js';
import { parseTimestamp, TimestampTzParser, type Instant } from '../../core/trino-timestamp.js';
import { BoolBuilder, BytesBuilder, Int64Builder, NumberBuilder, type ColumnBuilder } from './arrow-columns.js';
import { DecimalBuilder } from './arrow-decimal.js';
import { DictionaryBuilder, enumSymbols } from './arrow-dictionary.js';
import { ListBuilder, MapBuilder, StructBuilder } from './arrow-nested.js';
import { instantToUnits, TimestampUnits } from './timestamp-units.js';

const INTEGER = /^[+-]?\d+$/;

function toNumber(v: unknown): number {
  return typeof v === 'number' ? v : Number(v); // "NaN", "Infinity", "-Infinity" and map keys ("1") parse
}

function toInt64(v: unknown): number | bigint {
  if (typeof v === 'number') return v;
  const s = String(v);
  if (!INTEGER.test(s)) throw new RangeError(`not a bigint: ${s}`);
  const n = Number(s);
  return Number.isSafeInteger(n) ? n : BigInt(s);
}

function toJsonText(v: unknown): string {
  return typeof v === 'string' ? v : (JSON.stringify(v) ?? 'null');
}

const utf8 = (): ColumnBuilder => new BytesBuilder(new Utf8(), 'utf8', toJsonText);

function timestamp(type: TrinoType, parse: (text: string) => Instant | null): ColumnBuilder {
  const p = longArg(type, 0, 3); // Trino's default precision for `timestamp` is 3
  const [unit, digits] =
    p <= 3 ? [TimeUnit.MILLISECOND, 3] : p <= 6 ? [TimeUnit.MICROSECOND, 6] : [TimeUnit.NANOSECOND, 9];
  // The fast path returns a safe integer only: nanoseconds since 1970 pass 2^53 in April 1970, so for them it
  // would parse every value twice.
  const fast = parse === parseTimestamp && digits < 9 ? new TimestampUnits() : null;
  return new Int64Builder(new Timestamp(unit, 'UTC'), (v) => {
    if (fast !== null && typeof v === 'string') {
      const units = fast.read(v, digits); // the usual layout, without intermediate objects
      if (units !== null) return units;
    }
    const instant = parse(String(v));
    if (instant === null) throw new RangeError(`not a ${type.base}: ${String(v)}`);
    return instantToUnits(instant, digits);
  });
}

function dateDays(v: unknown): number {
  const instant = parseTimestamp(String(v) + ' 00:00:00');
  if (instant === null) throw new RangeError(`not a date: ${String(v)}`);
  return instant.seconds / 86400;
}

const BUILDERS = {
  boolean: () => new BoolBuilder(new Bool()),
  tinyint: () => new NumberBuilder(new Int8(), Int8Array, toNumber),
  smallint: () => new NumberBuilder(new Int16(), Int16Array, toNumber),
  integer: () => new NumberBuilder(new Int32(), Int32Array, toNumber),
  bigint: () => new Int64Builder(new Int64(), toInt64),
  real: () => new NumberBuilder(new Float32(), Float32Array, toNumber),
  double: () => new NumberBuilder(new Float64(), Float64Array, toNumber),
  decimal: (t) => new DecimalBuilder(new Decimal(longArg(t, 1, 0), longArg(t, 0, 38), 128)),
  varchar: utf8,
  char: utf8,
  varbinary: () => new BytesBuilder(new Binary(), 'base64', String),
  json: utf8,
  date: () => new NumberBuilder(new DateDay(), Int32Array, dateDays),
  time: utf8,
  'time with time zone': utf8,
  timestamp: (t) => timestamp(t, parseTimestamp),
  'timestamp with time zone': (t) => {
    const parser = new TimestampTzParser();
    return timestamp(t, (text) => parser.parse(text));
  },
  'interval day to second': utf8,
  'interval year to month': utf8,
  uuid: utf8,
  ipaddress: utf8,
  unknown: utf8,
  array: (t) => {
    const child = arrowColumnBuilder(typeArg(t, 0));
    return new ListBuilder(new List(new Field('item', child.type, true)), child);
  },
  row: (t) => {
    const children = rowFields(t).map((f) => arrowColumnBuilder(f.type));
    const fields = rowFields(t).map((f, i) => new Field(f.name ?? `_col${i}`, children[i]!.type, true));
    return new StructBuilder(new Struct(fields), children);
  },
  map: (t) => {
    const keys = arrowColumnBuilder(typeArg(t, 0));
    const values = arrowColumnBuilder(typeArg(t, 1));
    const entries = new Struct([new Field('key', keys.type, false), new Field('value', values.type, true)]);
    return new MapBuilder(new Map_(new Field('entries', entries, false)), keys, values);
  },
} satisfies Record<TrinoBase, (type: TrinoType) => ColumnBuilder>;

/** The Arrow column builder (and so the Arrow type) for a Trino type; unknown types become Utf8. */
export function arrowColumnBuilder(type: TrinoType): ColumnBuilder {
  // A decoded Avro enum: a dictionary of its symbols (arrow-dictionary.ts).
  if (type.base === 'enum' && type.args[0]?.kind === 'type') return new DictionaryBuilder(enumSymbols(type));
  const base = knownBase(type);
  return base === null ? utf8() : BUILDERS[base](type);
}
