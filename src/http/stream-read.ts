/**
 * The response half of a read: the page (read/open-page.ts) encoded in the negotiated media type and streamed with
 * backpressure, Trino cancelled when the client goes away, the next page named in the headers (when the format
 * needs it there) or in the body, the audit line and the metrics kept, and a cut response visibly broken.
 */
import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ColumnCodec } from '../core/content-codings.js';
import { ApiError } from '../core/errors.js';
import {
  drainedOutput,
  encodedReadable,
  encoderRegistry,
  type EncoderEntry,
  type MediaType,
} from '../encode/encoder-registry.js';
import type { EncodeOptions } from '../encode/encoder.js';
import { PageTokens } from '../query/page-tokens.js';
import type { PlannedRead } from '../query/planner.js';
import { openPage, type Page, type PageEnd } from '../read/open-page.js';
import { logFailure, toApiError } from '../trino/trino-errors.js';
import { flushThenAbort } from './flush-then-abort.js';
import { setCacheHeaders, type ReadCache } from './read-cache.js';
import { callerOf, requestTrino } from './request-caller.js';
import { wireBody } from './wire-body.js';

export interface StreamOptions {
  /** Page links (events) or none (a cursor batch is one unit). */
  paged: boolean;
  /** The page token the request presented, accepted by its plan: a query held for it is continued. */
  token?: string;
  nextUrl?: (token: string) => string;
  /** Extra members of the JSON body, written only on success. */
  meta?: Record<string, unknown>;
  /** The topic read: its Avro / json-sr payloads are decoded unless `decode` is false. */
  topic: string;
  decode: boolean;
  readerVersions?: Partial<Record<'key' | 'value', number>>;
  /** A settled window's ETag and freshness (http/read-cache.ts); absent or null: `no-store`. */
  cache?: ReadCache | null;
  /** `compression=`: the column codec of a format that compresses its columns (Parquet); a 400 for the others. */
  compression?: ColumnCodec;
}

/** Aborted when the client goes away before the response has finished: the Trino query is cancelled. */
function abortWhenClientGoes(reply: FastifyReply): AbortController {
  const abort = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) abort.abort();
  });
  return abort;
}

/** Runs a planned read and streams it in the media type, cancelling Trino if the client goes away. */
export async function streamRead(
  app: FastifyInstance,
  request: FastifyRequest,
  reply: FastifyReply,
  plan: PlannedRead,
  media: MediaType,
  o: StreamOptions,
) {
  const entry = encoderRegistry[media];
  checkColumnCodec(entry, o.compression);
  const abort = abortWhenClientGoes(reply);
  const { config, registry, held, memory: gateway } = app.tg;
  // What the response holds in the gateway is given back when it ends, however it ends.
  const memory = gateway.account();
  reply.raw.once('close', () => memory.close());
  // A look-ahead for exact headers holds at most its share of the limit: as much as each of the gateway's queries.
  const lookAheadBytes = Math.floor(gateway.maxBytes / config.limits.maxConcurrentQueries);
  const ctx = { config, registry, held, trino: requestTrino(request), signal: abort.signal, memory, lookAheadBytes };
  const page = await openPage(ctx, plan, {
    ...o,
    caller: callerOf(request)?.id ?? '',
    bytesAsHex: entry.bytesAsHex,
    flattensDecoded: entry.flattensDecoded,
  }).catch((err: unknown) => {
    app.metrics.trinoQueries.inc({ outcome: 'failed' });
    throw err;
  });
  reply.header('X-Trino-Query-Id', page.queryId);
  const tokens = new PageTokens(app.tg.keyring);
  const nextUrl = (token: string | null) => (token && o.nextUrl ? o.nextUrl(token) : token);
  const headerToken = await nextInHeaders(page, reply, tokens, entry.nextInBody ? undefined : o);
  let body: Readable | undefined;
  const options: EncodeOptions = {
    next: null,
    meta: o.meta,
    onError: (err: unknown) => {
      const e = toApiError(err);
      // A client that went away is not a failure to log (its query is cancelled, as it should be).
      if (!abort.signal.aborted) logFailure(request.log, e, err);
      return { code: e.code, message: e.message, status: e.status };
    },
    drained: drainedOutput(reply.raw, () => body),
    columnCodec: o.compression,
    csvFormulas: app.tg.config.csvFormulas,
  };
  let finished = false;
  const count = () => {
    request.audit.rows = page.rows;
    app.metrics.rows.inc({ format: entry.format }, page.rows);
  };
  const shown = page.body((end) => {
    finished = true;
    count();
    if (!page.continued) app.metrics.trinoQueries.inc({ outcome: 'ok' });
    if (page.paged) options.next = nextUrl(pageEnd(end, tokens, headerToken));
  });
  const chunks = wireBody(app.tg.config, request, reply, entry, entry.encode(shown, options));
  body = encodedReadable(flushThenAbort(chunks, reply.raw));
  body.once('close', () => {
    if (finished) return;
    count();
    app.metrics.trinoQueries.inc({ outcome: abort.signal.aborted ? 'cancelled' : 'failed' });
  });
  body.on('error', (err) => request.log.warn({ err }, 'response stream failed'));
  // Only now, with the first batch read: a read that failed before its body is an error without the tag.
  setCacheHeaders(reply, o.cache);
  return reply.type(entry.contentType).send(body);
}

/** `compression=` names a column codec: only a format that compresses its columns has one. */
function checkColumnCodec(entry: EncoderEntry, codec: ColumnCodec | undefined): void {
  if (codec === undefined || entry.compression === 'columns') return;
  throw new ApiError(
    'TG_BAD_REQUEST',
    `compression=${codec} sets the column codec of format=parquet; ${entry.format} is compressed on the wire instead, as Accept-Encoding asks`,
    { parameter: 'compression' },
  );
}

/**
 * Formats that name the next page in headers read ahead to make Link exact, and name it when it is known (the
 * token, undefined when none); the others (`o` undefined) read one batch, so errors in the first batch still get a
 * proper status.
 */
async function nextInHeaders(
  page: Page,
  reply: FastifyReply,
  tokens: PageTokens,
  o: Pick<StreamOptions, 'nextUrl'> | undefined,
): Promise<string | undefined> {
  const named = page.paged && o !== undefined;
  await page.lookAhead(named);
  const next = named ? page.nextBeforeBody() : null;
  if (!next) return undefined;
  const token = tokens.encode(next);
  reply.header('Topicgate-Next-Cursor', token);
  if (o?.nextUrl) reply.header('Link', `<${o.nextUrl(token)}>; rel="next"`);
  return token;
}

/**
 * The next page's token at the page's end; the rest of the result is held for it, only under the token the
 * client was given (the one in the headers, when they named one).
 */
function pageEnd(end: PageEnd, tokens: PageTokens, headerToken: string | undefined): string | null {
  const next = end.next();
  const token = next ? tokens.encode(next) : null;
  end.holdRest(token && (headerToken === undefined || headerToken === token) ? token : null);
  return token;
}
