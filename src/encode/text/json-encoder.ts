/**
 * `application/json`: `{"columns":[{"name","type"}...],"rows":[{...},...],"next":<url|null>,"complete":true,...meta}`
 * streamed page by page, one row object per line. Completeness: a complete body has `"complete":true`; when the
 * result fails after the body has started, the rows array is closed and the body ends with
 * `"next":null,"complete":false,"error":{"code","message",...}}`, so it is still valid JSON that says it is cut
 * (and carries no `meta`, e.g. no cursor batch token, which must never be committed for a partial page); then the
 * HTTP transfer is aborted (the chunked body is not terminated), so HTTP clients report the cut by themselves.
 * A body that does not parse (connection lost) is incomplete too.
 */
import type { ResultStream } from '../../core/result-stream.js';
import type { EncodeOptions } from '../encoder.js';
import { streamErrorBody } from '../encoder.js';
import { frameBatches } from '../frame-batches.js';
import { TextRows } from '../../core/text-rows.js';
import { jsonRowWriter } from './json-row-writer.js';
import { jsonRowTranscoder, type RowTranscoder } from './row-transcoder.js';
import { PageBuffer } from './page-buffer.js';

const RESERVED = new Set(['columns', 'rows', 'next', 'complete', 'error']);

/** Encodes a result as the JSON body above. Throws (before any output) if `meta` reuses a reserved member. */
export function encodeJson(
  result: ResultStream,
  options: EncodeOptions,
): AsyncGenerator<string | Uint8Array, void, undefined> {
  let meta = '';
  for (const [key, value] of Object.entries(options.meta ?? {})) {
    if (RESERVED.has(key)) throw new TypeError(`meta member "${key}" is reserved in the JSON body`);
    const text = JSON.stringify(value);
    if (text !== undefined) meta += ',' + JSON.stringify(key) + ':' + text; // undefined members are absent
  }
  const writeRow = jsonRowWriter(result.columns);
  const columns = result.columns.map(({ name, type }) => ({ name, type }));
  const out = new PageBuffer(undefined, options.drained);
  const none = new Uint8Array(0);
  const firstRow = Uint8Array.of(0x0a); // \n
  const nextRow = Uint8Array.of(0x2c, 0x0a); // ,\n
  let first = true;
  let transcode: RowTranscoder | undefined;
  return frameBatches<string | Uint8Array>(result.batches, {
    start: () => '{"columns":' + JSON.stringify(columns) + ',"rows":[',
    page(rows) {
      if (rows instanceof TextRows) {
        (transcode ??= jsonRowTranscoder(result.columns))(rows, out, first ? firstRow : nextRow, nextRow, none);
        first = false;
      } else
        for (let r = 0; r < rows.length; r++) {
          writeRow(rows[r]!, out, first ? firstRow : nextRow, none);
          first = false;
        }
      return out.take();
    },
    end: () => '\n],"next":' + JSON.stringify(options.next) + ',"complete":true' + meta + '}\n',
    cut: (err) =>
      '\n],"next":null,"complete":false,"error":' +
      JSON.stringify(streamErrorBody(err, options, result.queryId)) +
      '}\n',
  });
}
