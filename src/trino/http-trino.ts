/**
 * The Trino port over Trino's client protocol (POST /v1/statement, GET each nextUri, DELETE to cancel), spoken
 * directly over Node's http/https modules: http-transport.ts makes one HTTP exchange, trino-connection.ts knows
 * where Trino is and as whom to reach it, this file speaks the protocol.
 *
 * Why not trino-client: its public API cannot give what the gateway needs. It parses pages with axios'
 * JSON.parse (BIGINT beyond 2^53 loses digits); it copies X-Trino-Set-* response headers into headers shared by
 * every later query (no per-query headers without shared mutable state); it takes no AbortSignal and does not
 * cancel a query whose iteration stops; it does not retry nextUri GETs; it has no per-request timeout. Wrapping
 * it meant patching its private fields, which an upgrade can break silently. The protocol is small enough.
 * Here: every header is built per query; the lossless parse runs while the result may hold a BIGINT; an in-band
 * `error` on any page is a TrinoQueryError; nextUri GETs are retried on 429/502/503/504, connection resets
 * and timeouts with capped exponential backoff (Trino answers a repeated GET of a token with the same page), the
 * POST never (a lost answer may still have registered the query); the next page is fetched only when the
 * consumer pulls; a query is cancelled (DELETE) on abort and on a deadline (Trino's query_max_run_time, and the
 * gateway's own backstop a little later); credentials go only over https, to the configured origin. With
 * encodings set, the POST asks for the spooling protocol (X-Trino-Query-Data-Encoding); result-reader.ts reads
 * direct pages and spooled segments alike, segment-fetch.ts fetches and acknowledges the segments. The protocol's
 * four exchanges (POST, nextUri GET, DELETE, info) and the result stream's cancellation stay together here: they
 * share one query control and retry policy.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { pageBuffers } from './buffer-pool.js';
import type { HttpReply } from './http-transport.js';
import { memberRows } from './json-rows.js';
import { parseLosslessJson } from '../core/lossless-json.js';
import { gracedSignal, QueryControl } from './query-control.js';
import { BATCH_ROWS, ResultReader, type Page } from './result-reader.js';
import { SegmentFetch } from './segment-fetch.js';
import { failQuerySpan, startQuerySpan } from './query-span.js';
import { statementHeaders } from './statement-headers.js';
import { TrinoConnection, type Exchange, type HttpTrinoOptions } from './trino-connection.js';
import { TrinoQueryError, TrinoUnavailableError } from './trino-errors.js';
import {
  collectRows,
  type QueryOptions,
  type TrinoInfo,
  type TrinoPort,
  type TrinoResult,
  type TrinoRows,
} from './trino-port.js';
import { backoffMs, retryable, unavailable } from './wire-failures.js';
import type { RowBatch } from '../core/text-rows.js';

const DEFAULT_QUERY_TIMEOUT_MS = 120_000;
/** The gateway's deadline comes this long after Trino's query_max_run_time, as a backstop. */
const DEADLINE_GRACE_MS = 2_000;
const SHORT_REQUEST_MS = 5_000;

export type { HttpTrinoOptions } from './trino-connection.js';

/** How long a nextUri GET on its way may still arrive after its query is cancelled (see fetch). */
const PAGE_GRACE_MS = 2000;

export class HttpTrino implements TrinoPort {
  private readonly connection: TrinoConnection;
  /** Every query not yet finished, failed or cancelled, for close(). */
  private readonly active = new Set<QueryControl>();
  /** Cancellations (DELETEs) in flight, so close() can wait for them. */
  private readonly cancelling = new Set<Promise<void>>();
  private readonly segments: SegmentFetch;
  private readonly encodings: readonly string[];
  private readonly segmentFetch: number;

  constructor(options: HttpTrinoOptions) {
    this.connection = new TrinoConnection(options);
    [this.segments, this.encodings] = [new SegmentFetch(this.connection), options.encodings ?? []];
    this.segmentFetch = options.segmentFetch ?? 4;
  }

