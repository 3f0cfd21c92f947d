/**
 * A cached window's file as an HTTP response (API.md "Windows as files"), read from its open descriptor so an
 * eviction meanwhile cannot cut it: `Content-Length`, `Accept-Ranges: bytes`, the window's strong `ETag`,
 * `Last-Modified` (when the file was made), `If-None-Match` -> 304, `Range` -> 206 or 416 (byte-range.ts), and
 * HEAD with the headers of the GET. The caching headers are the settled window's (read-cache.ts); cache-scope.ts
 * makes every answer private to its caller, with Vary on the credentials.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../core/errors.js';
import type { FileLease } from '../files/file-cache.js';
import { ifRangeHolds, rangeOf } from './byte-range.js';
import { matchesIfNoneMatch, setCacheHeaders, type ReadCache } from './read-cache.js';

/** What a file is served with besides its bytes. */
export interface FileAnswer {
  cache: ReadCache;
  contentType: string;
  /** Told the bytes a GET sends (a range's, or the whole file's), when it sends them. */
  sent?: (bytes: number) => void;
}

/** Answers `request` with the leased file; the lease's descriptor is closed when the response is done with it. */
export function sendFile(request: FastifyRequest, reply: FastifyReply, lease: FileLease, a: FileAnswer) {
  const lastModified = new Date(lease.madeMs).toUTCString();
  reply.header('Accept-Ranges', 'bytes');
  if (matchesIfNoneMatch(request.headers['if-none-match'], a.cache.etag)) {
    void lease.handle.close();
    setCacheHeaders(reply, a.cache);
    return reply.code(304).header('Last-Modified', lastModified).send();
  }
  const ifRange = request.headers['if-range'];
  const asked = ifRangeHolds(Array.isArray(ifRange) ? ifRange[0] : ifRange, a.cache.etag, lastModified)
    ? rangeOf(request.headers.range, lease.size)
    : null;
  if (asked === 'unsatisfiable') {
    void lease.handle.close();
    reply.header('Content-Range', `bytes */${lease.size}`);
    throw new ApiError('TG_RANGE_NOT_SATISFIABLE', `the file has ${lease.size} bytes: the Range starts past them`, {
      parameter: 'Range',
      size: lease.size,
    });
  }
  // The validators only on the file's own answers (a 416 is an error body, kept by no cache).
  setCacheHeaders(reply, a.cache);
  reply.header('Last-Modified', lastModified);
  const { start, end } = asked ?? { start: 0, end: lease.size - 1 };
  if (asked) reply.code(206).header('Content-Range', `bytes ${start}-${end}/${lease.size}`);
  const length = Math.max(0, end - start + 1);
  reply.type(a.contentType).header('Content-Length', String(length));
  if (request.method === 'HEAD' || length === 0) {
    void lease.handle.close();
    return reply.send();
  }
  a.sent?.(length);
  // autoClose: the descriptor is closed when the stream ends or is destroyed (the client went away).
  return reply.send(lease.handle.createReadStream({ start, end, autoClose: true, highWaterMark: 1 << 20 }));
}
