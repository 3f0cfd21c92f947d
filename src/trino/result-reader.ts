/**
 * One result's rows from its pages, in either protocol (the same path reads both; there is no setting to get
 * wrong). A direct page carries rows (`data` is an array); a spooled-protocol page carries segments (`data` is
 * `{encoding, segments}`), each inline (base64 in the page) or spooled (fetched by URI, then acknowledged).
 *
 * Order and memory: segments are yielded in the order Trino lists them. Spooled segments are fetched up to
 * `window` at once, counted from the one being read, so the fetches run ahead of the consumer by at most
 * `window` segments and never faster than it pulls; a fetched segment stays compressed until its turn. In
 * spooled mode the next page (segment descriptors only) is asked for while the window has room; a direct page is
 * asked for when the consumer starts reading the one before it (one page ahead).
 *
 * A segment is acknowledged (Trino may delete it) once its rows have been read; when the reader is released
 * early (client gone, failure, deadline) every segment it knows of and has not acknowledged is released too.
 */
import { performance } from 'node:perf_hooks';
import { setImmediate } from 'node:timers/promises';
import { JsonRows } from './json-rows.js';
import type { ResultColumn } from '../core/result-stream.js';
import type { TextRows } from '../core/text-rows.js';
import { decodable, decodeSegment, decoderReady, type SegmentMetadata } from './segment-decoder.js';
import { TrinoQueryError, TrinoUnavailableError, type TrinoErrorInfo } from './trino-errors.js';

export interface InlineSegment {
  type: 'inline';
  /** The segment's bytes, base64. */
  data: string;
  metadata: SegmentMetadata;
}

export interface SpooledSegment {
  type: 'spooled';
  uri: string;
  ackUri?: string;
  /** Headers to send with the segment's GET and its acknowledgement. */
  headers?: Record<string, string[]>;
  metadata: SegmentMetadata;
}

/** The `data` of a spooled-protocol page. */
export interface EncodedData {
  encoding: string;
  segments: (InlineSegment | SpooledSegment)[];
}

export interface Page {
  id: string;
  nextUri?: string;
  columns?: ResultColumn[];
  /** Rows (a direct page: JsonRows when parsed by the port, an array in tests) or segments (spooled). */
  data?: unknown[][] | JsonRows | EncodedData;
  error?: TrinoErrorInfo;
  stats?: { state?: string };
}

/** What the reader asks of the protocol layer. */
export interface PageSource {
  /**
   * GETs a nextUri (retried as the protocol allows). `graced`: the page may announce spooled segments, so a
   * cancellation lets it arrive (briefly) rather than cut it, and they can be released.
   */
  page(uri: string, graced: boolean): Promise<Page>;
  /** GETs a spooled segment's bytes (retried); rejects when the query is aborted. */
  segment(segment: SpooledSegment): Promise<Buffer>;
  /** Acknowledges a segment: Trino may delete it. Never throws; not awaited. */
  release(segment: SpooledSegment): void;
}

export interface ReaderOptions {
  queryId: string;
  /** Spooled segments fetched at once (TOPICGATE_TRINO_SEGMENT_FETCH). */
  window: number;
  /** Parse BIGINT losslessly (the result has a bigint column). */
  lossless: boolean;
  /** Batches as the JSON text Trino sent (core/text-rows.ts), not parsed here. */
  text?: boolean;
  /** The encodings asked for; Trino answering in another one is a protocol failure. */
  encodings: readonly string[];
}

type Item =
  | { kind: 'rows'; rows: unknown[][] | JsonRows }
  | { kind: 'inline'; encoding: string; segment: InlineSegment }
  | { kind: 'spooled'; encoding: string; segment: SpooledSegment; bytes?: Promise<Buffer> };

/**
 * Rows are parsed and handed on in batches of at most this many (a page holds some 18,000 and a segment up to
 * 30,000). Small enough that a batch dies in V8's young generation (8 MB semi-spaces under `npm start`,
 * docs/performance.md "Memory"): 8,192 doubled the peak RSS of a 10^7-row read, and 512 costs more CPU than it saves.
 */
export const BATCH_ROWS = 1024;

/**
 * The longest the reader and its consumer run without letting the event loop turn, ms. A batch parsed is handed to
 * the encoder, whose write to a fast socket returns at once, and the next batch is asked for in the same turn: left
 * to that, a whole spooled segment (up to 16 MB, some 100,000 rows) is read and written in one turn, for every
 * stream at once, holding every other request and the load-shedding check (which answers 503 after a second
 * without a turn) for hundreds of milliseconds. Past this, the reader yields before its next batch.
 */
const TURN_MS = 10;

export class ResultReader {
  /** The latest nextUri Trino gave while the query has one: what a cancellation DELETEs. */
  lastUri: string | undefined;
  private nextUri: string | undefined;
  private readonly queue: Item[] = [];
  private current: Item | undefined;
  private pending: Promise<Page> | undefined;
  private spooled = false;
  private released = false;

