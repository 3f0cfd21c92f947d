/**
 * Who may keep a response (RFC 9111): every answer depends on who asks (its topics, rows, cursors, loads, errors)
 * unless its route says otherwise, so a shared cache (a CDN, a corporate proxy) never hands one caller's answer to
 * another. One onSend hook, run for every response however it was made (a route, an error, a 304, a 404 of no
 * route), gives each caller-dependent answer:
 * - `Cache-Control: private`, plus `no-store` unless the answer carries a validator (`ETag`, `Last-Modified`:
 *   a settled window, http/read-cache.ts, keeps its `max-age` and `immutable`); a `public` or `s-maxage` the
 *   route set is dropped;
 * - `Vary: Authorization, X-API-Key` beside what is there (`Accept`, `Accept-Encoding`; http/vary.ts), so a private
 *   cache that keeps it keeps one copy per credential.
 * A route whose answer is the same for every caller (Swagger UI, `/openapi.json`, the explorer's shell and assets)
 * says so with `config.sameForEveryone`; its successful answers to a request without credentials keep the caching
 * the route gave them. With credentials (an `X-API-Key` is not one of the headers RFC 9111 3.5 keeps a shared
 * cache from storing, and a gateway with `auth` may need them for its docs) or as an error, it is private too.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { addVary } from '../../http/vary.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The answer is the same whoever asks (no data, no principal in it): a shared cache may keep it. */
    sameForEveryone?: boolean;
  }
}

/** The request headers that say who is asking. */
export const CREDENTIAL_HEADERS = ['Authorization', 'X-API-Key'] as const;

/** Directives for shared caches (never on a caller-dependent answer), and `private`, which goes first. */
const DROPPED = new Set(['public', 's-maxage', 'proxy-revalidate', 'private']);

/**
 * The Cache-Control of a caller-dependent answer: `private` first, the route's own directives but those a shared
 * cache reads, and `no-store` unless the answer has a validator or says `no-store` already.
 */
export function privateCacheControl(current: string | undefined, hasValidator: boolean): string {
  const kept = (current ?? '')
    .split(',')
    .map((d) => d.trim())
    .filter((d) => d.length > 0 && !DROPPED.has(d.split('=')[0]!.toLowerCase()));
  const storeless = kept.some((d) => d.toLowerCase() === 'no-store');
  return ['private', ...kept, ...(hasValidator || storeless ? [] : ['no-store'])].join(', ');
}

/** Is this answer the same for every caller (see the file's comment)? */
function sharedAnswer(request: FastifyRequest, reply: FastifyReply): boolean {
  if (request.routeOptions.config?.sameForEveryone !== true || reply.statusCode >= 400) return false;
  return request.headers.authorization === undefined && request.headers['x-api-key'] === undefined;
}

/** Marks `reply` private to its caller (see the file's comment); a shared answer keeps its headers. */
export function scopeCaching(request: FastifyRequest, reply: FastifyReply): void {
  if (sharedAnswer(request, reply)) return;
  const validator = reply.hasHeader('etag') || reply.hasHeader('last-modified');
  const current = reply.getHeader('cache-control');
  reply.header('Cache-Control', privateCacheControl(current === undefined ? undefined : String(current), validator));
  addVary(reply, CREDENTIAL_HEADERS);
}

async function cacheScopePlugin(app: FastifyInstance): Promise<void> {
  app.addHook('onSend', (request, reply, payload, done) => {
    scopeCaching(request, reply);
    done(null, payload);
  });
}

export default fp(cacheScopePlugin, { name: 'topicgate-cache-scope' });
