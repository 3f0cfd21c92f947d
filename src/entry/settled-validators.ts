/**
 * A settled window's validator, for any entrance (API.md "Caching settled windows"): a read whose window is settled
 * (query/settled-window.ts) gets a strong entity tag and may be kept `cacheMaxAgeSeconds`. The tag is a hash of a
 * list of inputs, one per thing that changes the response's bytes, so two instances (or a restart) with the same
 * settings give the same tag, and any change gives another. How it is sent (ETag, 304s, Vary) is the entrance's.
 */
import { createHash } from 'node:crypto';
import { settleMsOf } from '../config/config.js';
import type { ContentCoding } from '../core/content-codings.js';
import { encoderRegistry, type MediaType } from '../encode/encoder-registry.js';
import { ENCODER_VERSIONS } from '../encode/encoder-versions.js';
import { canonicalWhere } from '../query/passes/paging.js';
import type { PlannedRead } from '../query/planner.js';
import { isSettledWindow } from '../query/settled-window.js';
import { builtJson, canonicalJson } from './canonical-json.js';
import type { ReadOptions } from './plan-read.js';
import type { ReadServices } from './read-call.js';

/** One input of a settled window's ETag: a name and a value hashed as canonical JSON (canonical-json.ts). */
export type EtagInput = readonly [name: string, value: unknown];

/** The read as planned, as far as its bytes depend on it. */
export type SettledRead = Pick<
  ReadOptions,
  'topic' | 'req' | 'rows' | 'cursor' | 'decode' | 'readerVersions' | 'nextUrl' | 'compression'
>;

/** What the tag depends on of the gateway: its settings and the key that signs page tokens. */
export type TagServices = Pick<ReadServices, 'config' | 'keyring'>;

/** A strong entity tag (RFC 9110 8.8.3) of the inputs: SHA-256 of their canonical JSON, 192 bits shown. */
export function strongEtag(inputs: readonly EtagInput[]): string {
  return `"${createHash('sha256').update(canonicalJson(inputs)).digest('base64url').slice(0, 32)}"`;
}

/**
 * Everything a settled window's bytes depend on: the request as planned (the tree with the caller's row filter
 * ANDed, the page and its pinned window, the post-decode stage, the next page's link and the key that signs its
 * token, the decoded payloads' reader versions), the caller's row scope, the topic's settings and columns, the
 * encoder's version, the media type and the content coding the bytes are sent with (null: none).
 */
export function etagInputsOf(
  services: TagServices,
  o: SettledRead,
  planned: PlannedRead,
  media: MediaType,
  coding: ContentCoding | null,
): EtagInput[] {
  const { tree, position, timeIndex, bulk } = planned;
  // The post-decode stage's row cap only decides between these bytes and a 422; the slices and a bulk read's
  // parallelism only how the same rows are fetched: none of them is an input.
  const postDecode = planned.postDecode && { ...planned.postDecode, maxRows: null };
  const link = o.nextUrl?.('') ?? null;
  const reader = { decode: o.decode !== false, versions: o.readerVersions ?? null, types: o.topic.decoded ?? null };
  const cursorKey = services.keyring.currentId;
  return [
    // The plan as the planner built it (its own member order is fixed): text already, hashed as is.
    ['request', builtJson({ tree, position, timeIndex, postDecode, bulk: bulk !== null, link, cursorKey, reader })],
    ['rows', { filter: canonicalWhere(o.rows.filter), principal: o.rows.principal }],
    [
      'topic',
      { id: o.topic.id, settings: services.config.topics[o.topic.id] ?? null, columns: o.topic.source.columns },
    ],
    ['encoder', ENCODER_VERSIONS[encoderRegistry[media].format]],
    ['format', media],
    // The content coding the entrance negotiated (HTTP: Accept-Encoding), and Parquet's column codec.
    ['coding', coding],
    ['columns-codec', o.compression ?? null],
    // Whether CSV cells that begin like a formula are escaped (TOPICGATE_CSV_FORMULAS).
    ['csv-formulas', media === 'text/csv' ? services.config.csvFormulas : null],
  ];
}

/** A settled window's validator and how long it may be kept. */
export interface SettledValidator {
  etag: string;
  maxAgeSeconds: number;
}

/** The validator of a planned read in `media` sent with `coding`, when its window is settled; null when not. */
export function settledValidatorOf(
  services: TagServices,
  o: SettledRead,
  planned: PlannedRead,
  media: MediaType,
  coding: ContentCoding | null,
): SettledValidator | null {
  const settleMs = settleMsOf(services.config.topics[o.topic.id]);
  const settled = isSettledWindow({
    plan: planned,
    read: o.req,
    token: o.cursor !== undefined,
    settleMs,
    now: Date.now(),
  });
  if (!settled) return null;
  const etag = strongEtag(etagInputsOf(services, o, planned, media, coding));
  return { etag, maxAgeSeconds: services.config.cacheMaxAgeSeconds };
}
