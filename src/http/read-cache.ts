/**
 * HTTP caching of settled windows (API.md "Caching settled windows"): a GET whose window is settled gets the read
 * entry's strong tag (entry/settled-validators.ts) as its ETag and `Cache-Control: private,
 * max-age=<TOPICGATE_CACHE_MAX_AGE>, immutable`, and `If-None-Match` naming that tag is a 304 before any Trino query;
 * every other read is `private, no-store` (as every caller-dependent answer: plugins/cache-scope.ts).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ColumnCodec } from '../core/content-codings.js';
import { encoderRegistry, type MediaType } from '../encode/encoder-registry.js';
import { etagInputsOf, settledValidatorOf, type EtagInput } from '../entry/settled-validators.js';
import type { PlannedRead } from '../query/planner.js';
import type { RowScope } from '../query/tree/read-policy.js';
import type { ReadRequest } from '../query/tree/read-request.js';
import type { TopicModel } from '../query/tree/topic-model.js';
import { addVary } from './vary.js';
import { compressesOnWire, wireCodingOf } from './wire-body.js';

export { strongEtag, type EtagInput } from '../entry/settled-validators.js';

/** A settled window's validator and freshness, sent with its 200 and its 304s. */
export interface ReadCache {
  readonly etag: string;
  readonly cacheControl: string;
  /** The request headers the bytes depend on: a 304 names the same as its 200 (RFC 9110 15.4.5). */
  readonly vary: readonly string[];
}

/** The read as run-read.ts planned it (its ReadOptions, entry/plan-read.ts). */
export interface CachedRead {
  topic: TopicModel;
  req: ReadRequest;
  rows: RowScope;
  cursor?: string;
  explain?: boolean;
  decode?: boolean;
  readerVersions?: Partial<Record<'key' | 'value', number>>;
  nextUrl?: (token: string) => string;
  /** `compression=`: Parquet's column codec. */
  compression?: ColumnCodec;
}

/**
 * Who a response depends on besides its URL: the format by `Accept`, the row scope by the credentials. A shared
 * cache that stores a private response anyway (configured to) keeps one copy per caller.
 */
const VARY = ['Accept', 'Authorization', 'X-API-Key'];

/** The Vary of a read in `media`: VARY, and `Accept-Encoding` when its bytes are compressed on the wire. */
function varyOf(config: FastifyInstance['tg']['config'], media: MediaType): readonly string[] {
  return compressesOnWire(config, encoderRegistry[media]) ? ['Accept-Encoding', ...VARY] : VARY;
}

/** The inputs of a settled window's ETag for `request`: the read entry's, with the coding Accept-Encoding asks. */
export function etagInputs(
  app: FastifyInstance,
  request: FastifyRequest,
  o: CachedRead,
  planned: PlannedRead,
  media: MediaType,
): EtagInput[] {
  return etagInputsOf(app.tg, o, planned, media, wireCodingOf(app.tg.config, encoderRegistry[media], request));
}

/** The caching of a planned read: a settled window's tag and freshness, or null (the response is `no-store`). */
export function readCacheOf(
  app: FastifyInstance,
  request: FastifyRequest,
  o: CachedRead,
  planned: PlannedRead,
  media: MediaType,
): ReadCache | null {
  // A POST is not cached by HTTP caches, and If-None-Match on one means 412, not 304 (RFC 9110 13.1.2).
  if (o.explain || (request.method !== 'GET' && request.method !== 'HEAD')) return null;
  const coding = wireCodingOf(app.tg.config, encoderRegistry[media], request);
  const settled = settledValidatorOf(app.tg, o, planned, media, coding);
  if (!settled) return null;
  return {
    etag: settled.etag,
    cacheControl: `private, max-age=${settled.maxAgeSeconds}, immutable`,
    vary: varyOf(app.tg.config, media),
  };
}

/** `If-None-Match` names the tag (weak comparison, RFC 9110 13.1.2), or is `*`. */
export function matchesIfNoneMatch(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  const tags = header.match(/(W\/)?"[^"]*"/g) ?? [];
  return tags.some((t) => t.replace(/^W\//, '') === etag);
}

/** The response's caching headers: a settled window's, or `private, no-store` for any other read. */
export function setCacheHeaders(reply: FastifyReply, cache: ReadCache | null | undefined): void {
  if (!cache) {
    reply.header('Cache-Control', 'private, no-store');
    return;
  }
  reply.header('ETag', cache.etag).header('Cache-Control', cache.cacheControl);
  addVary(reply, cache.vary);
}

/** A 304 when the request's `If-None-Match` names the settled window's tag; null when it does not. */
export function notModified(request: FastifyRequest, reply: FastifyReply, cache: ReadCache | null) {
  if (!cache || !matchesIfNoneMatch(request.headers['if-none-match'], cache.etag)) return null;
  setCacheHeaders(reply, cache);
  return reply.code(304).send();
}
