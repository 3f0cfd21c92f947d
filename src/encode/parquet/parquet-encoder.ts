/**
 * `application/vnd.apache.parquet`: one Parquet file, written by parquet-wasm's streaming writer
 * (`transformParquetStream`, the Rust `parquet` crate's AsyncArrowWriter) from the same Arrow record batches the
 * Arrow encoder streams (arrow-batches.ts), so the file carries the Arrow output's types (its `ARROW:schema`
 * metadata keeps each field's `trino.type`; the file's key-value metadata has `topicgate.query_id`).
 * Columns compressed with the codec the request names (`compression=zstd|snappy|none`, default zstd).
 *
 * Streaming: the writer collects pages into a row group and sends the row group as soon as it is full (ROW_GROUP_*
 * below), so the gateway holds a few row groups whatever the result size; the footer follows the last row group.
 * Pages are pulled only while the writer fills a row group, and it flushes only when the client has taken what
 * came before, so a slow client holds the Trino query back as with the other formats. The first bytes leave
 * with the first full row group (or at the end), so an error until then still gets a proper status.
 *
 * Completeness: a Parquet file is complete only with its footer (`PAR1` magic at both ends). If the result fails
 * after the body has started, the footer is NOT written and the generator throws, so the HTTP body is aborted and
 * what arrived is row groups without a footer, which no Parquet reader opens. Before the footer is sent, its row
 * count is checked against the rows handed to the writer (parquet-footer.ts says why).
 */
import { Buffer } from 'node:buffer';
import { RecordBatchStreamWriter, type RecordBatch } from 'apache-arrow';
import {
  Compression,
  EnabledStatistics,
  Table as WasmTable,
  transformParquetStream,
  WriterPropertiesBuilder,
  type RecordBatch as WasmRecordBatch,
} from 'parquet-wasm';
import { COLUMN_CODECS, type ColumnCodec } from '../../core/content-codings.js';
import { ApiError } from '../../core/errors.js';
import type { ResultColumn, ResultStream } from '../../core/result-stream.js';
import type { TrinoType } from '../../core/trino-types.js';
import { trinoTypeOf } from '../../core/type-family.js';
import { arrowBatches, type ArrowBatches } from '../arrow/arrow-batches.js';
import type { EncodeOptions, FileLayout } from '../encoder.js';
import { parquetFooterRows } from './parquet-footer.js';
import { batchLength, type RowBatch } from '../../core/text-rows.js';

/**
 * A row group closes at whichever comes first (the writer splits a page to keep to both). A stream holds about
 * three row groups: the one being filled, one waiting between the writer and the reader (parquet-wasm's transform
 * stream queues one chunk), and the one being sent; measured with a paused client, the writer stops after about
 * 3 x ROW_GROUP_BYTES of pages. The byte bound keeps that flat for large events; the row bound keeps row groups of
 * small events near what DuckDB writes (122,880 rows), a fine unit for readers that skip by statistics.
 */
const ROW_GROUP_BYTES = 8 * 1024 * 1024;
const ROW_GROUP_ROWS = 128 * 1024;

type Rows = RowBatch;

/**
 * The deepest nesting of rows, arrays and maps the writer takes: parquet-wasm reads its input as an Arrow IPC
 * message whose FlatBuffers verifier stops at a fixed depth (a row or array 61 levels deep fails, 60 passes).
 */
const MAX_NESTING = 60;

/** Levels of nesting of a type: a row or an array is one, a map two (Arrow's map is a list of key-value structs). */
function nesting(type: TrinoType): number {
  const inner = Math.max(0, ...type.args.map((a) => (a.kind === 'type' ? nesting(a.type) : 0)));
  return type.base === 'map' ? inner + 2 : type.base === 'row' || type.base === 'array' ? inner + 1 : inner;
}

/** A column nested deeper than the writer takes is the request's to change (another format), before any byte. */
function checkNesting(columns: readonly ResultColumn[]): void {
  for (const c of columns) {
    const depth = nesting(trinoTypeOf(c.type));
    if (depth > MAX_NESTING) {
      throw new ApiError(
        'TG_NOT_ACCEPTABLE',
        `column ${JSON.stringify(c.name)} nests ${depth} levels, more than Parquet is written with here (${MAX_NESTING}): ask for format=arrow or ndjson`,
        { parameter: 'format', column: c.name },
      );
    }
  }
}

