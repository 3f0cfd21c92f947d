/**
 * A settled window as a file (API.md "Windows as files"), the HTTP half over the read entry: the read planned for
 * the caller (grants were checked by topicFor, the row scope is in the plan), refused unless its window has
 * settled (409 naming when it does), tagged with the settled window's strong ETag plus the file's layout, then
 * found in the file cache or made into it once (window-files.ts), and served by range (file-reply.ts). Access is
 * checked on every request before the cache is asked: a file is only ever reached through a plan of the caller's.
 */
import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { settleMsOf } from '../config/config.js';
import { ApiError } from '../core/errors.js';
import { encoderRegistry, type EncoderEntry, type MediaType } from '../encode/encoder-registry.js';
import type { FileLayout } from '../encode/encoder.js';
import { encoderFor, openRead } from '../entry/open-read.js';
import type { ReadOptions } from '../entry/plan-read.js';
import { etagInputsOf, strongEtag } from '../entry/settled-validators.js';
import type { PlannedRead } from '../query/planner.js';
import { isRelativeTime } from '../query/request/time.js';
import { isSettledWindow } from '../query/settled-window.js';
import { sendFile } from './file-reply.js';
import { matchesIfNoneMatch, setCacheHeaders, type ReadCache } from './read-cache.js';
import { QueryLease } from '../access/query-lease.js';
import { quotaKey } from '../access/principal.js';
import { callerOf } from './request-caller.js';
import { planReadOf } from './run-read.js';

/** The suffixes a window's file is asked for by, and the media type each is made in. */
export const FILE_MEDIA = {
  parquet: 'application/vnd.apache.parquet',
  arrow: 'application/vnd.apache.arrow.stream',
  csv: 'text/csv',
  ndjson: 'application/x-ndjson',
} as const satisfies Record<string, MediaType>;
export type FileSuffix = keyof typeof FILE_MEDIA;

/** The Content-Type of each file: the encoder's, but Arrow's file format has a media type of its own. */
const CONTENT_TYPES = {
  parquet: encoderRegistry[FILE_MEDIA.parquet].contentType,
  arrow: 'application/vnd.apache.arrow.file',
  csv: encoderRegistry[FILE_MEDIA.csv].contentType,
  ndjson: encoderRegistry[FILE_MEDIA.ndjson].contentType,
} as const satisfies Record<FileSuffix, string>;

/** A change of how files are laid out (not of an encoder, whose version is in the tag already) changes this. */
const FILE_LAYOUT_VERSION = 1;

/** A file varies by the caller only (the suffix names its format; it is never compressed on the wire). */
const FILE_VARY = ['Authorization', 'X-API-Key'];

/** The window's file read by the caller: its read options, and the suffix asked for. */
export interface WindowFileOptions extends ReadOptions {
  suffix: FileSuffix;
}

/** A read's window not settled: when it will be, or why it never will. */
function notSettled(o: ReadOptions, planned: PlannedRead, settleMs: number): ApiError {
  const { until, since } = o.req;
  const hi = planned.position.hi;
  if (hi === undefined || until === undefined || isRelativeTime(until) || (since && isRelativeTime(since))) {
    return new ApiError(
      'TG_WINDOW_NOT_SETTLED',
      'a file is a settled window: give since and until as instants (ISO-8601), until at least the topic settle time ago',
      { parameter: 'until' },
    );
  }
  const settlesAt = new Date(hi + settleMs).toISOString();
  return new ApiError('TG_WINDOW_NOT_SETTLED', `this window settles at ${settlesAt}: ask again then`, {
    parameter: 'until',
    settlesAt,
  });
}

/** The file's validator: the settled window's tag of its read, with the file's layout; a 409 when not settled. */
export function fileCacheOf(app: FastifyInstance, o: WindowFileOptions, planned: PlannedRead, layout: FileLayout) {
  const settleMs = settleMsOf(app.tg.config.topics[o.topic.id]);
  const settled = isSettledWindow({ plan: planned, read: o.req, token: false, settleMs, now: Date.now() });
  if (!settled) throw notSettled(o, planned, settleMs);
  const media = FILE_MEDIA[o.suffix];
  const file = { layout: FILE_LAYOUT_VERSION, ...layout };
  const etag = strongEtag([...etagInputsOf(app.tg, o, planned, media, null), ['file', file]]);
  const cache: ReadCache = {
    etag,
    cacheControl: `private, max-age=${app.tg.config.cacheMaxAgeSeconds}, immutable`,
    vary: FILE_VARY,
  };
  return cache;
}

