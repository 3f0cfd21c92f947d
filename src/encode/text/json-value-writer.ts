/**
 * Per-type value writers for the text formats, chosen once per column from the parsed Trino type so the row loop
 * makes one call per value and never re-inspects the type. Writers get non-null values (callers write nulls).
 * This file has the JSON writers (also those of NDJSON, and of nested values in CSV); csv-value-writer.ts the CSV
 * ones. A writer that keeps scratch state (a JSON scanner) owns it: writers are made per encoder, never shared.
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
 * Writers write straight into the page (PageBuffer): no string per value on the common paths (plain text, bytes,
 * timestamps, nested arrays and rows), since allocation (GC) was a quarter of the encoders' time.
 */
import { Buffer } from 'node:buffer';
import { knownBase, rowFields, typeArg, type TrinoBase, type TrinoType } from '../../core/trino-types.js';
import { JsonScanner } from './validating-json-scanner.js';
import { jsonTypeText, writeJsonTypeJson } from './json-type-text.js';
import { PageBuffer } from './page-buffer.js';
import { TimestampTzParser } from '../../core/trino-timestamp.js';
import { timestampToIso, timestampTzToIso, writeIsoTimestamp } from './timestamp-text.js';
import { VarbinaryText } from './varbinary-text.js';

/**
 * Writes one non-null value into a page: its JSON text (JSON writers), or its whole CSV field, quoted as RFC 4180
 * requires (CSV writers). Callers write nulls.
 */
export type ValueWriter = (value: unknown, out: PageBuffer) => void;

/** One non-null value as text (map keys: a JSON object's keys are the keys' text). */
type TextWriter = (value: unknown) => string;

const INTEGER = /^-?\d+$/;
const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/** A value as a string (Trino sends most scalars as strings already). */
export const asString = (v: unknown): string => (typeof v === 'string' ? v : String(v));
/** A value of a type this gateway does not know: as Trino's JSON gave it (numbers as floatJson does). */
export const generic: TextWriter = (v) => (typeof v === 'number' ? floatJson(v) : (JSON.stringify(v) ?? 'null'));

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

/** ASCII bytes that go into a JSON string as they are (no `"`, `\` or control character). */
const JSON_PLAIN = Uint8Array.from({ length: 128 }, (_, c) => (c >= 0x20 && c !== 0x22 && c !== 0x5c ? 1 : 0));

/** Writes text as a JSON string (as JSON.stringify would), copying plain ASCII text without any string made. */
function writeJsonString(out: PageBuffer, s: string): void {
  const n = s.length;
  out.ensure(n + 2);
  const b = out.bytes;
  let e = out.end;
  b[e++] = 0x22;
  for (let k = 0; k < n; k++) {
    const c = s.charCodeAt(k);
    if (c >= 0x80 || JSON_PLAIN[c] === 0) {
      out.write(JSON.stringify(s)); // nothing committed yet
      return;
    }
    b[e++] = c;
  }
  b[e++] = 0x22;
  out.end = e;
}

const timestampJson: ValueWriter = (v, out) => {
  const s = asString(v);
  if (!writeIsoTimestamp(out, s, JSON_PLAIN, true)) out.write(JSON.stringify(timestampToIso(s)));
};

const strJson: ValueWriter = (v, out) => writeJsonString(out, asString(v));
const genericJson: ValueWriter = (v, out) => out.write(generic(v));
const intJsonWriter: ValueWriter = (v, out) =>
  typeof v === 'number' ? out.writeAscii(intJson(v)) : out.write(intJson(v));
const floatJsonWriter: ValueWriter = (v, out) =>
  typeof v === 'number' ? out.writeAscii(floatJson(v)) : out.write(floatJson(v));

const booleanJson: ValueWriter = (v, out) => out.writeAscii(v === true || v === 'true' ? 'true' : 'false');

function varbinaryJson(): ValueWriter {
  const varbinary = new VarbinaryText();
  return (v, out) => varbinary.writeJson(out, asString(v));
}

function timestampTzJson(): ValueWriter {
  const parser = new TimestampTzParser();
  return (v, out) => out.write(JSON.stringify(timestampTzToIso(String(v), parser)));
}

function jsonTypeJson(): ValueWriter {
  const scanner = new JsonScanner();
  return (v, out) => writeJsonTypeJson(out, asString(v), scanner);
}