  async query(sql: string, opts: QueryOptions = {}): Promise<TrinoResult> {
    const timeoutMs = opts.timeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS;
    const headers = statementHeaders(this.connection.identity, opts, timeoutMs);
    if (this.encodings.length > 0) headers['X-Trino-Query-Data-Encoding'] = this.encodings.join(','); // spooling
    const user = headers['X-Trino-User']!;
    const span = startQuerySpan(headers); // tracing: a child of the request's span, its traceparent sent
    const control = new QueryControl(opts.signal, timeoutMs + DEADLINE_GRACE_MS, this.active, () => span.end());
    let first: Page;
    try {
      if (opts.signal?.aborted) throw control.cancelled(undefined);
      first = await this.firstPage(sql, headers, user, control, opts.cancelling);
      span.setAttribute('trino.query_id', first.id);
      if (first.error) throw new TrinoQueryError(first.error, first.id);
    } catch (err) {
      failQuerySpan(span, err);
      control.dispose();
      throw err;
    }
    return this.stream(first, user, control, opts.rowText === true);
  }

  all(sql: string, opts: QueryOptions = {}): Promise<TrinoRows> {
    return this.query(sql, opts).then(collectRows);
  }

  async cancel(queryId: string): Promise<void> {
    const url = this.connection.endpoint(`/v1/query/${encodeURIComponent(queryId)}`);
    await this.connection
      .exchange({ method: 'DELETE', url, headers: { 'X-Trino-User': this.connection.identity.user } })
      .catch(() => {});
  }

  async close(): Promise<void> {
    for (const control of this.active) control.abort();
    // Each abort starts its query's cancellation within microtasks (queued, planning or streaming alike): let
    // them run, then wait until every DELETE has been answered.
    await new Promise((resolve) => setImmediate(resolve));
    while (this.cancelling.size > 0) await Promise.allSettled([...this.cancelling]);
  }

  async info(signal?: AbortSignal): Promise<TrinoInfo> {
    try {
      const url = this.connection.endpoint('/v1/info');
      const reply = await this.connection.exchange({
        method: 'GET',
        url,
        headers: {},
        signal,
        timeoutMs: SHORT_REQUEST_MS,
      });
      return parsePage(reply, false) as unknown as TrinoInfo;
    } catch (err) {
      throw unavailable(err);
    }
  }

  /** POSTs the query, then follows nextUri until Trino names the columns (or finishes, or fails). */
  private async firstPage(
    sql: string,
    headers: Record<string, string>,
    user: string,
    control: QueryControl,
    cancelling?: (cancelled: Promise<void>) => void,
  ): Promise<Page> {
    // The POST is not aborted with the query: its answer names the query to cancel. An abort while it is in
    // flight rejects at once, and the query is cancelled when Trino has answered.
    const post = this.connection
      .exchange({ method: 'POST', url: this.connection.endpoint('/v1/statement'), headers, body: sql })
      .then(
        (reply) => parsePage(reply, true),
        (err: unknown) => Promise.reject(unavailable(err)),
      );
    let page = await Promise.race([post, control.whenAborted]);
    if (page === undefined) {
      const sent = post.then((p) => (p.nextUri ? this.cancelUri(p.nextUri, user) : undefined)).catch(() => {});
      const cancelled = this.track(sent);
      cancelling?.(cancelled);
      throw control.cancelled(undefined);
    }
    try {
      while (!page.columns && page.nextUri && !page.error) page = await this.fetch(page.nextUri, user, control, true);
    } catch (err) {
      // Still queued or planning: the query exists in Trino and must not be left to run.
      const cancelling = page.nextUri ? this.cancelUri(page.nextUri, user) : Promise.resolve();
      if (!control.signal.aborted) throw err;
      await cancelling;
      throw control.cancelled(page.id);
    }
    return page;
  }

