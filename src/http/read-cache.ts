/**
 * HTTP caching of settled windows (API.md "Caching settled windows"; issue 28): a GET whose window is settled
 * (query/settled-window.ts) gets a strong ETag and `Cache-Control: private, max-age=<TOPICGATE_CACHE_MAX_AGE>,
 * immutable`, and `If-None-Match` naming that tag is a 304 before any Trino query; every other read is
 * `private, no-store` (as every caller-dependent answer: plugins/cache-scope.ts). The tag is a hash of a list of inputs, one per thing that changes the response's bytes, so two
 * instances (or a restart) with the same settings give the same tag, and any change gives another.
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { settleMsOf } from '../config/config.js';
import { builtJson, canonicalJson } from './canonical-json.js';
import type { ColumnCodec } from '../core/content-codings.js';
import { encoderRegistry, type MediaType } from '../encode/encoder-registry.js';
import { ENCODER_VERSIONS } from '../encode/encoder-versions.js';
import { canonicalWhere } from '../query/passes/paging.js';
import type { PlannedRead } from '../query/planner.js';
import { isSettledWindow } from '../query/settled-window.js';
import type { RowScope } from '../query/tree/read-policy.js';
import type { ReadRequest } from '../query/tree/read-request.js';
import type { TopicModel } from '../query/tree/topic-model.js';
import { addVary } from './vary.js';
import { compressesOnWire, wireCodingOf } from './wire-body.js';

/** One input of a settled window's ETag: a name and a value hashed as canonical JSON (core/canonical-json.ts). */
export type EtagInput = readonly [name: string, value: unknown];

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

/** A strong entity tag (RFC 9110 8.8.3) of the inputs: SHA-256 of their canonical JSON, 192 bits shown. */
export function strongEtag(inputs: readonly EtagInput[]): string {
  return `"${createHash('sha256').update(canonicalJson(inputs)).digest('base64url').slice(0, 32)}"`;
}

/**
 * Everything a settled window's bytes depend on: the request as planned (the tree with the caller's row filter
 * ANDed, the page and its pinned window, the post-decode stage, the next page's link and the key that signs its
 * token, the decoded payloads' reader versions), the caller's row scope, the topic's settings and columns, the
 * encoder's version, the media type and the content coding.
 */
export function etagInputs(
  app: FastifyInstance,
  request: FastifyRequest,
  o: CachedRead,
  planned: PlannedRead,
  media: MediaType,
): EtagInput[] {
  const { tree, position, timeIndex, bulk } = planned;
  // The post-decode stage's row cap only decides between these bytes and a 422; the slices and a bulk read's
  // parallelism only how the same rows are fetched: none of them is an input.
  const postDecode = planned.postDecode && { ...planned.postDecode, maxRows: null };
  const link = o.nextUrl?.('') ?? null;
  const reader = { decode: o.decode !== false, versions: o.readerVersions ?? null, types: o.topic.decoded ?? null };
  const cursorKey = app.tg.keyring.currentId;
  return [
    // The plan as the planner built it (its own member order is fixed): text already, hashed as is.
    ['request', builtJson({ tree, position, timeIndex, postDecode, bulk: bulk !== null, link, cursorKey, reader })],
    ['rows', { filter: canonicalWhere(o.rows.filter), principal: o.rows.principal }],
    ['topic', { id: o.topic.id, settings: app.tg.config.topics[o.topic.id] ?? null, columns: o.topic.source.columns }],
    ['encoder', ENCODER_VERSIONS[encoderRegistry[media].format]],
    ['format', media],
    // The content coding negotiated from Accept-Encoding (wire-body.ts), and Parquet's column codec.
    ['coding', wireCodingOf(app.tg.config, encoderRegistry[media], request)],
    ['columns-codec', o.compression ?? null],
    // Whether CSV cells that begin like a formula are escaped (TOPICGATE_CSV_FORMULAS).
    ['csv-formulas', media === 'text/csv' ? app.tg.config.csvFormulas : null],
  ];
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
  const settleMs = settleMsOf(app.tg.config.topics[o.topic.id]);
  const settled = isSettledWindow({
    plan: planned,
    read: o.req,
    token: o.cursor !== undefined,
    settleMs,
    now: Date.now(),
  });
  if (!settled) return null;
  return {
    etag: strongEtag(etagInputs(app, request, o, planned, media)),
    cacheControl: `private, max-age=${app.tg.config.cacheMaxAgeSeconds}, immutable`,
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
