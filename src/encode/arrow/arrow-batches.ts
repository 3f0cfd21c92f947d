/**
 * The Arrow schema of a result and its record batches, one per Trino page: what the Arrow encoder streams as IPC
 * and the Parquet encoder writes as row groups, so both formats carry the same types (arrow-column-builder.ts).
 * Each field's metadata has `trino.type`, the Trino type text; the schema's metadata has `topicgate.query_id`.
 */
import { Field, makeData, RecordBatch, Schema, Struct } from 'apache-arrow';
import type { ResultStream } from '../../core/result-stream.js';
import { columnType } from '../column-type.js';
import { TextRows, type RowBatch } from '../../core/text-rows.js';
import { arrowColumnBuilder } from './arrow-column-builder.js';
import { arrowTextColumn } from './arrow-text-column.js';
import { appendTextRows } from './arrow-tuple.js';

export interface ArrowBatches {
  readonly schema: Schema;
  /**
   * One page of rows as one record batch (the builders start empty again). Rows as text are appended from their
   * bytes (arrow-tuple.ts), giving the record batch their values would give.
   */
  batch(rows: RowBatch): RecordBatch;
}

/** The schema and a batch maker for a result's columns. */
export function arrowBatches(result: ResultStream): ArrowBatches {
  const types = result.columns.map((c) => columnType(c.type));
  const builders = types.map((t) => arrowColumnBuilder(t));
  const texts = types.map((t, i) => arrowTextColumn(t, builders[i]!));
  const fields = result.columns.map(
    (c, i) => new Field(c.name, builders[i]!.type, true, new Map([['trino.type', c.type]])),
  );
  const schema = new Schema(fields, new Map([['topicgate.query_id', result.queryId]]));
  const rowType = new Struct(fields);
  const n = builders.length;
  return {
    schema,
    batch(rows) {
      let length: number;
      if (rows instanceof TextRows) length = appendTextRows(rows, texts, builders);
      else {
        for (const row of rows) for (let i = 0; i < n; i++) builders[i]!.append(row[i]);
        length = rows.length;
      }
      const data = makeData({
        type: rowType,
        length,
        nullCount: 0,
        children: builders.map((b) => b.finish()),
      });
      return new RecordBatch(schema, data);
    },
  };
}
