/**
 * The only code that talks to Trino. It wraps trino-client's HTTP client and adds what the gateway needs:
 * per-query catalog/schema/user/session headers (never shared state), a lossless JSON parse (BIGINT keeps its
 * digits), a typed error for an in-band `error` on any page, retries of GETs the protocol allows, lazy paging
 * (the next page is fetched only when the consumer pulls), cancellation on abort and on a deadline.
 */
import { Trino } from 'trino-client';
import type { ResultColumn, ResultStream } from './result-stream.js';
import { parseLosslessJson } from './lossless-json.js';
import { QueryCancelledError, TrinoQueryError, TrinoUnavailableError, type TrinoErrorInfo } from './trino-errors.js';

export interface QueryOptions {
  catalog?: string;
  schema?: string;
  user?: string;
  /** Extra Trino session properties. */
  session?: Record<string, string>;
  /** Aborting cancels the query in Trino. */
  signal?: AbortSignal;
  /** Sets Trino's query_max_run_time and the gateway's own deadline. */
  timeoutMs?: number;
}

export interface TrinoResult extends ResultStream {
  /** Cancels the query in Trino if it is still running; safe to call twice. */
  cancel(): Promise<void>;
}

interface Page {
  id: string;
  nextUri?: string;
  columns?: ResultColumn[];
  data?: unknown[][];
  error?: TrinoErrorInfo;
  stats?: { state?: string };
}

/** The part of trino-client's Client used here: one HTTP request with its base URL and parsing. */
interface RawClient {
  clientConfig: Record<string, unknown>;
  request(cfg: Record<string, unknown>): Promise<unknown>;
}

const RETRY_STATUSES = new Set([429, 502, 503, 504]);
const DEFAULT_TIMEOUT_MS = 120_000;

export interface TrinoClientOptions {
  server: string;
  user: string;
  source?: string;
}

export class TrinoClient {
  private readonly raw: RawClient;

  constructor(readonly options: TrinoClientOptions) {
    const trino = Trino.create({ server: options.server, source: options.source ?? 'topicgate' });
    const raw = (trino as unknown as { client: RawClient }).client;
    // trino-client copies X-Trino-Set-* response headers into its shared defaults; every request here starts
    // from the same frozen base instead, so nothing one query's response says reaches the next query.
    const base = Object.freeze({ ...(raw.clientConfig.headers as Record<string, unknown>) });
    const request = raw.request.bind(raw);
    raw.request = async (cfg) => {
      raw.clientConfig.headers = { ...base };
      try {
        return await request(cfg);
      } finally {
        raw.clientConfig.headers = { ...base };
      }
    };
    this.raw = raw;
    // Take the body as text and parse it here (parsePage): axios' JSON.parse rounds BIGINT beyond 2^53. An error
    // page stays text, so it cannot hide the HTTP status that retries depend on.
    this.raw.clientConfig.responseType = 'text';
    this.raw.clientConfig.transformResponse = [(d: unknown) => d];
  }

  /** Text to JSON; the lossless parse only while the result may hold a BIGINT (its columns decide). */
  private parsePage(text: unknown, lossless: boolean): Page {
    if (typeof text !== 'string') return text as Page;
    return (lossless ? parseLosslessJson(text) : JSON.parse(text)) as Page;
  }

  /** Starts a query; resolves once Trino has said which columns it returns (or finished, or failed). */
  async query(sql: string, opts: QueryOptions = {}): Promise<TrinoResult> {
    const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const control = new AbortController();
    let reason: 'aborted' | 'deadline' = 'aborted';
    const onAbort = () => control.abort();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    // Trino enforces query_max_run_time itself; the gateway's deadline is a backstop a little later.
    const deadline = setTimeout(() => {
      reason = 'deadline';
      control.abort();
    }, timeoutMs + 2_000);
    deadline.unref();
    const cleanup = () => {
      clearTimeout(deadline);
      opts.signal?.removeEventListener('abort', onAbort);
    };

    let page: Page | undefined;
    try {
      if (opts.signal?.aborted) throw new QueryCancelledError('aborted', undefined);
      page = await this.submit(sql, opts, timeoutMs, control.signal);
      while (!page.columns && page.nextUri && !page.error) page = await this.get(page.nextUri, control.signal);
    } catch (err) {
      cleanup();
      if (control.signal.aborted) {
        // Still queued or planning: the query exists in Trino and must not be left to run.
        if (page?.nextUri) await this.cancelUri(page.nextUri);
        throw new QueryCancelledError(reason, page?.id);
      }
      throw err;
    }
    const queryId = page.id;
    if (page.error) {
      cleanup();
      throw new TrinoQueryError(page.error, queryId);
    }
    let current: Page | undefined = page;
    let done = false;
    const cancel = async () => {
      if (done || !current?.nextUri) return;
      done = true;
      await this.cancelUri(current.nextUri);
    };
    control.signal.addEventListener('abort', () => void cancel(), { once: true });

    // JSON.parse is exact for every type but BIGINT (sent as a JSON number); skip the slower scan without one.
    const lossless = (page.columns ?? []).some((c) => /\bbigint\b/.test(c.type));
    const self = this;
    async function* batches(): AsyncGenerator<unknown[][]> {
      try {
        while (current) {
          if (current.error) throw new TrinoQueryError(current.error, queryId);
          if (current.data && current.data.length > 0) yield current.data;
          if (!current.nextUri) break;
          if (control.signal.aborted) throw new QueryCancelledError(reason, queryId);
          try {
            current = await self.get(current.nextUri, control.signal, lossless);
          } catch (err) {
            if (control.signal.aborted) throw new QueryCancelledError(reason, queryId);
            throw err;
          }
        }
        done = true;
      } finally {
        // Stopping early (client gone, error) must not leave the query running in Trino.
        if (!done) await cancel().catch(() => undefined);
        cleanup();
      }
    }
    return { queryId, columns: page.columns ?? [], batches: batches(), cancel };
  }