/** Answers a request for a window's file: planned for the caller, found or made, sent by range. */
export async function sendWindowFile(
  app: FastifyInstance,
  request: FastifyRequest,
  reply: FastifyReply,
  o: WindowFileOptions,
) {
  const entry = encoderFor(FILE_MEDIA[o.suffix], o.compression);
  const planned = await planReadOf(app, request, o);
  const layout: FileLayout = { rowGroupRows: app.tg.config.fileRowGroupRows };
  const cache = fileCacheOf(app, o, planned, layout);
  // A revalidation needs neither the file nor Trino.
  if (matchesIfNoneMatch(request.headers['if-none-match'], cache.etag)) {
    setCacheHeaders(reply, cache);
    return reply.code(304).send();
  }
  const gone = new AbortController();
  reply.raw.once('close', () => gone.abort());
  const signal = app.windowFiles.closing;
  const lease = await app.windowFiles
    .cache()
    .open(cache.etag, o.suffix, gone.signal, (path) =>
      makeFile(app, request, { planned, entry, o, layout, path, signal }),
    );
  return sendFile(request, reply, lease, {
    cache,
    contentType: CONTENT_TYPES[o.suffix],
    sent: (bytes) => app.windowFiles.sentBytes(o.suffix, bytes),
  });
}

/** A window whose file would outgrow the whole cache. */
function tooLarge(max: number): ApiError {
  return new ApiError(
    'TG_TOO_EXPENSIVE',
    `this window's file is larger than the file cache (TOPICGATE_FILE_CACHE_BYTES=${max}): narrow the window or the columns, or read it as a stream (/events?limit=all)`,
    { limit: 'TOPICGATE_FILE_CACHE_BYTES', max },
  );
}

interface Making {
  planned: PlannedRead;
  entry: EncoderEntry;
  o: WindowFileOptions;
  layout: FileLayout;
  path: string;
  /** Aborted when the gateway closes: a make outlives the request that started it, not the process. */
  signal: AbortSignal;
}

/**
 * The make's own Trino port: its queries take the caller's query slots (its `concurrentQueries`, the gateway's
 * `maxConcurrentQueries`, across instances too) until the file is made, but are not cancelled when the request that
 * started it goes away: a reader that gave up waiting (an HTTP timeout shorter than the make) finds the file made,
 * or being made, when it asks again, instead of starting it over.
 */
function makeLease(app: FastifyInstance, request: FastifyRequest, signal: AbortSignal): QueryLease {
  const key = quotaKey(request.principal, request.ip);
  return new QueryLease(app.tg.trino, app.access.queries, key, signal, app.tg.quotas?.slots);
}

/**
 * Writes `chunks` into `file` with backpressure (the next chunk pulled once the file has taken the last), failing on
 * the file's own error (a full disk) and past `max` bytes: a file the cache could not keep is never finished, so
 * the disk holds at most the cache's bytes per make.
 */
async function writeAll(file: WriteStream, chunks: AsyncIterable<string | Uint8Array>, max: number): Promise<void> {
  let failed: { err: unknown } | undefined;
  // Listened to from the start: an error with no listener (the open refused, the disk full) would end the process.
  file.on('error', (err) => void (failed ??= { err }));
  let bytes = 0;
  for await (const chunk of chunks) {
    bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.byteLength;
    if (bytes > max) throw tooLarge(max);
    if (failed) throw failed.err;
    if (!file.write(chunk)) await once(file, 'drain');
  }
  file.end();
  if (!file.closed) await once(file, 'close');
  if (failed) throw failed.err;
}

/**
 * Writes the read's whole file at `m.path`: the encoder's output written as it comes, the next batch pulled only
 * once the file has taken the last (the same backpressure as a response, so the gateway's memory limits hold). A
 * read that fails, however late, fails the make: the file cache then removes what was written.
 */
async function makeFile(app: FastifyInstance, request: FastifyRequest, m: Making): Promise<void> {
  const memory = app.tg.memory.account();
  const trino = makeLease(app, request, m.signal);
  const { o } = m;
  let out: WriteStream | undefined;
  try {
    const read = await openRead({ services: app.tg, caller: callerOf(request), trino }, m.planned, m.entry, {
      paged: false,
      topic: o.topic.id,
      decode: o.decode !== false,
      readerVersions: o.readerVersions,
      compression: o.compression,
      file: m.layout,
      signal: m.signal,
      memory,
    });
    await read.readAhead();
    // Readable by the gateway's user alone: the rows are the caller's, whoever else may log in to the host.
    const file = createWriteStream(m.path, { flags: 'wx', mode: 0o600, highWaterMark: 1 << 20 });
    out = file;
    let failure: { err: unknown } | undefined;
    const { chunks } = read.body({
      drained: () => file.writableLength === 0,
      failed: (_e, err) => void (failure ??= { err }),
      finished: () => app.metrics.rows.inc({ format: m.entry.format }, read.page.rows),
    });
    await writeAll(file, chunks, app.tg.config.fileCacheBytes);
    if (failure) throw failure.err;
    app.metrics.trinoQueries.inc({ outcome: 'ok' });
  } catch (err) {
    // Closed before the cache removes the temporary file, so no late open leaves it behind.
    out?.destroy();
    if (out && !out.closed) await once(out, 'close').catch(() => undefined);
    app.metrics.trinoQueries.inc({ outcome: m.signal.aborted ? 'cancelled' : 'failed' });
    throw err;
  } finally {
    trino.end();
    memory.close();
  }
}
