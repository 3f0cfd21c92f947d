import type { ColumnCodec } from '../core/content-codings.js';
import type { ResultStream } from '../core/result-stream.js';

/** Where the next page is, when the result is one page of a longer read. */
export interface PageInfo {
  /** Absolute or root-relative URL of the next page; null on the last page. */
  next: string | null;
}

/** What an error after the first byte is reported as, inside the body (see each encoder's completeness rule). */
export interface StreamError {
  code: string;
  message: string;
  status?: number;
}

/**
 * The page being encoded, plus how to report a failure that happens once the body has started. Encoders read
 * `next` only when the body ends, so a caller may set it once the last row is known.
 */
export interface EncodeOptions extends PageInfo {
  /** Extra top-level members of the JSON body (e.g. a cursor's `batch` token); written only on success. */
  meta?: Record<string, unknown>;
  /**
   * Maps an error thrown by the result after output started to what the body says. Use the error catalog here:
   * the default reveals nothing of the error (5xx messages never leak internals).
   */
  onError?: (err: unknown) => StreamError;
  /**
   * Whether every chunk yielded so far has left the process (written out, nothing of it queued): encoders may
   * then reuse the memory of those chunks for later ones. Absent: a yielded chunk is never written into again.
   */
  drained?: () => boolean;
  /** The codec of formats that compress their columns (Parquet); absent: the format's default. */
  columnCodec?: ColumnCodec;
  /** CSV cells that begin like a spreadsheet formula: `escape`d (absent: the default) or kept (csv-formulas.ts). */
  csvFormulas?: 'escape' | 'keep';
  /**
   * The body is a file read by range, not a stream (API.md "Windows as files"): Arrow writes its IPC file format
   * (with the footer that indexes its batches), Parquet row groups of `rowGroupRows` rows with page statistics.
   */
  file?: FileLayout;
}

/** How a format lays out a file that readers open by range. */
export interface FileLayout {
  rowGroupRows: number;
}

/**
 * An encoder: pulls `result.batches` lazily (one batch per chunk it is asked for, never ahead of its consumer)
 * and yields the body. Nothing is yielded before the first non-empty batch (or the end), so an error up to that
 * point rejects the first `next()` and the caller can still answer with a normal error response and status.
 * Pipe it with `stream.pipeline` / `Readable.from`, or `encodedReadable` to keep Node from reading ahead.
 */
export type Encoder = (
  result: ResultStream,
  options: EncodeOptions,
) => AsyncGenerator<string | Uint8Array, void, undefined>;

const UNKNOWN_FAILURE: StreamError = {
  code: 'TG_STREAM_FAILED',
  message: 'The query failed after the response had started; the response is incomplete.',
  status: 502,
};

/** The in-body error object: the mapped error plus the Trino query id (the API's error shape). */
export function streamErrorBody(err: unknown, options: EncodeOptions, queryId: string): Record<string, unknown> {
  let mapped = UNKNOWN_FAILURE;
  try {
    mapped = options.onError?.(err) ?? UNKNOWN_FAILURE;
  } catch {
    // A broken mapper must not turn a visible cut into a silent one.
  }
  const body: Record<string, unknown> = { code: mapped.code, message: mapped.message };
  if (mapped.status !== undefined) body.status = mapped.status;
  if (queryId) body.queryId = queryId;
  return body;
}
