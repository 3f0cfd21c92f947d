/**
 * Arrow columns built from the JSON text Trino sent (core/text-rows.ts): per column, a function that appends the
 * value whose text starts at a given index to the column's builder and returns the index after that text. A
 * value in the form Trino writes goes in from its bytes (a varbinary's base64 decoded into the Binary buffer, a
 * string with no escape and valid UTF-8 copied into the Utf8 buffer, an integer's digits, a boolean, the ASCII
 * text of a timestamp, date or decimal handed over without JSON.parse, arrays and rows element by element); any
 * other text, and every value of a type with no such form (map, and types this gateway does not know as text),
 * is parsed on its own and appended as a value. Either way the builder gets what the value path gives it, so the
 * record batch is the same (test/unit/arrow-text-rows.test.ts drives both).
 */
import type { TextRows } from '../../core/text-rows.js';
import { knownBase, longArg, rowFields, typeArg, type TrinoBase, type TrinoType } from '../../core/trino-types.js';
import {
  booleanEnd,
  isNullAt,
  asciiStringEnd,
  numberTextEnd,
  plainIntegerEnd,
  plainStringEnd,
} from '../text/json-token.js';
import { skipSpace, valueEnd } from '../../core/json-scan.js';
import { BytesBuilder, Int64Builder, type ColumnBuilder } from './arrow-columns.js';
import { ListBuilder, StructBuilder } from './arrow-nested.js';
import { appendTuple, parseValueAt, type TextColumn } from './arrow-tuple.js';
import { TimestampBytes } from './timestamp-bytes.js';

export type { TextColumn };

/** Appends a value from its text when it is in the form this covers; -1, with nothing appended, otherwise. */
type FastAppend = (rows: TextRows, i: number) => number;

const QUOTE = 0x22;

function textColumn(builder: ColumnBuilder, fast: FastAppend | null): TextColumn {
  return (rows, i) => {
    const src = rows.bytes;
    if (src[i] === 0x6e && isNullAt(src, i)) {
      builder.append(null);
      return i + 4;
    }
    if (fast !== null) {
      const end = fast(rows, i);
      if (end > 0) return end;
    }
    const { value, end } = parseValueAt(rows, i);
    if (value === null) throw rows.bad(); // `null` is taken above: this was text like `null1`
    builder.append(value);
    return end;
  };
}

/** A Utf8 value: a plain string's bytes between its quotes are its UTF-8. */
function utf8Text(builder: ColumnBuilder): FastAppend {
  const bytes = as(builder, BytesBuilder);
  return (rows, i) => {
    const end = plainStringEnd(rows.bytes, i);
    if (end > 0) bytes.appendBytes(rows.bytes, i + 1, end - 1);
    return end;
  };
}

/** A varbinary: its canonical base64 decoded into the Binary buffer (any other text takes the value path). */
function base64Text(builder: ColumnBuilder): FastAppend {
  const bytes = as(builder, BytesBuilder);
  return (rows, i) => {
    const src = rows.bytes;
    if (src[i] !== QUOTE) return -1;
    const close = src.indexOf(QUOTE, i + 1);
    // An escape (`\"`, `\/`) is not base64, so the decoder declines a string that has one.
    return close > 0 && bytes.appendBase64(src, i + 1, close) ? close + 1 : -1;
  };
}

/** An integer of up to 15 digits: the number JSON.parse makes of it, computed from its digits. */
function integerText(builder: ColumnBuilder): FastAppend {
  return (rows, i) => {
    const src = rows.bytes;
    const end = plainIntegerEnd(src, i);
    if (end < 0) return -1;
    const negative = src[i] === 0x2d;
    let n = 0;
    for (let j = negative ? i + 1 : i; j < end; j++) n = n * 10 + src[j]! - 0x30;
    builder.append(negative ? -n : n);
    return end;
  };
}

/** A JSON number (a double or real): Number of its text is what JSON.parse makes of it. */
function numberText(builder: ColumnBuilder): FastAppend {
  return (rows, i) => {
    const src = rows.bytes;
    if (src[i] === QUOTE) return -1; // "NaN", "Infinity": the value path
    const end = valueEnd(src, i);
    if (end < 0 || numberTextEnd(src, i, end) < 0) return -1;
    builder.append(Number(src.toString('latin1', i, end)));
    return end;
  };
}

