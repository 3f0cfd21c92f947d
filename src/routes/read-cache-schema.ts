/**
 * The caching half of a GET read's responses (API.md "Caching settled windows"; http/read-cache.ts): the headers
 * a settled window's 200 adds, and the 304 an `If-None-Match` naming its tag gets.
 */
import { Type } from 'typebox';
import { ReadResponses } from './read-response-schema.js';

const CACHE_HEADERS = {
  ETag: {
    type: 'string',
    description:
      "A settled window only (its `until` absolute and at least the topic's `settle` in the past, 30 s by default; " +
      "or a page of one): a strong tag of the request, the caller's row scope, the topic's settings, the encoder " +
      'version, the media type and the content coding. Send it back in `If-None-Match` to get a 304',
  },
  'Cache-Control': {
    type: 'string',
    description:
      'A settled window: `private, max-age=<TOPICGATE_CACHE_MAX_AGE>, immutable`; any other read: `no-store`',
  },
  Vary: {
    type: 'string',
    description:
      "One header. A settled window: `Accept, Authorization, X-API-Key` (the format and the caller's row scope), " +
      'and `Accept-Encoding` in JSON, NDJSON, CSV and Arrow while compression is on (the 304 names the same)',
  },
};

/** No body (rendered without content); the headers repeat the 200's validator and freshness. */
const NotModified = {
  ...Type.Null({
    description:
      "Not modified: `If-None-Match` names the settled window's `ETag`. No Trino query is run; `ETag`, " +
      '`Cache-Control` and `Vary` are repeated, and there is no body.',
  }),
  headers: CACHE_HEADERS,
};

/** A GET read's responses: ReadResponses with the caching headers, and the 304. */
export const CachedReadResponses = {
  ...ReadResponses,
  200: { ...ReadResponses[200], headers: { ...ReadResponses[200].headers, ...CACHE_HEADERS } },
  304: NotModified,
};