/** The JSON writer of each scalar type, made once per column (some own scratch state: a scanner, a zone memo). */
const SCALAR_JSON = {
  boolean: () => booleanJson,
  tinyint: () => intJsonWriter,
  smallint: () => intJsonWriter,
  integer: () => intJsonWriter,
  bigint: () => intJsonWriter,
  real: () => floatJsonWriter,
  double: () => floatJsonWriter,
  decimal: () => floatJsonWriter, // "12.30" is already a JSON number literal with its scale
  varchar: () => strJson,
  char: () => strJson,
  varbinary: varbinaryJson,
  json: jsonTypeJson,
  date: () => strJson,
  time: () => strJson,
  'time with time zone': () => strJson,
  timestamp: () => timestampJson,
  'timestamp with time zone': timestampTzJson,
  'interval day to second': () => strJson,
  'interval year to month': () => strJson,
  uuid: () => strJson,
  ipaddress: () => strJson,
  unknown: () => genericJson,
} satisfies Record<Exclude<TrinoBase, 'array' | 'map' | 'row'>, () => ValueWriter>;

/** The JSON writer for a Trino type (recursing into arrays, maps and rows). */
export function jsonValueWriter(type: TrinoType): ValueWriter {
  const base = knownBase(type);
  switch (base) {
    case null:
      return genericJson;
    case 'array':
      return arrayJson(jsonValueWriter(typeArg(type, 0)));
    case 'map':
      return mapJson(textWriter(typeArg(type, 0)), jsonValueWriter(typeArg(type, 1)));
    case 'row':
      return rowJson(type);
    default:
      return SCALAR_JSON[base]();
  }
}

function arrayJson(element: ValueWriter): ValueWriter {
  return (v, out) => {
    if (!Array.isArray(v)) return genericJson(v, out);
    out.writeByte(0x5b); // [
    for (let i = 0; i < v.length; i++) {
      if (i > 0) out.writeByte(0x2c);
      const x: unknown = v[i];
      if (x === null || x === undefined) out.writeBytes(NULL);
      else element(x, out);
    }
    out.writeByte(0x5d);
  };
}

const NULL = Buffer.from('null');

function mapJson(key: TextWriter, value: ValueWriter): ValueWriter {
  return (v, out) => {
    if (v === null || typeof v !== 'object') return genericJson(v, out);
    const entries = v instanceof Map ? [...v.entries()] : Object.entries(v);
    out.writeByte(0x7b); // {
    for (let i = 0; i < entries.length; i++) {
      const [k, x] = entries[i]!;
      if (i > 0) out.writeByte(0x2c);
      writeJsonString(out, key(k));
      out.writeByte(0x3a);
      if (x === null || x === undefined) out.writeBytes(NULL);
      else value(x, out);
    }
    out.writeByte(0x7d);
  };
}

function rowJson(type: TrinoType): ValueWriter {
  const fields = rowFields(type);
  // `{"name":` / `,"name":` as bytes, and the same with `null` after it.
  const keys = fields.map((f, i) => Buffer.from((i === 0 ? '{' : ',') + JSON.stringify(f.name ?? `_col${i}`) + ':'));
  const nulls = keys.map((k) => Buffer.concat([k, NULL]));
  const writers = fields.map((f) => jsonValueWriter(f.type));
  const n = fields.length;
  return (v, out) => {
    if (!Array.isArray(v)) return genericJson(v, out);
    if (n === 0) return out.writeAscii('{}');
    for (let i = 0; i < n; i++) {
      const x: unknown = v[i];
      if (x === null || x === undefined) out.writeBytes(nulls[i]!);
      else {
        out.writeBytes(keys[i]!);
        writers[i]!(x, out);
      }
    }
    out.writeByte(0x7d);
  };
}

/** A value's text as in a CSV cell, unquoted (map keys). */
function textWriter(type: TrinoType): TextWriter {
  const base = knownBase(type);
  switch (base) {
    case null:
    case 'unknown':
      return (v) => (typeof v === 'string' ? v : generic(v));
    case 'array':
    case 'map':
    case 'row': {
      const json = jsonValueWriter(type);
      return (v) => {
        const out = new PageBuffer(256);
        json(v, out);
        return out.take().toString('utf8');
      };
    }
    case 'boolean':
      return (v) => (v === true || v === 'true' ? 'true' : 'false');
    case 'varbinary': {
      const varbinary = new VarbinaryText();
      return (v) => varbinary.toText(String(v));
    }
    case 'json': {
      const scanner = new JsonScanner();
      return (v) => jsonTypeText(String(v), scanner) ?? String(v);
    }
    case 'timestamp':
      return (v) => timestampToIso(String(v));
    case 'timestamp with time zone': {
      const parser = new TimestampTzParser();
      return (v) => timestampTzToIso(String(v), parser);
    }
    default:
      return asString;
  }
}
