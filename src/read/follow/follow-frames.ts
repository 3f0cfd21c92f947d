/**
 * How a follow is written (API.md "Following a topic"): Server-Sent Events, one event per row with its position as
 * the event id, or NDJSON, one row per line as in every NDJSON response, without ids. Rows are written by the JSON
 * row writer of the other text formats (values as in JSON and NDJSON, each row on one line), a poll's batch at a
 * time.
 *
 * Server-Sent Events (the WHATWG HTML standard, "Server-sent events"): `id: <position>` and `data: <row as JSON>`,
 * then a blank line. A position reached without a row (the start of the window, or a horizon the follower has
 * read up to) is an `id:` alone: browsers update their last event id from it without dispatching an event, so a
 * reconnection resumes past events that no one was shown. Keep-alives are comment lines (`: keep-alive`). A
 * failure is an `event: error` whose data is the API's error object, and the transfer is then aborted.
 *
 * NDJSON: keep-alives are empty lines (which no row is); a follow that reaches `until` ends with the empty line of
 * a complete NDJSON body, a failure with an error line and an aborted transfer, as every NDJSON response.
 */
import { Buffer } from 'node:buffer';
import type { StreamError } from '../../encode/encoder.js';
import { jsonRowWriter, type JsonRowWriter } from '../../encode/text/json-row-writer.js';
import { PageBuffer } from '../../encode/text/page-buffer.js';
import type { ResultColumn } from '../../core/result-stream.js';
import type { FollowPoint } from '../../query/follow/follow-ids.js';
import type { FollowItem } from './follow-loop.js';

export type FollowFormat = 'sse' | 'ndjson';

export interface FollowFraming {
  /** Written when the response starts. */
  start(): string;
  /** A batch of rows, with the position after each (the event ids). */
  rows(item: Extract<FollowItem, { kind: 'rows' }>): Buffer;
  /** A position reached without a row (undefined: the format carries none). */
  mark(point: FollowPoint): string | undefined;
  keepAlive(): string;
  /** The end of a follow that reached `until`. */
  end(): string;
  /** The in-body mark of a failure. */
  cut(error: StreamError & { queryId?: string }): string;
}

const NONE = new Uint8Array(0);
const NEWLINE = Uint8Array.of(0x0a);
const EVENT_END = Buffer.from('\n\n');

/** The framing of `format`; `idOf` signs a position into an event id; `retryMs`: the reconnection delay advised. */
export function followFraming(
  format: FollowFormat,
  idOf: (p: FollowPoint) => string,
  retryMs: number,
  drained?: () => boolean,
): FollowFraming {
  const out = new PageBuffer(undefined, drained);
  let writer: { columns: readonly ResultColumn[]; write: JsonRowWriter } | undefined;
  const writerOf = (columns: readonly ResultColumn[]) => {
    if (writer?.columns !== columns) writer = { columns, write: jsonRowWriter(columns) };
    return writer.write;
  };
  if (format === 'ndjson') {
    return {
      start: () => '',
      rows({ columns, rows }) {
        const write = writerOf(columns);
        for (const row of rows) write(row, out, NONE, NEWLINE);
        return out.take();
      },
      mark: () => undefined,
      keepAlive: () => '\n',
      end: () => '\n',
      cut: (error) => `${JSON.stringify({ error })}\n`,
    };
  }
  return {
    start: () => `retry: ${retryMs}\n\n`,
    rows({ columns, rows, points }) {
      const write = writerOf(columns);
      for (let i = 0; i < rows.length; i++)
        write(rows[i]!, out, Buffer.from(`id: ${idOf(points[i]!)}\ndata: `), EVENT_END);
      return out.take();
    },
    mark: (point) => `id: ${idOf(point)}\n\n`,
    keepAlive: () => ': keep-alive\n\n',
    end: () => '',
    cut: (error) => `event: error\ndata: ${JSON.stringify({ error })}\n\n`,
  };
}
