/**
 * `text/csv` (RFC 4180): a header row of column names, then one line per row, `\r\n` line ends. Fields are
 * written by csv-field.ts: quoted (`"`, with `"` doubled) when they hold a comma, quote, CR or LF, and an empty
 * string is written `""`, so that an empty unquoted field always means NULL (PostgreSQL's COPY ... CSV
 * convention); a varbinary's JSON payload is always quoted. Values follow the text rules of json-value-writer.ts;
 * nested values (array, map, row) are their JSON text.
 * Completeness: a complete body is plain RFC 4180, nothing after the last row (a trailing empty line as
 * a completeness mark became a phantom row in polars and an empty record in Python's csv module). A response cut
 * by an error after the first byte ends with a last line `#error {"code":...,"message":...}` and then an aborted
 * HTTP transfer (the chunked body is not terminated), so every HTTP client reports the cut by itself.
 * The next page's URL is in the `Link: <...>; rel="next"` header.
 * Cells of text that begin like a spreadsheet formula (`=`, `+`, `-`, `@`, tab, CR), header names included, get a
 * `'` before them unless `csvFormulas` is `keep` (csv-formulas.ts, OWASP's rule).
 */
import type { ResultStream } from '../../core/result-stream.js';
import { columnType } from '../column-type.js';
import type { EncodeOptions } from '../encoder.js';
import { streamErrorBody } from '../encoder.js';
import { frameBatches } from '../frame-batches.js';
import { writeCsvField } from './csv-field.js';
import { csvValueWriter } from './csv-value-writer.js';
import { escapingValues, holdsFormulaText, neutralizeCsvFrom } from './csv-formulas.js';
import { PageBuffer } from './page-buffer.js';
import { TextRows } from '../../core/text-rows.js';
import { csvRowTranscoder, type RowTranscoder } from './row-transcoder.js';

/** Encodes a result as CSV (see the completeness rule above). */
export function encodeCsv(
  result: ResultStream,
  options: EncodeOptions,
): AsyncGenerator<string | Uint8Array, void, undefined> {
  const formulas = options.csvFormulas ?? 'escape';
  const writers = result.columns.map((c) => {
    const type = columnType(c.type);
    const write = csvValueWriter(type);
    return formulas === 'escape' && holdsFormulaText(type) ? escapingValues(write) : write;
  });
  const n = writers.length;
  const out = new PageBuffer(undefined, options.drained);
  const none = new Uint8Array(0);
  let transcode: RowTranscoder | undefined;
  return frameBatches<string | Uint8Array>(result.batches, {
    start() {
      const head = new PageBuffer(256);
      result.columns.forEach((c, i) => {
        if (i > 0) head.writeByte(0x2c); // ,
        const start = head.end;
        writeCsvField(head, c.name);
        if (formulas === 'escape') neutralizeCsvFrom(head, start);
      });
      head.writeByte(0x0d);
      head.writeByte(0x0a);
      return head.take();
    },
    page(rows) {
      if (rows instanceof TextRows) {
        (transcode ??= csvRowTranscoder(result.columns, formulas))(rows, out, none, none, none);
        return out.take();
      }
      for (let r = 0; r < rows.length; r++) {
        const row = rows[r]!;
        for (let i = 0; i < n; i++) {
          if (i > 0) out.writeByte(0x2c); // ,
          const v = row[i];
          // Each writer writes its whole field into the page, quoting (and doubling quotes) there.
          if (v !== null && v !== undefined) writers[i]!(v, out);
        }
        out.writeByte(0x0d);
        out.writeByte(0x0a);
      }
      return out.take();
    },
    end: () => undefined,
    cut: (err) => '#error ' + JSON.stringify(streamErrorBody(err, options, result.queryId)) + '\r\n',
  });
}