  constructor(
    private readonly first: Page,
    private readonly source: PageSource,
    private readonly options: ReaderOptions,
  ) {
    this.lastUri = first.nextUri;
  }

  /** The rows, batch by batch; throws TrinoQueryError for an in-band error, and the source's errors. */
  async *rows(): AsyncGenerator<unknown[][] | TextRows> {
    this.accept(this.first);
    let turn = performance.now();
    for (;;) {
      this.lookAhead();
      const item = this.queue[0];
      if (!item) {
        this.pending ??= this.nextUri === undefined ? undefined : this.source.page(this.take(), this.spooled);
        if (!this.pending) return;
        const page = await this.pending;
        this.pending = undefined;
        this.accept(page);
        continue;
      }
      this.current = item;
      const batches = await this.batchesOf(item);
      this.queue.shift();
      for (const rows of batches) {
        if (performance.now() - turn > TURN_MS) {
          await setImmediate();
          turn = performance.now();
        }
        yield rows;
      }
      this.current = undefined;
      if (item.kind === 'spooled') this.source.release(item.segment);
    }
  }

  /** Releases every segment not yet acknowledged, including those of a page still on its way. Idempotent. */
  release(): void {
    if (this.released) return;
    this.released = true;
    const items = this.current && this.queue[0] !== this.current ? [this.current, ...this.queue] : this.queue;
    for (const item of items) if (item.kind === 'spooled') this.source.release(item.segment);
    this.queue.length = 0;
    void this.pending?.then(
      (page) => {
        if (page.data && !Array.isArray(page.data) && !(page.data instanceof JsonRows))
          for (const s of page.data.segments ?? []) if (s.type === 'spooled') this.source.release(s);
      },
      () => {},
    );
  }

  private take(): string {
    const uri = this.nextUri!;
    this.nextUri = undefined;
    return uri;
  }

  private accept(page: Page): void {
    this.nextUri = this.lastUri = page.nextUri;
    if (page.error) throw new TrinoQueryError(page.error, this.options.queryId);
    const data = page.data;
    if (data === undefined || data === null) return;
    if (data instanceof JsonRows) {
      if (data.ranges.length > 0) this.queue.push({ kind: 'rows', rows: data });
      return;
    }
    if (Array.isArray(data)) {
      if (data.length > 0) this.queue.push({ kind: 'rows', rows: data });
      return;
    }
    const { encoding, segments } = data;
    if (!decodable(encoding) || !this.options.encodings.includes(encoding) || !Array.isArray(segments)) {
      throw new TrinoUnavailableError(`Trino answered in an encoding that was not asked for: ${String(encoding)}`);
    }
    if (segments.some((s) => s.type !== 'inline' && s.type !== 'spooled')) {
      throw new TrinoUnavailableError('Trino sent a result segment of an unknown type');
    }
    this.spooled = true;
    for (const segment of segments) {
      if (segment.type === 'inline') this.queue.push({ kind: 'inline', encoding, segment });
      else this.queue.push({ kind: 'spooled', encoding, segment });
    }
  }

  /**
   * Starts the fetches the window allows; in spooled mode, asks for the next page while the window has room; in
   * direct mode, for the next page while the current one is read (one page ahead, no more: the consumer still
   * paces Trino, and the page's rows, parsed a batch at a time, no longer leave the encoder idle while it comes).
   */
  private lookAhead(): void {
    const { window } = this.options;
    const room = this.spooled ? this.queue.length < window : this.queue.length <= 1;
    if (!this.pending && this.nextUri !== undefined && room) {
      this.pending = this.source.page(this.take(), this.spooled);
      this.pending.catch(() => {}); // awaited later; a failure surfaces there
    }
    for (let i = 0; i < Math.min(window, this.queue.length); i++) {
      const item = this.queue[i]!;
      if (item.kind !== 'spooled' || item.bytes) continue;
      item.bytes = this.source.segment(item.segment);
      item.bytes.catch(() => {}); // awaited in its turn; a failure surfaces there
    }
  }

  private async batchesOf(item: Item): Promise<Iterable<unknown[][] | TextRows>> {
    const { lossless, text } = this.options;
    if (item.kind === 'rows') {
      if (!(item.rows instanceof JsonRows)) return batched(item.rows);
      return item.rows.batches(lossless, () => new TrinoUnavailableError(NOT_JSON), text);
    }
    await decoderReady;
    const bytes = item.kind === 'inline' ? Buffer.from(item.segment.data, 'base64') : await item.bytes!;
    // accept() admitted only decodable encodings.
    const encoding = item.encoding as Parameters<typeof decodeSegment>[0];
    return decodeSegment(encoding, bytes, item.segment.metadata, lossless, BATCH_ROWS, text);
  }
}

const NOT_JSON = 'Trino answered with a page whose rows are not JSON';

function batched(rows: unknown[][]): unknown[][][] {
  if (rows.length <= BATCH_ROWS) return [rows];
  const out: unknown[][][] = [];
  for (let i = 0; i < rows.length; i += BATCH_ROWS) out.push(rows.slice(i, i + BATCH_ROWS));
  return out;
}
