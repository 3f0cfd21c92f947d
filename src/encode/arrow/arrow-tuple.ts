/**
 * Rows and row values from their JSON text into Arrow builders (arrow-text-column.ts appends each value). A row
 * of a page and a value of a `row(...)` type are both JSON arrays whose elements go to the builders in order, and
 * the value path takes both as `v[k]` for each builder: a missing element is a null, an element past the last
 * builder is dropped (its text is still checked to be JSON), and anything that is not an array is parsed and
 * indexed the same way.
 */
import type { TextRows } from '../../core/text-rows.js';
import { skipSpace, valueEnd } from '../../core/json-scan.js';
import type { ColumnBuilder } from './arrow-columns.js';

/**
 * Appends the value whose text starts at `rows.bytes[i]` (no white space before it) to its column; returns the
 * index after its text. Throws the batch's `bad()` when the text is not JSON.
 */
export type TextColumn = (rows: TextRows, i: number) => number;

const OPEN = 0x5b;
const CLOSE = 0x5d;
const COMMA = 0x2c;

/** The value whose text starts at `i`, parsed on its own as the reader parses rows; returns the index after it. */
export function parseValueAt(rows: TextRows, i: number): { value: unknown; end: number } {
  const end = valueEnd(rows.bytes, i);
  if (end < 0) throw rows.bad();
  try {
    return { value: rows.parse(rows.bytes.toString('utf8', i, end)), end };
  } catch {
    throw rows.bad();
  }
}

/**
 * Appends the elements of the JSON array opening at `i` to `columns` (and so to `builders`, theirs); returns the
 * index after its closing bracket. Throws the batch's `bad()` when the text is not JSON.
 */
export function appendTuple(
  rows: TextRows,
  i: number,
  columns: readonly TextColumn[],
  builders: readonly ColumnBuilder[],
): number {
  const src = rows.bytes;
  const n = columns.length;
  let j = skipSpace(src, i + 1);
  let k = 0;
  if (src[j] !== CLOSE) {
    for (;;) {
      j = skipSpace(src, k < n ? columns[k]!(rows, j) : parseValueAt(rows, j).end);
      k++;
      if (src[j] === CLOSE) break;
      if (src[j] !== COMMA) throw rows.bad();
      j = skipSpace(src, j + 1);
    }
  }
  for (; k < n; k++) builders[k]!.append(null);
  return j + 1;
}

/**
 * Appends every row of a batch of text rows to the builders of the result's columns; returns the number of rows.
 * Throws the batch's `bad()` when the text is not rows. The batch is done afterwards (its bytes are not read again).
 */
export function appendTextRows(
  rows: TextRows,
  columns: readonly TextColumn[],
  builders: readonly ColumnBuilder[],
): number {
  const src = rows.bytes;
  let count = 0;
  let i = skipSpace(src, 0);
  while (i < src.length) {
    i = src[i] === OPEN ? appendTuple(rows, i, columns, builders) : appendValueRow(rows, i, builders);
    count++;
    i = skipSpace(src, i);
    if (i < src.length) {
      if (src[i] !== COMMA) throw rows.bad();
      i = skipSpace(src, i + 1);
      if (i >= src.length) throw rows.bad(); // a trailing comma
    }
  }
  rows.done(); // copied into the builders: a pooled buffer may go back (core/text-rows.ts)
  return count;
}

/** A row that is not an array: parsed, and indexed as the value path indexes a row. */
function appendValueRow(rows: TextRows, i: number, builders: readonly ColumnBuilder[]): number {
  const { value, end } = parseValueAt(rows, i);
  const row = value as readonly unknown[];
  for (let k = 0; k < builders.length; k++) builders[k]!.append(row[k]);
  return end;
}
