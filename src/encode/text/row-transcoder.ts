/**
 * The transcoder: rows as the JSON text Trino sent (core/text-rows.ts) written as JSON objects or CSV records in
 * one forward scan of their bytes, no row or value made as JavaScript values on the common paths. Each column has
 * a text writer (json-text-writer.ts, csv-text-writer.ts) that copies, decodes or rewrites its value's bytes
 * straight into the page; a value whose text it does not cover, and every value of a type with none, is parsed on
 * its own and written by the column's value writer. Either way the output is byte for byte what the value path
 * (json-row-writer.ts, the CSV encoder) writes for the same rows (test/unit/row-transcoder.test.ts drives both).
 * Text that is not rows of the result's columns (not JSON, a row of another length) throws the batch's `bad()`.
 */
import { Buffer } from 'node:buffer';
import type { ResultColumn } from '../../core/result-stream.js';
import type { TextRows } from '../../core/text-rows.js';
import { columnType } from '../column-type.js';
import { csvTextWriter } from './csv-text-writer.js';
import { csvValueWriter } from './csv-value-writer.js';
import { escapingText, escapingValues, holdsFormulaText, type CsvFormulas } from './csv-formulas.js';
import { jsonTextWriter, type TextWriter } from './json-text-writer.js';
import { skipSpace, valueEnd } from '../../core/json-scan.js';
import { isNullAt } from './json-token.js';
import { jsonValueWriter, type ValueWriter } from './json-value-writer.js';
import { ConstantBytes, type PageBuffer } from './page-buffer.js';

/** How one column's value is written: its text writer (if any), else (or when that declines) its value writer. */
interface ColumnWriters {
  text: TextWriter | null;
  value: ValueWriter;
}

/** What goes around each column's value, and around each row. */
interface RowShape {
  /** Before each column's value: `{"name":` / `,"name":` in JSON, `,` in CSV (none before the first). */
  keys: readonly ConstantBytes[];
  /** A null: the key and `null` in JSON, nothing after the separator in CSV. */
  nulls: readonly ConstantBytes[];
  /** After the last value: `}` in JSON, `\r\n` in CSV. */
  close: ConstantBytes;
}

/**
 * Writes a batch of text rows into a page; `first` before the first row, `before` before each other row. The batch
 * is done afterwards (its bytes are not read again).
 */
export type RowTranscoder = (
  rows: TextRows,
  out: PageBuffer,
  first: Uint8Array,
  before: Uint8Array,
  after: Uint8Array,
) => void;

/** The JSON object transcoder of a result's columns (JSON and NDJSON rows, as jsonRowWriter writes them). */
export function jsonRowTranscoder(columns: readonly ResultColumn[]): RowTranscoder {
  const keys = columns.map((c, i) => Buffer.from((i === 0 ? '{' : ',') + JSON.stringify(c.name) + ':'));
  const shape: RowShape = {
    keys: keys.map((k) => new ConstantBytes(k)),
    nulls: keys.map((k) => new ConstantBytes(Buffer.concat([k, Buffer.from('null')]))),
    close: new ConstantBytes(Buffer.from(columns.length === 0 ? '{}' : '}')),
  };
  const writers = columns.map((c) => {
    const type = columnType(c.type);
    return { text: jsonTextWriter(type), value: jsonValueWriter(type) };
  });
  return (rows, out, first, before, after) => transcode(rows, out, writers, shape, [first, before, after]);
}

/** The CSV record transcoder of a result's columns (as the CSV encoder writes them, formulas as it is told). */
export function csvRowTranscoder(columns: readonly ResultColumn[], formulas: CsvFormulas = 'escape'): RowTranscoder {
  const keys = columns.map((_, i) => new ConstantBytes(Buffer.from(i === 0 ? '' : ',')));
  const shape: RowShape = { keys, nulls: keys, close: new ConstantBytes(Buffer.from('\r\n')) };
  const writers = columns.map((c) => {
    const type = columnType(c.type);
    const text = csvTextWriter(type);
    const value = csvValueWriter(type);
    if (formulas === 'keep' || !holdsFormulaText(type)) return { text, value };
    return { text: escapingText(text), value: escapingValues(value) };
  });
  return (rows, out, first, before, after) => transcode(rows, out, writers, shape, [first, before, after]);
}

function transcode(
  rows: TextRows,
  out: PageBuffer,
  writers: readonly ColumnWriters[],
  shape: RowShape,
  [first, before, after]: readonly Uint8Array[],
): void {
  const src = rows.bytes;
  const n = writers.length;
  const { keys, nulls, close } = shape;
  let i = skipSpace(src, 0);
  for (let r = 0; i < src.length; r++) {
    i = expect(rows, src, i, 0x5b); // [
    out.writeBytes(r === 0 ? first! : before!);
    for (let c = 0; c < n; c++) {
      if (c > 0) i = expect(rows, src, i, 0x2c); // ,
      if (src[i] !== 0x6e && src[i]! > 0x20) {
        out.writeConstant(keys[c]!);
        i = writeValue(rows, src, writers[c]!, i, out);
      } else if (isNullAt(src, (i = skipSpace(src, i)))) {
        out.writeConstant(nulls[c]!);
        i += 4;
      } else {
        out.writeConstant(keys[c]!);
        i = writeValue(rows, src, writers[c]!, i, out);
      }
    }
    i = expect(rows, src, i, 0x5d); // ]
    out.writeConstant(close);
    out.writeBytes(after!);
    if (i < src.length && src[i] !== 0x2c) i = skipSpace(src, i);
    if (i < src.length) i = skipSpace(src, expect(rows, src, i, 0x2c));
  }
  rows.done(); // its bytes are written: a pooled buffer may go back (core/text-rows.ts)
}

/** The index after the byte `c` at `i` (JSON white space before it skipped); throws the batch's `bad()` if absent. */
function expect(rows: TextRows, src: Buffer, i: number, c: number): number {
  if (src[i] === c) return i + 1;
  const j = skipSpace(src, i);
  if (src[j] !== c) throw rows.bad();
  return j + 1;
}

/** Writes the value at `i` through the text writer, or, when it declines, parsed and through the value writer. */
function writeValue(rows: TextRows, src: Buffer, w: ColumnWriters, i: number, out: PageBuffer): number {
  const mark = out.end;
  if (w.text) {
    const end = w.text(src, i, out);
    if (end > 0) return end;
    out.end = mark;
  }
  const end = valueEnd(src, i);
  if (end < 0) throw rows.bad();
  let value: unknown;
  try {
    value = rows.parse(src.toString('utf8', i, end));
  } catch {
    throw rows.bad();
  }
  if (value === null) throw rows.bad(); // `null` is written above: this was text like `null1`
  w.value(value, out);
  return end;
}
