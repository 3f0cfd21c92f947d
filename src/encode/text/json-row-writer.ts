import { Buffer } from 'node:buffer';
import type { ResultColumn } from '../../core/result-stream.js';
import { columnType } from '../column-type.js';
import { jsonValueWriter } from './json-value-writer.js';
import type { PageBuffer } from './page-buffer.js';

/** Writes one row as a JSON object keyed by column name, between `before` and `after` (bytes), into a page. */
export type JsonRowWriter = (row: readonly unknown[], out: PageBuffer, before: Uint8Array, after: Uint8Array) => void;

/**
 * A row writer for `columns`. Keys (as bytes) and per-column writers are computed once per result; the row loop
 * writes each key and value straight into the page (no intermediate strings or objects, and no JSON.stringify of
 * the row, which could not keep big integers' digits or decimals' scale). A varbinary is decoded into the page and
 * its JSON payload left there as it is, never decoded to a string.
 */
export function jsonRowWriter(columns: readonly ResultColumn[]): JsonRowWriter {
  const keys = columns.map((c, i) => Buffer.from((i === 0 ? '{' : ',') + JSON.stringify(c.name) + ':'));
  const nulls = keys.map((k) => Buffer.concat([k, Buffer.from('null')]));
  const writers = columns.map((c) => jsonValueWriter(columnType(c.type)));
  const n = columns.length;
  const empty = Buffer.from('{}');
  return (row, out, before, after) => {
    out.writeBytes(before);
    if (n === 0) out.writeBytes(empty);
    else {
      for (let i = 0; i < n; i++) {
        const v = row[i];
        if (v === null || v === undefined) out.writeBytes(nulls[i]!);
        else {
          out.writeBytes(keys[i]!);
          writers[i]!(v, out);
        }
      }
      out.writeByte(0x7d); // }
    }
    out.writeBytes(after);
  };
}
