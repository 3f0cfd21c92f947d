/**
 * The HTTP half of a read: the read entry (entry/open-read.ts) opens the page and encodes it in the negotiated media
 * type; here it is streamed with backpressure, Trino cancelled when the client goes away, the next page named in
 * the headers (when the format names it before the body), the audit line and the metrics kept, compressed on the
 * wire, and a cut response visibly broken.
 */
import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { drainedOutput, encodedReadable, type MediaType } from '../encode/encoder-registry.js';
import { encoderFor, openRead, type OpenOptions } from '../entry/open-read.js';
import type { PlannedRead } from '../query/planner.js';
import { logFailure } from '../trino/trino-errors.js';
import { flushThenAbort } from './flush-then-abort.js';
import { setCacheHeaders, type ReadCache } from './read-cache.js';
import { readCallOf } from './request-caller.js';
import { wireBody } from './wire-body.js';

export interface StreamOptions extends OpenOptions {
  /** A settled window's ETag and freshness (http/read-cache.ts); absent or null: `no-store`. */
  cache?: ReadCache | null;
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
  const entry = encoderFor(media, o.compression);
  const abort = abortWhenClientGoes(reply);
  // What the response holds in the gateway is given back when it ends, however it ends.
  const memory = app.tg.memory.account();
  reply.raw.once('close', () => memory.close());
  const read = await openRead(readCallOf(app, request), plan, entry, { ...o, signal: abort.signal, memory }).catch(
    (err: unknown) => {
      app.metrics.trinoQueries.inc({ outcome: 'failed' });
      throw err;
    },
  );
  reply.header('X-Trino-Query-Id', read.queryId);
  const next = await read.readAhead();
  if (next) reply.header('Topicgate-Next-Cursor', next.token);
  if (next?.url) reply.header('Link', `<${next.url}>; rel="next"`);
  let body: Readable | undefined;
  let finished = false;
  const count = () => {
    request.audit.rows = read.page.rows;
    app.metrics.rows.inc({ format: entry.format }, read.page.rows);
  };
  const { chunks: encoded } = read.body({
    // A client that went away is not a failure to log (its query is cancelled, as it should be).
    failed: (e, err) => {
      if (!abort.signal.aborted) logFailure(request.log, e, err);
    },
    drained: drainedOutput(reply.raw, () => body),
    finished: () => {
      finished = true;
      count();
      if (!read.page.continued) app.metrics.trinoQueries.inc({ outcome: 'ok' });
    },
  });
  const chunks = wireBody(app.tg.config, request, reply, entry, encoded);
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
