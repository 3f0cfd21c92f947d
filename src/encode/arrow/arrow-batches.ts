/**
 * The Arrow schema of a result and its record batches, one per Trino page: what the Arrow encoder streams as IPC
 * and the Parquet encoder writes as row groups, so both formats carry the same types (arrow-column-builder.ts).
 * Each field's metadata has `trino.type`, the Trino type text; the schema's metadata has `topicgate.query_id`.
 */
import { Field, makeData, RecordBatch, Schema, Struct } from 'apache-arrow';
import type { ResultStream } from '../../core/result-stream.js';
import { columnType } from '../column-type.js';
import { arrowColumnBuilder } from './arrow-column-builder.js';

export interface ArrowBatches {
  readonly schema: Schema;
  /** One page of rows as one record batch (the builders start empty again). */
  batch(rows: readonly (readonly unknown[])[]): RecordBatch;
}

/** The schema and a batch maker for a result's columns. */
export function arrowBatches(result: ResultStream): ArrowBatches {
  const builders = result.columns.map((c) => arrowColumnBuilder(columnType(c.type)));
  const fields = result.columns.map(
    (c, i) => new Field(c.name, builders[i]!.type, true, new Map([['trino.type', c.type]])),
  );
  const schema = new Schema(fields, new Map([['topicgate.query_id', result.queryId]]));
  const rowType = new Struct(fields);
  const n = builders.length;
  return {
    schema,
    batch(rows) {
      for (const row of rows) for (let i = 0; i < n; i++) builders[i]!.append(row[i]);
      const data = makeData({
        type: rowType,
        length: rows.length,
        nullCount: 0,
        children: builders.map((b) => b.finish()),
      });
      return new RecordBatch(schema, data);
    },
  };
}