function booleanText(builder: ColumnBuilder): FastAppend {
  return (rows, i) => {
    const end = booleanEnd(rows.bytes, i);
    if (end > 0) builder.append(end - i === 4);
    return end;
  };
}

/** A value sent as ASCII text (timestamp, date, decimal, enum symbol): the string, made without JSON.parse. */
function asciiText(builder: ColumnBuilder): FastAppend {
  return (rows, i) => {
    const end = asciiStringEnd(rows.bytes, i);
    if (end > 0) builder.append(rows.bytes.toString('latin1', i + 1, end - 1));
    return end;
  };
}

/**
 * timestamp(p) for p up to 6: the units computed from the text's bytes as the value path computes them from its
 * string (timestamp-bytes.ts); text in another layout, and nanoseconds, go to the builder as a string.
 */
function timestampText(builder: ColumnBuilder, type: TrinoType): FastAppend {
  const p = longArg(type, 0, 3); // Trino's default precision for `timestamp` is 3
  const string = asciiText(builder);
  if (p > 6) return string;
  const int64 = as(builder, Int64Builder);
  const units = new TimestampBytes(p <= 3 ? 3 : 6);
  return (rows, i) => {
    const end = asciiStringEnd(rows.bytes, i);
    if (end < 0) return -1;
    const n = units.units(rows.bytes, i + 1, end - 1);
    if (n === null) return string(rows, i);
    int64.appendUnits(n);
    return end;
  };
}

/** array(T): each element through the element's text column, then the list closed over them. */
function listText(type: TrinoType, builder: ColumnBuilder): FastAppend {
  const list = as(builder, ListBuilder);
  const element = arrowTextColumn(typeArg(type, 0), list.child);
  return (rows, i) => {
    const src = rows.bytes;
    if (src[i] !== 0x5b) return -1;
    let j = skipSpace(src, i + 1);
    let n = 0;
    if (src[j] !== 0x5d) {
      for (;;) {
        j = skipSpace(src, element(rows, j));
        n++;
        if (src[j] === 0x5d) break;
        if (src[j] !== 0x2c) throw rows.bad();
        j = skipSpace(src, j + 1);
      }
    }
    list.appendList(n);
    return j + 1;
  };
}

/** row(...): Trino sends a row as an array of its field values, taken as the value path takes them. */
function structText(type: TrinoType, builder: ColumnBuilder): FastAppend {
  const struct = as(builder, StructBuilder);
  const fields = rowFields(type).map((f, k) => arrowTextColumn(f.type, struct.children[k]!));
  return (rows, i) => {
    if (rows.bytes[i] !== 0x5b) return -1;
    const end = appendTuple(rows, i, fields, struct.children);
    struct.appendStruct();
    return end;
  };
}

const FAST = {
  boolean: booleanText,
  tinyint: integerText,
  smallint: integerText,
  integer: integerText,
  bigint: integerText,
  real: numberText,
  double: numberText,
  decimal: asciiText,
  varchar: utf8Text,
  char: utf8Text,
  varbinary: base64Text,
  json: utf8Text,
  date: asciiText,
  time: utf8Text,
  'time with time zone': utf8Text,
  timestamp: timestampText,
  'timestamp with time zone': asciiText,
  'interval day to second': utf8Text,
  'interval year to month': utf8Text,
  uuid: utf8Text,
  ipaddress: utf8Text,
  unknown: utf8Text,
  array: (b, t) => listText(t, b),
  row: (b, t) => structText(t, b),
  map: () => null, // a JSON object's entries in JavaScript's key order: always parsed
} satisfies Record<TrinoBase, (builder: ColumnBuilder, type: TrinoType) => FastAppend | null>;

/** The text column of a Trino type over its builder (made by arrowColumnBuilder for the same type). */
export function arrowTextColumn(type: TrinoType, builder: ColumnBuilder): TextColumn {
  if (type.base === 'enum' && type.args[0]?.kind === 'type') return textColumn(builder, asciiText(builder));
  const base = knownBase(type);
  return textColumn(builder, base === null ? utf8Text(builder) : FAST[base](builder, type));
}

/** The builder as the class its type's builder is (a mismatch is a defect of this file). */
function as<T>(builder: ColumnBuilder, kind: abstract new (...args: never[]) => T): T {
  if (!(builder instanceof kind)) throw new Error(`expected a ${kind.name} for this type`);
  return builder;
}
