/**
 * The HTTP side of access control (issue 10), one plugin registered before the routes:
 * - security headers (@fastify/helmet; Swagger UI and the topic page set their own CSP, which wins);
 * - CORS (@fastify/cors) only when TOPICGATE_CORS_ORIGINS names origins;
 * - 503 TG_OVERLOADED with Retry-After when the event loop or heap is overloaded (@fastify/under-pressure);
 * - the Host allowlist (TOPICGATE_ALLOWED_HOSTS; health probes are exempt);
 * - authentication of every request but public route groups, as `request.principal` (401 with WWW-Authenticate);
 * - requests per minute per principal, per client address when anonymous (@fastify/rate-limit), counted before
 *   a refusal so guessing credentials is limited too;
 * - responses whose client stops reading are cut (TOPICGATE_WRITE_IDLE_TIMEOUT).
 * It decorates `app.access` (grants, row policies, query limiter) for the routes and the planner.
 */
import { getHeapStatistics } from 'node:v8';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import cors from '@fastify/cors';
import helmet from '@fastify/helmet';
import rateLimit from '@fastify/rate-limit';
import underPressure, { type FastifyUnderPressureOptions } from '@fastify/under-pressure';
import type { Config } from '../config.js';
import { ApiError } from '../errors.js';
import { createAccess, type Access } from '../access/access.js';
import { AuthRefused } from '../access/authenticate.js';
import { WriteIdleWatch } from '../access/http-limits.js';
import { ANONYMOUS, quotaKey, type Principal } from '../access/principal.js';
import { routeGroup } from '../access/route-groups.js';
import { sendError } from './errors.js';

declare module 'fastify' {
  interface FastifyInstance {
    access: Access;
  }
  interface FastifyRequest {
    /** Who is calling (the anonymous principal on public routes, or when there is no `auth` block). */
    principal: Principal;
  }
}

export interface AccessPluginOptions {
  config: Config;
  /** Built from the config when not given. */
  access?: Access;
  /** Overrides of the overload thresholds (tests). */
  pressure?: Partial<FastifyUnderPressureOptions>;
}

/** Headers a browser script may read from a cross-origin response. */
const EXPOSED_HEADERS = ['X-Trino-Query-Id', 'Link', 'Topicgate-Next-Cursor', 'Topicgate-Batch', 'Retry-After'];

async function accessPlugin(app: FastifyInstance, opts: AccessPluginOptions): Promise<void> {
  const { config } = opts;
  const access = opts.access ?? createAccess(config);
  app.decorate('access', access);
  app.decorateRequest('principal', null as unknown as Principal);

  await app.register(helmet, {
    // The API serves JSON and data: nothing in a response may load or frame anything. Swagger UI's pages and the
    // topic page send their own (self-only) policy, which replaces this one.
    contentSecurityPolicy: {
      useDefaults: false,
      directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"], baseUri: ["'none'"], formAction: ["'none'"] },
    },
  });
  if (config.corsOrigins.length > 0) {
    await app.register(cors, {
      origin: [...config.corsOrigins],
      methods: ['GET', 'HEAD', 'POST', 'PUT', 'DELETE'],
      allowedHeaders: ['Authorization', 'X-API-Key', 'Content-Type', 'Accept'],
      exposedHeaders: EXPOSED_HEADERS,
      maxAge: 600,
    });
  }
  await app.register(underPressure, {
    // An event loop a second late, or a heap near its limit, serves everyone badly: refuse new work for a while.
    maxEventLoopDelay: 1_000,
    maxHeapUsedBytes: Math.floor(getHeapStatistics().heap_size_limit * 0.9),
    retryAfter: 10,
    pressureHandler: (_request: FastifyRequest, reply: FastifyReply, type: string) => {
      sendError(
        reply,
        new ApiError('TG_OVERLOADED', `the gateway is overloaded (${type}); retry later`, undefined, undefined, 10),
      );
    },
    ...opts.pressure,
  });

  const hosts = new Set(config.allowedHosts);
  const writeIdle = new WriteIdleWatch(config.writeIdleTimeoutMs, (res) =>
    app.log.info({ url: res.req?.url?.split('?')[0] }, 'the client stopped reading: response cut'),
  );
  app.addHook('onClose', async () => writeIdle.close());

  const limit =
    config.limits.requestsPerMinute === undefined
      ? undefined
      : await registerRateLimit(app, config.limits.requestsPerMinute);

  app.addHook('onRequest', async (request, reply) => {
    request.principal = ANONYMOUS;
    const group = routeGroup(request.routeOptions.url);
    if (hosts.size > 0 && group !== 'health' && !hostAllowed(hosts, request.host)) {
      throw new ApiError('TG_BAD_REQUEST', 'the Host header names a host this service does not answer for');
    }
    writeIdle.watch(reply.raw);
    // CORS preflights carry no credentials by design; no route serves data on OPTIONS.
    if (request.method === 'OPTIONS' || (group !== undefined && access.publicGroups.has(group))) {
      if (limit && group !== 'health') await limit.call(app, request, reply);
      return;
    }
    let refused: unknown;
    try {
      request.principal = await access.authenticator.authenticate(request.headers);
    } catch (err) {
      refused = err;
    }
    if (limit && group !== 'health') await limit.call(app, request, reply);
    if (refused) {
      if (refused instanceof AuthRefused) request.log.info({ auth: refused.reason }, 'credentials refused');
      throw refused;
    }
  });
}

function hostAllowed(hosts: ReadonlySet<string>, host: string): boolean {
  const h = host.toLowerCase();
  return hosts.has(h) || hosts.has(h.replace(/:\d+$/, ''));
}

/** @fastify/rate-limit, called from the access hook (after authentication) rather than from its own hook. */
async function registerRateLimit(app: FastifyInstance, perMinute: number) {
  await app.register(rateLimit, { global: false });
  return app.rateLimit({
    max: perMinute,
    timeWindow: 60_000,
    keyGenerator: (request) => quotaKey(request.principal, request.ip),
    errorResponseBuilder: (_request, context) => {
      const retryAfterS = Math.max(1, Math.ceil(context.ttl / 1000));
      return new ApiError(
        'TG_TOO_MANY_REQUESTS',
        `more than ${context.max} requests a minute; retry after ${retryAfterS}s`,
        { limit: 'requestsPerMinute' },
        undefined,
        retryAfterS,
      );
    },
  });
}

export default fp(accessPlugin, { name: 'topicgate-access', dependencies: ['topicgate-errors'] });
