/**
 * A read from request to response, shared by the events and query routes: the media type negotiated first, the
 * key frames computed, the read planned by the one planning entry, then explained or streamed.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { keyFramesFor } from '../blob/avro/key-framing.js';
import { PageTokens } from '../query/page-tokens.js';
import { plan, type PlannedRead } from '../query/planner.js';
import { readPolicy } from '../query/policy-from-settings.js';
import type { KeyFrames } from '../query/tree/key-frames.js';
import type { Caller, RowScope } from '../query/tree/read-policy.js';
import type { ReadRequest } from '../query/tree/read-request.js';
import type { TopicModel } from '../query/tree/topic-model.js';
import type { TrinoPort } from '../trino/trino-port.js';
import { encoderRegistry } from '../encode/encoder-registry.js';
import { mediaTypeOf } from './negotiate-media.js';
import { notModified, readCacheOf } from './read-cache.js';
import { callerOf, requestTrino } from './request-caller.js';
import { streamRead, type StreamOptions } from './stream-read.js';
import { wireCodingOf } from './wire-body.js';

export interface ReadOptions {
  topic: TopicModel;
  req: ReadRequest;
  /** The caller's row scope (row policies; page tokens bound to the caller). */
  rows: RowScope;
  cursor?: string;
  format?: string;
  explain?: boolean;
  /** false: Avro / json-sr payloads are returned as their raw bytes (API.md `decode=false`). */
  decode?: boolean;
  /** The reader schema versions the request was planned with (blob/avro/decoded-types.ts): decoded with the same. */
  readerVersions?: StreamOptions['readerVersions'];
  /** `compression=`: Parquet's column codec (a 400 with any other format). */
  compression?: StreamOptions['compression'];
  /** Builds the URL of the next page from its token (GET); absent for POST, where `next` is the token. */
  nextUrl?: (token: string) => string;
}

/** Plans a read with this topic's policy (the one planning entry runs every pass). */
function planFor(
  app: FastifyInstance,
  o: ReadOptions,
  caller: Caller | undefined,
  keyFrames: KeyFrames | null,
): PlannedRead {
  const tokens = new PageTokens(app.tg.keyring);
  const cursor = o.cursor;
  return plan(
    {
      kind: 'read',
      topic: o.topic,
      read: o.req,
      token: cursor !== undefined ? (h) => tokens.decode(cursor, h) : null,
      explain: o.explain === true,
      keyFrames,
      caller,
    },
    readPolicy(app.tg.config, o.topic.id, o.rows),
  );
}

/**
 * Explain: the plan's SQL and filters, and Trino's own plan for it (and the guardrail's refusal, if any). With a row
 * policy, the SQL shown and explained is the query without the policy's filter, and `rowPolicy` says one applies.
 */
async function explainRead(app: FastifyInstance, trino: TrinoPort, p: PlannedRead) {
  const { sql, pushdown, filters, rowPolicy } = p.explain();
  const { rows } = await trino.all(`EXPLAIN ${sql}`, { ...p.run, timeoutMs: app.tg.config.queryTimeoutMs });
  const body = { sql, pushdown, filters, plan: String(rows[0]?.[0] ?? ''), ...(rowPolicy ? { rowPolicy } : {}) };
  return p.refused ? { ...body, refused: { code: p.refused.code, message: p.refused.message } } : body;
}

/** The frames of a read's Avro key: filters on it (the caller's row policy too) compare framed bytes, one per version. */
export function keyFramesOf(
  app: FastifyInstance,
  o: Pick<ReadOptions, 'topic' | 'req' | 'rows' | 'decode'>,
): Promise<KeyFrames | null> {
  if (o.decode === false) return Promise.resolve(null);
  const settings = app.tg.config.topics[o.topic.id]?.key;
  return keyFramesFor(o.topic.id, settings, app.tg.registry, [o.req.where, o.rows.filter]);
}

/** Plans a read for the request's caller, its Avro key's frames computed first. */
export async function planReadOf(app: FastifyInstance, request: FastifyRequest, o: ReadOptions): Promise<PlannedRead> {
  return planFor(app, o, callerOf(request), await keyFramesOf(app, o));
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
    const body = await explainRead(app, requestTrino(request), planned);
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
