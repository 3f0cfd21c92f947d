/**
 * A read from request to response over HTTP, shared by the events and query routes and read sessions' streams: the
 * media type negotiated first, a remembered settled window revalidated without planning, the read planned (or
 * explained) by the read entry (entry/plan-read.ts), its settled window's validators, then streamed (stream-read.ts).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { encoderRegistry } from '../encode/encoder-registry.js';
import { explainRead, planRead, type ReadOptions } from '../entry/plan-read.js';
import type { PlannedRead } from '../query/planner.js';
import { mediaTypeOf } from './negotiate-media.js';
import { notModified, readCacheOf } from './read-cache.js';
import { callerOf, readCallOf } from './request-caller.js';
import { streamRead } from './stream-read.js';
import { wireCodingOf } from './wire-body.js';

/** Plans a read for the request's caller (the read entry: key frames, then the one planning entry). */
export function planReadOf(app: FastifyInstance, request: FastifyRequest, o: ReadOptions): Promise<PlannedRead> {
  return planRead({ services: app.tg, caller: callerOf(request) }, o);
}

/** Negotiates, plans and answers a read of events (GET or POST), or explains it; a settled window may be a 304. */
export async function runRead(app: FastifyInstance, request: FastifyRequest, reply: FastifyReply, o: ReadOptions) {
  const media = mediaTypeOf(request, o.format);
  // A revalidation of a settled window answered before: its tag is remembered, nothing to plan or hash.
  const key = app.tg.settledTags.keyOf(request, o, media, wireCodingOf(app.tg.config, encoderRegistry[media], request));
  const known = key === null ? undefined : app.tg.settledTags.get(key);
  const remembered = known && notModified(request, reply, known);
  if (remembered) return remembered;
  const planned = await planReadOf(app, request, o);
  if (o.explain) {
    const body = await explainRead(readCallOf(app, request), planned);
    return reply.type('application/json; charset=utf-8').send(body);
  }
  // A settled window: its tag is known before any query, so a revalidation is answered without Trino.
  const cache = readCacheOf(app, request, o, planned, media);
  if (cache && key !== null) app.tg.settledTags.set(key, cache);
  const unchanged = notModified(request, reply, cache);
  if (unchanged) return unchanged;
  return streamRead(app, request, reply, planned, media, {
    cache,
    nextUrl: o.nextUrl,
    paged: true,
    token: o.cursor,
    topic: o.topic.id,
    decode: o.decode !== false,
    readerVersions: o.readerVersions,
    compression: o.compression,
  });
}
