/**
 * The JSON writers of the transcoder (row-transcoder.ts): each writes one value of its Trino type straight from the
 * JSON text Trino sent, into the page, exactly as the value writer of its type (json-value-writer.ts) writes the
 * value JSON.parse makes of that text. A writer covers the forms Trino writes (a string with no escapes, an
 * integer of up to 15 digits, canonical base64...); given any other text it returns -1, and the caller resets
 * the page and takes the value path for that value. Types with no writer here (double, real, map, json,
 * timestamp with time zone, types this gateway does not know) always take the value path.
 */
import { knownBase, rowFields, typeArg, type TrinoType } from '../../core/trino-types.js';
import { base64Bytes, decodeBase64Into } from './base64-bytes.js';
import { booleanEnd, copyInto, isNullAt, numberTextEnd, plainIntegerEnd, plainStringEnd } from './json-token.js';
import type { PageBuffer } from './page-buffer.js';
import { ISO_JSON_PLAIN, isoTimestampFrom } from './timestamp-text.js';
import { jsonRoom, VarbinaryText } from './varbinary-text.js';

/**
 * Writes the value whose text starts at `src[i]` (never `null`: callers write nulls) into the page; returns the
 * index after its text, or -1 when the text is not in a form this writer copies (the page must then be reset).
 */
export type TextWriter = (src: Buffer, i: number, out: PageBuffer) => number;

const QUOTE = 0x22;

const copyString: TextWriter = (src, i, out) => {
  const end = plainStringEnd(src, i);
  if (end > 0) copyInto(out, src, i, end);
  return end;
};

const copyInteger: TextWriter = (src, i, out) => {
  const end = plainIntegerEnd(src, i);
  if (end > 0) copyInto(out, src, i, end);
  return end;
};

const copyBoolean: TextWriter = (src, i, out) => {
  const end = booleanEnd(src, i);
  if (end > 0) copyInto(out, src, i, end);
  return end;
};

/** A decimal's text (`"12.30"`) is a JSON number with its scale: written without the quotes. */
const decimalNumber: TextWriter = (src, i, out) => {
  const end = plainStringEnd(src, i);
  if (end < 0 || numberTextEnd(src, i + 1, end - 1) < 0) return -1;
  copyInto(out, src, i + 1, end - 1);
  return end;
};

/** `timestamp(p)` text as ISO-8601 UTC: `"2026-11-01 00:00:00.000"` -> `"2026-11-01T00:00:00.000Z"`. */
const isoTimestamp: TextWriter = (src, i, out) => isoTimestampFrom(src, i, out, ISO_JSON_PLAIN, true);

/** A varbinary: its base64 decoded into the page, then shown as varbinary-text.ts says. */
function varbinaryJson(): TextWriter {
  const varbinary = new VarbinaryText();
  return (src, i, out) => {
    if (src[i] !== QUOTE) return -1;
    const close = src.indexOf(QUOTE, i + 1);
    if (close < 0) return -1;
    out.ensure(jsonRoom(base64Bytes(i + 1, close)));
    const to = decodeBase64Into(src, i + 1, close, out.bytes, out.end);
    if (to < 0) return -1;
    varbinary.placeJson(out, to);
    return close + 1;
  };
}

/** The JSON text writer of a Trino type, or null when its values always take the value path. */
export function jsonTextWriter(type: TrinoType): TextWriter | null {
  const base = knownBase(type);
  switch (base) {
    case 'array': {
      const element = jsonTextWriter(typeArg(type, 0));
      return element && arrayJson(element);
    }
    case 'row':
      return rowJson(type);
    case 'boolean':
      return copyBoolean;
    case 'tinyint':
    case 'smallint':
    case 'integer':
    case 'bigint':
      return copyInteger;
    case 'decimal':
      return decimalNumber;
    case 'varbinary':
      return varbinaryJson();
    case 'timestamp':
      return isoTimestamp;
    case 'varchar':
    case 'char':
    case 'date':
    case 'time':
    case 'time with time zone':
    case 'interval day to second':
    case 'interval year to month':
    case 'uuid':
    case 'ipaddress':
      return copyString;
    default:
      return null;
  }
}

/** An array: `[` elements (each `null` or its writer's) `]`, as Trino writes it (no white space). */
function arrayJson(element: TextWriter): TextWriter {
  return (src, i, out) => {
    if (src[i] !== 0x5b) return -1;
    out.writeByte(0x5b);
    let j = i + 1;
    if (src[j] === 0x5d) {
      out.writeByte(0x5d);
      return j + 1;
    }
    for (;;) {
      if (isNullAt(src, j)) {
        out.writeAscii('null');
        j += 4;
      } else if ((j = element(src, j, out)) < 0) return -1;
      const c = src[j];
      out.writeByte(c!);
      if (c === 0x5d) return j + 1;
      if (c !== 0x2c) return -1;
      j++;
    }
  };
}

/** A row (Trino sends its fields as an array): a JSON object keyed by field name, as json-value-writer.ts. */
function rowJson(type: TrinoType): TextWriter | null {
  const fields = rowFields(type);
  const writers = fields.map((f) => jsonTextWriter(f.type));
  if (fields.length === 0 || writers.some((w) => w === null)) return null;
  const keys = fields.map((f, i) => Buffer.from((i === 0 ? '{' : ',') + JSON.stringify(f.name ?? `_col${i}`) + ':'));
  const n = fields.length;
  return (src, i, out) => {
    if (src[i] !== 0x5b) return -1;
    let j = i + 1;
    for (let f = 0; f < n; f++) {
      if (f > 0) {
        if (src[j] !== 0x2c) return -1;
        j++;
      }
      out.writeBytes(keys[f]!);
      if (isNullAt(src, j)) {
        out.writeAscii('null');
        j += 4;
      } else if ((j = writers[f]!(src, j, out)) < 0) return -1;
    }
    if (src[j] !== 0x5d) return -1;
    out.writeByte(0x7d);
    return j + 1;
  };
}