  /**
   * The result from its first page with columns on: read by result-reader.ts (direct pages and spooled segments
   * alike), pulled by the consumer, cancelled (and its spooled segments released) when the pulls stop early.
   */
  private stream(first: Page, user: string, control: QueryControl, text: boolean): TrinoResult {
    const queryId = first.id;
    // JSON.parse is exact for every type but BIGINT (sent as a JSON number); skip the slower scan without one.
    const lossless = (first.columns ?? []).some((c) => /\bbigint\b/.test(c.type));
    const { signal } = control;
    const reader = new ResultReader(
      first,
      {
        page: (uri, spooled) => this.fetch(uri, user, control, lossless, spooled),
        segment: (segment) => this.segments.bytes(segment, signal),
        release: (segment) => void this.track(this.segments.acknowledge(segment)),
      },
      { queryId, window: this.segmentFetch, lossless, encodings: this.encodings, text },
    );
    let done = false;
    let cancelled: Promise<void> = Promise.resolve();
    // Safe to call twice: a second call waits for the first one's DELETE. A result cancelled before (or while) it
    // is read lets go of its deadline and its place among the running queries too, and stops a fetch in flight.
    const cancel = () => {
      if (done) return cancelled;
      done = true;
      if (reader.lastUri) cancelled = this.cancelUri(reader.lastUri, user);
      reader.release();
      control.abort();
      cancelled = cancelled.finally(() => control.dispose());
      return cancelled;
    };
    signal.addEventListener('abort', () => void cancel(), { once: true });
    async function* batches(): AsyncGenerator<RowBatch> {
      try {
        for await (const rows of reader.rows()) {
          if (signal.aborted) throw control.cancelled(queryId);
          yield rows;
        }
        done = true;
      } catch (err) {
        throw signal.aborted && !(err instanceof TrinoQueryError) ? control.cancelled(queryId) : err;
      } finally {
        // Stopping early (client gone, error) must not leave the query running in Trino.
        await cancel();
        control.dispose();
      }
    }
    return { queryId, columns: first.columns ?? [], batches: batches(), cancel };
  }

  /**
   * GETs a nextUri, retrying what the protocol allows; an abort rejects with the signal's reason. `spooled`: a page
   * already on its way when the query is cancelled gets PAGE_GRACE_MS to arrive, as it may announce segments, which
   * the reader then releases (result-reader.ts) instead of leaving them in the spool to expire.
   */
  private async fetch(
    uri: string,
    user: string,
    control: QueryControl,
    lossless: boolean,
    spooled = false,
  ): Promise<Page> {
    const { signal } = control;
    if (signal.aborted) throw signal.reason;
    const { retries, baseMs, maxMs } = this.connection.retry;
    const graced = spooled ? gracedSignal(signal, PAGE_GRACE_MS) : { signal, dispose: () => {} };
    const request: Exchange = {
      method: 'GET',
      url: this.connection.follow(uri),
      headers: { 'X-Trino-User': user },
      signal: graced.signal,
      pool: pageBuffers, // given back by parsePage
    };
    try {
      for (let attempt = 0; ; attempt++) {
        try {
          return parsePage(await this.connection.exchange(request), lossless);
        } catch (err) {
          if (signal.aborted) throw err;
          if (attempt >= retries || !retryable(err)) throw unavailable(err);
          await sleep(backoffMs(attempt, { baseMs, maxMs }), undefined, { signal });
        }
      }
    } finally {
      graced.dispose();
    }
  }

  /** Keeps a cancellation in view until it settles (close() waits for it). */
  private track(p: Promise<void>): Promise<void> {
    this.cancelling.add(p);
    void p.finally(() => this.cancelling.delete(p));
    return p;
  }

  /** Best effort: DELETE of a nextUri cancels its query. Never throws. */
  private cancelUri(uri: string, user: string): Promise<void> {
    const headers = { 'X-Trino-User': user };
    const url = () => this.connection.follow(uri);
    const send = async () =>
      this.connection.exchange({ method: 'DELETE', url: url(), headers, timeoutMs: SHORT_REQUEST_MS });
    // On failure, Trino cancels an unpolled query itself in the end (query.client.timeout).
    return this.track(send().then(noop, noop));
  }
}

const noop = () => {};

/**
 * A page's envelope, parsed; its rows (`data`, on a direct page) are kept as text and parsed a batch at a time
 * by the reader (json-rows.ts), which knows from the columns whether BIGINTs need the lossless parse.
 */
function parsePage(reply: HttpReply, lossless: boolean): Page {
  try {
    const { rest, rows } = memberRows(reply.body, 'data', BATCH_ROWS);
    // The body is a pooled buffer (fetch): the rows' bytes go back once read, the rest is text already.
    if (rows) rows.releaseWhenRead(() => pageBuffers.give(reply.body));
    else pageBuffers.give(reply.body);
    const page = (lossless ? parseLosslessJson(rest) : JSON.parse(rest)) as Page;
    if (rows) page.data = rows;
    return page;
  } catch {
    pageBuffers.give(reply.body);
    throw new TrinoUnavailableError(`Trino answered HTTP ${reply.status} with a body that is not JSON`, reply.status);
  }
}