/** An Arrow JS batch moved into the writer's WebAssembly memory (through one IPC message). */
function toWasm(batch: RecordBatch): WasmRecordBatch {
  const table = WasmTable.fromIPCStream(RecordBatchStreamWriter.writeAll([batch]).toUint8Array(true));
  try {
    const wasmBatch = table.recordBatch(0);
    if (wasmBatch === undefined) throw new Error('Arrow IPC message without its record batch');
    return wasmBatch;
  } finally {
    table.free();
  }
}

/** The writer's codec for each column codec a request may name (API.md "Compression on the wire"). */
const CODECS = {
  zstd: Compression.ZSTD,
  snappy: Compression.SNAPPY,
  none: Compression.UNCOMPRESSED,
} as const satisfies Record<ColumnCodec, Compression>;

/**
 * A file read by range (options.file) has row groups of its `rowGroupRows` and statistics per page (min and max
 * per column chunk and per page, with the page index), so a reader filtering on time or key skips row groups and
 * pages.
 */
function writerProperties(queryId: string, codec: ColumnCodec, file: FileLayout | undefined) {
  return new WriterPropertiesBuilder()
    .setKeyValueMetadata(new Map([['topicgate.query_id', queryId]]))
    .setCompression(CODECS[codec])
    .setStatisticsEnabled(EnabledStatistics.Page)
    .setMaxRowGroupBytes(ROW_GROUP_BYTES)
    .setMaxRowGroupSize(file?.rowGroupRows ?? ROW_GROUP_ROWS)
    .build();
}

/** What the writer's input has seen: rows handed over, whether the result ended or failed, whether we stopped. */
interface Feed {
  rows: number;
  ended: boolean;
  closed: boolean;
  failure: { err: unknown } | null;
}

/**
 * The writer's input: the result's pages as record batches in WebAssembly memory, each pulled when the writer
 * asks. The writer ignores an error item and closes the file, so a failure is recorded in `feed` (and never
 * reaches the client as a footer: see the read loop).
 */
function writerInput(arrow: ArrowBatches, pages: AsyncIterator<Rows>, feed: Feed): ReadableStream<WasmRecordBatch> {
  return new ReadableStream<WasmRecordBatch>(
    {
      // A batch without rows first: the writer takes its schema from it, so an empty result is a valid file.
      start: (c) => c.enqueue(toWasm(arrow.batch([]))),
      pull: async (c) => {
        if (feed.closed) return c.error(new Error('response closed'));
        try {
          let page: IteratorResult<Rows>;
          do page = await pages.next();
          while (!page.done && batchLength(page.value) === 0); // Trino sends empty pages while a query runs
          if (page.done) {
            feed.ended = true;
            return c.close();
          }
          const batch = arrow.batch(page.value);
          feed.rows += batch.numRows;
          c.enqueue(toWasm(batch));
        } catch (err) {
          feed.failure ??= { err };
          c.error(err);
        }
      },
    },
    { highWaterMark: 0 },
  );
}

/** Encodes a result as one Parquet file (see the streaming and completeness rules above). */
export async function* encodeParquet(
  result: ResultStream,
  options: EncodeOptions,
): AsyncGenerator<Uint8Array, void, undefined> {
  const pages = result.batches[Symbol.asyncIterator]();
  const feed: Feed = { rows: 0, ended: false, closed: false, failure: null };
  let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  try {
    checkNesting(result.columns);
    const input = writerInput(arrowBatches(result), pages, feed);
    const file = (await transformParquetStream(
      input,
      writerProperties(result.queryId, options.columnCodec ?? COLUMN_CODECS[0], options.file),
    )) as ReadableStream<Uint8Array>;
    reader = file.getReader();
    // Bytes written after the last page hold the footer: kept until its row count is checked.
    const tail: Uint8Array[] = [];
    for (;;) {
      const chunk = await reader.read();
      if (feed.failure) throw feed.failure.err;
      if (chunk.done) break;
      if (feed.ended) tail.push(chunk.value);
      else yield chunk.value;
    }
    if (!feed.ended) throw new Error('the Parquet writer stopped before the result ended');
    const rows = parquetFooterRows(Buffer.concat(tail));
    if (rows !== BigInt(feed.rows)) throw new Error(`Parquet footer has ${rows} rows, ${feed.rows} were written`);
    for (const chunk of tail) yield chunk;
  } finally {
    // Early close (client gone) or failure: stop feeding the writer and close the result (cancels the query).
    feed.closed = true;
    reader?.cancel().catch(() => {});
    await pages.return?.();
  }
}
