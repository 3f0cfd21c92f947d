/**
 * `application/x-ndjson`: one JSON object per row per line (`\n`), keyed by column name, values as in the JSON
 * format. Completeness (Druid's SQL API convention):
 * - a complete response ends with one extra empty line, i.e. the body ends with `\n\n` (an empty result is `\n`);
 * - a response cut by an error ends instead with a last line `{"error":{"code":...,"message":...}}`, and then
 *   the HTTP transfer is aborted (the chunked body is not terminated), so HTTP clients report the cut by themselves;
 * - a body that ends any other way (connection lost) is incomplete.
 * Rows are never empty lines (each is a `{...}` object), so the final empty line cannot be mistaken for a row.
 * The next page's URL is in the `Link: <...>; rel="next"` header.
 */
import type { ResultStream } from '../../core/result-stream.js';
import type { EncodeOptions } from '../encoder.js';
import { streamErrorBody } from '../encoder.js';
import { frameBatches } from '../frame-batches.js';
import { TextRows } from '../../core/text-rows.js';
import { jsonRowWriter } from './json-row-writer.js';
import { jsonRowTranscoder, type RowTranscoder } from './row-transcoder.js';
import { PageBuffer } from './page-buffer.js';

/** Encodes a result as NDJSON (see the completeness rule above). */
export function encodeNdjson(
  result: ResultStream,
  options: EncodeOptions,
): AsyncGenerator<string | Uint8Array, void, undefined> {
  const writeRow = jsonRowWriter(result.columns);
  const out = new PageBuffer(undefined, options.drained);
  const none = new Uint8Array(0);
  const newline = Uint8Array.of(0x0a);
  let transcode: RowTranscoder | undefined;
  return frameBatches<string | Uint8Array>(result.batches, {
    start: () => undefined,
    page(rows) {
      if (rows instanceof TextRows) (transcode ??= jsonRowTranscoder(result.columns))(rows, out, none, none, newline);
      else for (let r = 0; r < rows.length; r++) writeRow(rows[r]!, out, none, newline);
      return out.take();
    },
    end: () => '\n',
    cut: (err) => JSON.stringify({ error: streamErrorBody(err, options, result.queryId) }) + '\n',
  });
}
