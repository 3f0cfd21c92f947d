import type { PageBuffer } from './page-buffer.js';
import type { ResultColumn } from './result-stream.js';
import { columnType, jsonCellWriter } from './value-writers.js';

/** Writes one row as a JSON object keyed by column name, between `before` and `after`, into a page. */
export type JsonRowWriter = (row: readonly unknown[], out: PageBuffer, before: string, after: string) => void;

/**
 * A row writer for `columns`. Keys and per-column writers are computed once per result; the row loop is string
 * concatenation only (no intermediate objects, and no JSON.stringify of the row, which could not keep big
 * integers' digits or decimals' scale). A varbinary's JSON payload is copied as bytes, never decoded to a string.
 */
export function jsonRowWriter(columns: readonly ResultColumn[]): JsonRowWriter {
  const keys = columns.map((c, i) => (i === 0 ? '{' : ',') + JSON.stringify(c.name) + ':');
  const writers = columns.map((c) => jsonCellWriter(columnType(c.type)));
  const n = columns.length;
  return (row, out, before, after) => {
    if (n === 0) return out.write(before + '{}' + after);
    let s = before;
    for (let i = 0; i < n; i++) {
      const v = row[i];
      if (v === null || v === undefined) {
        s += keys[i] + 'null';
        continue;
      }
      const x = writers[i]!(v);
      if (typeof x === 'string') s += keys[i] + x;
      else {
        out.write(s + keys[i]);
        out.writeBytes(x);
        s = '';
      }
    }
    out.write(s + '}' + after);
  };
}
