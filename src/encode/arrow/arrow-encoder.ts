/**
 * `application/vnd.apache.arrow.stream`: the Arrow IPC streaming format, one record batch per Trino page, column
 * types from the Trino types (arrow-batches.ts, shared with the Parquet encoder). Each field's metadata has
 * `trino.type`, the Trino type text; the schema's metadata has `topicgate.query_id`.
 * Completeness: a complete stream ends with Arrow's end-of-stream marker (0xFFFFFFFF 0x00000000). If the result
 * fails after the stream has started, the marker is NOT written and the generator throws, so the HTTP body is
 * aborted: readers see a stream without its end marker (pyarrow / arrow-js report a truncated stream or stop
 * without EOS). The next page's URL is in the `Link: <...>; rel="next"` header. Asked for a file, it writes the
 * IPC file format instead (`ARROW1` magic, the same messages, a footer indexing the batches).
 */
import { RecordBatchFileWriter, RecordBatchStreamWriter } from 'apache-arrow';
import type { ResultStream } from '../../core/result-stream.js';
import type { EncodeOptions } from '../encoder.js';
import { frameBatches } from '../frame-batches.js';
import { arrowBatches } from './arrow-batches.js';

/**
 * Encodes a result as an Arrow IPC stream (see the completeness rule above).
 * The writer is used through its public API only: each write queues the message's bytes in the writer, which is
 * an async iterable of them. After each page they are taken at once with `toUint8Array(true)` (the queued bytes,
 * joined) and then dropped from the queue by reading them through the iterator, so the queue holds one page at
 * most and the next page is pulled only when the client has taken this one (frameBatches' backpressure).
 */
export function encodeArrow(result: ResultStream, options: EncodeOptions): AsyncGenerator<Uint8Array, void, undefined> {
  const arrow = arrowBatches(result);
  // A file (options.file): the IPC file format, the same messages between its magic and its footer, which the
  // writer keeps the batches' offsets for and writes at close.
  const writer = options.file ? new RecordBatchFileWriter() : new RecordBatchStreamWriter();
  const queued = writer[Symbol.asyncIterator]();
  const chunks = frameBatches<Uint8Array>(result.batches, {
    start() {
      writer.reset(undefined, arrow.schema); // queues the schema message, sent with the first page (or the end)
      return undefined;
    },
    page(rows) {
      writer.write(arrow.batch(rows));
      return writer.toUint8Array(true);
    },
    end() {
      writer.close(); // queues the end-of-stream marker
      return writer.toUint8Array(true);
    },
    cut: () => undefined, // rethrow: no end-of-stream marker, the body is aborted
  });
  return dropEachTaken(chunks, queued);
}

/** Yields each chunk once its bytes are off the writer's queue. */
async function* dropEachTaken(
  chunks: AsyncGenerator<Uint8Array, void, undefined>,
  queued: AsyncIterator<Uint8Array>,
): AsyncGenerator<Uint8Array, void, undefined> {
  for await (const chunk of chunks) {
    await drop(queued, chunk.byteLength);
    yield chunk;
  }
}

/** Reads `byteLength` bytes off the writer's queue (bytes already taken): they are queued, so each read is at once. */
async function drop(queued: AsyncIterator<Uint8Array>, byteLength: number): Promise<void> {
  let left = byteLength;
  while (left > 0) {
    const r = await queued.next();
    if (r.done) break;
    left -= r.value.byteLength;
  }
  // Anything else would mean the next page's bytes start in the middle of a message: fail loudly, never corrupt.
  if (left !== 0) throw new Error(`Arrow writer queue out of step by ${left} bytes`);
}
