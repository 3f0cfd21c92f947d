/**
 * `application/vnd.apache.arrow.stream`: the Arrow IPC streaming format, one record batch per Trino page, column
 * types from the Trino types (arrow-column-builder.ts). Each field's metadata has `trino.type`, the Trino type text;
 * the schema's metadata has `topicgate.query_id`.
 * Completeness: a complete stream ends with Arrow's end-of-stream marker (0xFFFFFFFF 0x00000000). If the result
 * fails after the stream has started, the marker is NOT written and the generator throws, so the HTTP body is
 * aborted: readers see a stream without its end marker (pyarrow / arrow-js report a truncated stream or stop
 * without EOS). The next page's URL is in the `Link: <...>; rel="next"` header.
 */
import { AsyncByteQueue, Field, makeData, RecordBatch, RecordBatchStreamWriter, Schema, Struct } from 'apache-arrow';
import type { EncodeOptions } from './encoder.js';
import { arrowColumnBuilder } from './arrow-column-builder.js';
import { frameBatches } from './frame-batches.js';
import type { ResultStream } from '../trino/result-stream.js';
import { columnType } from './value-writers.js';

/**
 * A stream writer whose output is taken synchronously after each write: arrow-js queues written bytes in an
 * AsyncByteQueue meant to be read asynchronously; swapping in a fresh queue per chunk keeps memory at one batch.
 */
class ChunkedStreamWriter extends RecordBatchStreamWriter {
  drain(): Uint8Array {
    const bytes = this._sink.toUint8Array(true);
    this._sink = new AsyncByteQueue();
    return bytes;
  }
}

/** Encodes a result as an Arrow IPC stream (see the completeness rule above). */
export function encodeArrow(
  result: ResultStream,
  _options: EncodeOptions,
): AsyncGenerator<Uint8Array, void, undefined> {
  const builders = result.columns.map((c) => arrowColumnBuilder(columnType(c.type)));
  const fields = result.columns.map(
    (c, i) => new Field(c.name, builders[i]!.type, true, new Map([['trino.type', c.type]])),
  );
  const schema = new Schema(fields, new Map([['topicgate.query_id', result.queryId]]));
  const rowType = new Struct(fields);
  const writer = new ChunkedStreamWriter();
  const n = builders.length;
  return frameBatches<Uint8Array>(result.batches, {
    start() {
      writer.reset(undefined, schema);
      return writer.drain();
    },
    page(rows) {
      for (const row of rows) for (let i = 0; i < n; i++) builders[i]!.append(row[i]);
      const data = makeData({
        type: rowType,
        length: rows.length,
        nullCount: 0,
        children: builders.map((b) => b.finish()),
      });
      writer.write(new RecordBatch(schema, data));
      return writer.drain();
    },
    end() {
      writer.close(); // writes the end-of-stream marker
      return writer.drain();
    },
    cut: () => undefined, // rethrow: no end-of-stream marker, the body is aborted
  });
}
