/**
 * Per-type value writers for the text formats, chosen once per column from the parsed Trino type so the row loop
 * makes one call per value and never re-inspects the type. Writers get non-null values (callers write nulls).
 * Text rules (API.md "Rules every response keeps"):
 * - bigint and other integers: exact digits (a JSON number, even beyond 2^53); decimal: its exact text with its
 *   scale (`12.30`), a JSON number; double/real NaN and infinities: the JSON strings "NaN", "Infinity",
 *   "-Infinity" (JSON has no such numbers); CSV writes the same text unquoted.
 * - timestamp(p): ISO-8601 UTC with every fractional digit Trino sent (`2026-11-01T00:00:00.000Z`); with time zone:
 *   converted to UTC (`Z`) when the zone is an offset or a zone name the server knows, else Trino's text.
 * - varbinary: see varbinary-text.ts (JSON / text / `\x` hex). json: embedded as JSON.
 * - array -> JSON array; row -> JSON object keyed by field name (`_col0`, `_col1`... for anonymous fields, as
 *   Trino names unnamed columns); map -> JSON object whose keys are the keys' text. Same rules recursively; in CSV
 *   a nested value is its JSON text.
 * - date, time, interval, uuid, ipaddress, varchar, char: their text. Types this gateway does not know: their
 *   value as Trino's JSON gave it.
 */
import { knownBase, parseTrinoType, rowFields, typeArg, type TrinoBase, type TrinoType } from '../trino/types.js';
import { jsonTypeText, varbinaryCell, varbinaryJson, varbinaryToJson, varbinaryToText } from './varbinary-text.js';
import { timestampToIso, timestampTzToIso } from './timestamp-text.js';

/** Writes one non-null value as text (JSON text for JSON writers, unquoted cell text for CSV writers). */
export type ValueWriter = (value: unknown) => string;

/** A top-level column's writer: text, or bytes to copy to the output as they are (a varbinary's JSON payload). */
export type CellWriter = (value: unknown) => string | Uint8Array;

const INTEGER = /^-?\d+$/;
const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/** Parses a column's type text; text that is not a type is treated as an unknown type, never an error. */
export function columnType(text: string): TrinoType {
  try {
    return parseTrinoType(text);
  } catch {
    return { base: text, args: [] };
  }
}

const str: ValueWriter = (v) => JSON.stringify(typeof v === 'string' ? v : String(v));
const generic: ValueWriter = (v) => (typeof v === 'number' ? floatJson(v) : (JSON.stringify(v) ?? 'null'));

function intJson(v: unknown): string {
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : JSON.stringify(String(v));
  const s = String(v);
  return INTEGER.test(s) ? s : JSON.stringify(s); // exact digits as a JSON number; anything odd stays a string
}

function floatJson(v: unknown): string {
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : JSON.stringify(String(v));
  const s = String(v);
  return JSON_NUMBER.test(s) ? s : JSON.stringify(s); // "NaN", "Infinity", "-Infinity" stay strings
}

const SCALAR_JSON = {
  boolean: (v) => (v === true || v === 'true' ? 'true' : 'false'),
  tinyint: intJson,
  smallint: intJson,
  integer: intJson,
  bigint: intJson,
  real: floatJson,
  double: floatJson,
  decimal: floatJson, // "12.30" is already a JSON number literal with its scale
  varchar: str,
  char: str,
  varbinary: (v) => varbinaryToJson(String(v)),
  json: (v) => jsonTypeText(String(v)) ?? str(v),
  date: str,
  time: str,
  'time with time zone': str,
  timestamp: (v) => JSON.stringify(timestampToIso(String(v))),
  'timestamp with time zone': (v) => JSON.stringify(timestampTzToIso(String(v))),
  'interval day to second': str,
  'interval year to month': str,
  uuid: str,
  ipaddress: str,
  unknown: generic,
} satisfies Record<Exclude<TrinoBase, 'array' | 'map' | 'row'>, ValueWriter>;

/** The JSON writer for a Trino type (recursing into arrays, maps and rows). */
export function jsonValueWriter(type: TrinoType): ValueWriter {
  const base = knownBase(type);
  switch (base) {
    case null:
      return generic;
    case 'array':
      return arrayJson(jsonValueWriter(typeArg(type, 0)));
    case 'map':
      return mapJson(csvValueWriter(typeArg(type, 0)), jsonValueWriter(typeArg(type, 1)));
    case 'row':
      return rowJson(type);
    default:
      return SCALAR_JSON[base];
  }
}

function arrayJson(element: ValueWriter): ValueWriter {
  return (v) => {
    if (!Array.isArray(v)) return generic(v);
    let s = '[';
    for (let i = 0; i < v.length; i++) {
      const x: unknown = v[i];
      s += (i === 0 ? '' : ',') + (x === null || x === undefined ? 'null' : element(x));
    }
    return s + ']';
  };
}

function mapJson(key: ValueWriter, value: ValueWriter): ValueWriter {
  return (v) => {
    if (v === null || typeof v !== 'object') return generic(v);
    const entries = v instanceof Map ? [...v.entries()] : Object.entries(v);
    let s = '{';
    for (let i = 0; i < entries.length; i++) {
      const [k, x] = entries[i]!;
      s += (i === 0 ? '' : ',') + JSON.stringify(key(k)) + ':' + (x === null || x === undefined ? 'null' : value(x));
    }
    return s + '}';
  };
}

function rowJson(type: TrinoType): ValueWriter {
  const fields = rowFields(type);
  const keys = fields.map((f, i) => (i === 0 ? '{' : ',') + JSON.stringify(f.name ?? `_col${i}`) + ':');
  const writers = fields.map((f) => jsonValueWriter(f.type));
  return (v) => {
    if (!Array.isArray(v)) return generic(v);
    if (keys.length === 0) return '{}';
    let s = '';
    for (let i = 0; i < keys.length; i++) {
      const x: unknown = v[i];
      s += keys[i]! + (x === null || x === undefined ? 'null' : writers[i]!(x));
    }
    return s + '}';
  };
}

const text: ValueWriter = (v) => (typeof v === 'string' ? v : String(v));

/** The CSV cell writer for a Trino type (unquoted text; nested values are their JSON text). */
export function csvValueWriter(type: TrinoType): ValueWriter {
  const base = knownBase(type);
  switch (base) {
    case null:
    case 'unknown':
      return (v) => (typeof v === 'string' ? v : generic(v));
    case 'array':
    case 'map':
    case 'row':
      return jsonValueWriter(type);
    case 'boolean':
      return (v) => (v === true || v === 'true' ? 'true' : 'false');
    case 'varbinary':
      return (v) => varbinaryToText(String(v));
    case 'json':
      return (v) => jsonTypeText(String(v)) ?? String(v);
    case 'timestamp':
      return (v) => timestampToIso(String(v));
    case 'timestamp with time zone':
      return (v) => timestampTzToIso(String(v));
    default:
      return text;
  }
}

/** The writer for a top-level column in JSON/NDJSON: a varbinary's JSON payload comes back as its own bytes. */
export function jsonCellWriter(type: TrinoType): CellWriter {
  return knownBase(type) === 'varbinary' ? (v) => varbinaryJson(String(v)) : jsonValueWriter(type);
}

/** The writer for a top-level column in CSV: a varbinary's JSON payload comes back as its own bytes. */
export function csvCellWriter(type: TrinoType): CellWriter {
  return knownBase(type) === 'varbinary' ? (v) => varbinaryCell(String(v)) : csvValueWriter(type);
}