  /** Runs a small query to completion and returns all rows (metadata lookups, loaders). */
  async all(sql: string, opts: QueryOptions = {}): Promise<{ columns: readonly ResultColumn[]; rows: unknown[][] }> {
    const r = await this.query(sql, opts);
    const rows: unknown[][] = [];
    for await (const batch of r.batches) for (const row of batch) rows.push(row as unknown[]);
    return { columns: r.columns, rows };
  }

  /** Cancels a query by id (the protocol's DELETE on the query). */
  async cancel(queryId: string): Promise<void> {
    await this.raw
      .request({ url: `/v1/query/${encodeURIComponent(queryId)}`, method: 'DELETE' })
      .catch(() => undefined);
  }

  /** Trino's /v1/info: whether it answers and has finished starting. */
  async info(signal?: AbortSignal): Promise<{ starting: boolean; nodeVersion?: { version: string } }> {
    try {
      return this.parsePage(
        await this.raw.request({ url: '/v1/info', method: 'GET', signal, timeout: 5_000 }),
        false,
      ) as unknown as {
        starting: boolean;
      };
    } catch (err) {
      throw unavailable(err);
    }
  }

  private async submit(sql: string, opts: QueryOptions, timeoutMs: number, signal: AbortSignal): Promise<Page> {
    const session: Record<string, string> = {
      query_max_run_time: `${Math.ceil(timeoutMs / 1000)}s`,
      ...opts.session,
    };
    const headers: Record<string, string> = {
      'X-Trino-User': opts.user ?? this.options.user,
      'X-Trino-Source': this.options.source ?? 'topicgate',
      // Without it Trino rounds timestamps to milliseconds.
      'X-Trino-Client-Capabilities': 'PARAMETRIC_DATETIME',
      'X-Trino-Session': Object.entries(session)
        .map(([k, v]) => `${k}=${encodeURIComponent(v)}`)
        .join(','),
    };
    // Trino reads these headers verbatim (no URL decoding); the gateway's own SQL is fully qualified anyway.
    if (opts.catalog) headers['X-Trino-Catalog'] = headerSafe(opts.catalog);
    if (opts.schema) headers['X-Trino-Schema'] = headerSafe(opts.schema);
    try {
      // Never retried: a lost response may still have registered the query.
      return this.parsePage(
        await this.raw.request({ url: '/v1/statement', method: 'POST', data: sql, headers, signal }),
        true,
      );
    } catch (err) {
      if (signal.aborted) throw err;
      throw unavailable(err);
    }
  }

  private async get(uri: string, signal: AbortSignal, lossless = true): Promise<Page> {
    for (let attempt = 0; ; attempt++) {
      try {
        return this.parsePage(await this.raw.request({ url: uri, method: 'GET', signal }), lossless);
      } catch (err) {
        const status = httpStatus(err);
        if (signal.aborted || attempt >= 5 || status === undefined || !RETRY_STATUSES.has(status)) {
          throw signal.aborted ? err : unavailable(err);
        }
        await new Promise((r) => setTimeout(r, 50 * 2 ** attempt));
      }
    }
  }

  private async cancelUri(uri: string): Promise<void> {
    await this.raw.request({ url: uri, method: 'DELETE', timeout: 5_000 }).catch(() => undefined);
  }
}

function headerSafe(v: string): string {
  if (!/^[\x21-\x7e]+$/.test(v)) throw new Error(`not usable as a Trino session header: ${JSON.stringify(v)}`);
  return v;
}

function httpStatus(err: unknown): number | undefined {
  return (err as { response?: { status?: number } })?.response?.status;
}

function unavailable(err: unknown): TrinoUnavailableError {
  const status = httpStatus(err);
  const code = (err as { code?: string })?.code;
  return new TrinoUnavailableError(
    status ? `Trino answered HTTP ${status}` : `Trino is not reachable (${code ?? (err as Error)?.message ?? 'error'})`,
    status,
  );
}
