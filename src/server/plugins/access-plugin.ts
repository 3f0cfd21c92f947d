/**
 * The HTTP side of access control, one plugin registered before the routes:
 * - security headers (helmet's middleware, built once; Swagger UI and the topic page set their own CSP, which wins);
 * - CORS (@fastify/cors) only when TOPICGATE_CORS_ORIGINS names origins;
 * - 503 TG_OVERLOADED with Retry-After when the event loop or heap is overloaded (@fastify/under-pressure);
 * - authentication of every request but public route groups, as `request.principal` (401 with WWW-Authenticate);
 * - requests per minute per principal, per client address when anonymous (@fastify/rate-limit), counted before
 *   a refusal so guessing credentials is limited too (in the instances' shared store when it is PostgreSQL);
 * - responses whose client stops reading are cut (TOPICGATE_WRITE_IDLE_TIMEOUT);
 * - on data routes (`config.data`), `request.trino`: the request's own Trino port, whose queries take the caller's
 *   query slots and are cancelled when the client goes away (access/query-lease.ts), and one audit line.
 * It decorates `app.access` (grants, row policies, query limiter), `app.accessHolder`'s state in force at each use
 * (server/access-reload.ts swaps it). Route groups come from each route's `config` (access/route-groups.ts).
 */
import { getHeapStatistics } from 'node:v8';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import helmet from 'helmet';
import cors from '@fastify/cors';
import rateLimit, { type FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import underPressure, { type FastifyUnderPressureOptions } from '@fastify/under-pressure';
import type { Config } from '../../config/config.js';
import { ApiError } from '../../core/errors.js';
import { createAccess, type Access } from '../../access/create-access.js';
import { AccessHolder } from '../../access/access-holder.js';
import { AuthRefused } from '../../access/authenticate.js';
import { WriteIdleWatch } from '../../access/http-limits.js';
import type { JwtOptions } from '../../access/jwt.js';
import { ANONYMOUS, quotaKey, type Principal } from '../../access/principal.js';
import { rateExceeded } from '../../access/rate-exceeded.js';
import { isDataRoute, isSignedRoute, routeGroup } from '../../access/route-groups.js';
import { QueryLease } from '../../access/query-lease.js';
import type { RequestTrino } from '../../read/request-trino.js';
import type { SharedSlots } from '../../access/shared-slots.js';
import type { SharedQuotas } from '../../access/shared-quotas.js';
import type { RouteGroup } from '../../config/access-schema.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The access state in force (accessHolder's current one). */
    access: Access;
    accessHolder: AccessHolder;
  }
  interface FastifyRequest {
    /** Who is calling (the anonymous principal on public routes, or when there is no `auth` block). */
    principal: Principal;
    /** What the request's audit line says beyond the HTTP facts (set by authorize() and the read path). */
    audit: AuditFacts;
    /**
     * Trino for this request, on data routes (null elsewhere): its queries count against the caller's query
     * limits and are cancelled when the client goes away.
     */
    trino: RequestTrino;
  }
  interface FastifyContextConfig {
    /** The route group `auth.public` may open (routes of no group always need credentials). */
    group?: RouteGroup;
    /** The route reads topic data through Trino: its queries are counted and it gets an audit line. */
    data?: boolean;
    /** A request without credentials reaches the route, whose signed URL may stand for them (a presigned stream). */
    signed?: boolean;
  }
}

export interface AuditFacts {
  topic?: string;
  action?: string;
  rows?: number;
}

export interface AccessPluginOptions {
  config: Config;
  /** Built from the config when not given. */
  access?: Access;
  /** JWKS fetching (tests shorten the cooldown between fetches). */
  jwt?: JwtOptions;
  /** The per-caller limits counted in the store the instances share (access/shared-quotas.ts). */
  quotas?: SharedQuotas;
  /** Overrides of the overload thresholds (tests). */
  pressure?: Partial<FastifyUnderPressureOptions>;
}

const PRESSURE_SAMPLE_MS = 1_000;

/** Headers a browser script may read from a cross-origin response. */
const EXPOSED_HEADERS = ['X-Trino-Query-Id', 'Link', 'Topicgate-Next-Cursor', 'Topicgate-Batch', 'Retry-After'];

async function accessPlugin(app: FastifyInstance, opts: AccessPluginOptions): Promise<void> {
  const { config } = opts;
  const holder = new AccessHolder(opts.access ?? createAccess(config, opts.jwt));
  app.decorate('accessHolder', holder);
  app.decorate('access', { getter: () => holder.current });
  app.decorateRequest('principal', null as unknown as Principal);
  app.decorateRequest('audit', null as unknown as AuditFacts);
  app.decorateRequest('trino', null as unknown as RequestTrino);
  await registerHeaders(app, config);
  // Booting blocks the event loop for a while (schemas compiled, routes built); the first samples after it would
  // call a fresh gateway overloaded. Pressure counts from two samples after ready.
  let countsFrom = Number.POSITIVE_INFINITY;
  app.addHook('onReady', async () => {
    countsFrom = Date.now() + 2 * pressure.sampleInterval;
  });
  const pressure = {
    // An event loop seconds late, or a heap near its limit, serves everyone badly: refuse new work for a while.
    // Not tighter: a Parquet row group is compressed in one synchronous step, which on two cores shared with
    // Trino can hold the loop past a second without the gateway being overloaded.
    maxEventLoopDelay: config.maxEventLoopDelayMs,
    maxHeapUsedBytes: Math.floor(getHeapStatistics().heap_size_limit * 0.9),
    sampleInterval: PRESSURE_SAMPLE_MS,
    retryAfter: 10,
    ...opts.pressure,
  };
  await app.register(underPressure, {
    ...pressure,
    // A rejection goes to the error handler (the one error body); a resolution lets the request through.
    pressureHandler: async (_request: FastifyRequest, _reply: FastifyReply, type: string, value?: number) => {
      if (Date.now() < countsFrom) return;
      // A sample interval without one delay sample (the loop held from just after a reading to past the next)
      // reads as an infinite delay: the loop was late by at least the interval, not by the limit, and a longer
      // hold shows in the next reading. The heap is checked after the delay, so it is checked here.
      const unsampled = type === 'eventLoopDelay' && value === Infinity;
      if (unsampled && pressure.sampleInterval < pressure.maxEventLoopDelay) {
        if (app.memoryUsage().heapUsed <= pressure.maxHeapUsedBytes) return;
        type = 'heapUsedBytes';
      }
      throw new ApiError('TG_OVERLOADED', `the gateway is overloaded (${type}); retry later`, undefined, undefined, 10);
    },
    ...opts.pressure,
  });
  const writeIdle = new WriteIdleWatch(config.writeIdleTimeoutMs, (res) =>
    app.log.info({ url: res.req?.url?.split('?')[0] }, 'the client stopped reading: response cut'),
  );
  app.addHook('onClose', async () => writeIdle.close());
  const limit =
    config.limits.requestsPerMinute === undefined
      ? undefined
      : await registerRateLimit(app, config.limits.requestsPerMinute, opts.quotas?.rateStore);
  app.addHook('onRequest', authenticating(app, { writeIdle, limit }));
  app.addHook('preHandler', leasingData(app, opts.quotas?.slots));
}

/** Security headers on every response, and CORS when origins are configured. */
async function registerHeaders(app: FastifyInstance, config: Config): Promise<void> {
  // helmet's own middleware, built once: @fastify/helmet builds it anew for every request, which was 4-5% of the
  // CPU of a revalidation (a 304) and of every small response.
  const securityHeaders = helmet({
    // The API serves JSON and data: nothing in a response may load or frame anything. Swagger UI's pages and the
    // topic page send their own (self-only) policy, which replaces this one.
    contentSecurityPolicy: {
      useDefaults: false,
      directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"], baseUri: ["'none'"], formAction: ["'none'"] },
    },
  });
  // fastify's `done` is helmet's `next` as it is (helmet calls it with an Error or nothing): no closure per request.
  app.addHook('onRequest', (request, reply, done) =>
    securityHeaders(request.raw, reply.raw, done as (err?: unknown) => void),
  );
  if (config.corsOrigins.length > 0) {
    await app.register(cors, {
      origin: [...config.corsOrigins],
      methods: ['GET', 'HEAD', 'POST', 'PUT', 'DELETE'],
      // Last-Event-ID: an EventSource resuming a follow sends it (API.md "Following a topic"); MCP-Protocol-Version:
      // an MCP client sends it on every request after initialization (MCP "Streamable HTTP").
      allowedHeaders: ['Authorization', 'X-API-Key', 'Content-Type', 'Accept', 'Last-Event-ID', 'MCP-Protocol-Version'],
      exposedHeaders: EXPOSED_HEADERS,
      maxAge: 600,
    });
  }
}

type RateLimit = Awaited<ReturnType<typeof registerRateLimit>>;

/** The onRequest hook: the write-idle watch, authentication and the rate limit (allowed-hosts.ts checked Host). */
function authenticating(app: FastifyInstance, edge: { writeIdle: WriteIdleWatch; limit: RateLimit | undefined }) {
  const { writeIdle, limit } = edge;
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const access = app.access;
    request.principal = ANONYMOUS;
    request.audit = {};
    const group = routeGroup(request.routeOptions.config);
    writeIdle.watch(reply.raw);
    // CORS preflights carry no credentials by design; no route serves data on OPTIONS.
    if (request.method === 'OPTIONS' || (group !== undefined && access.publicGroups.has(group))) {
      if (limit && group !== 'health') await limit.call(app, request, reply);
      return;
    }
    // No credentials on a signed route: the route's own check of its URL decides (presigned, or a 401 there).
    const bare = request.headers['x-api-key'] === undefined && request.headers.authorization === undefined;
    if (bare && isSignedRoute(request.routeOptions.config)) {
      if (limit) await limit.call(app, request, reply);
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
  };
}

/**
 * The preHandler hook of data requests (they read through Trino): a port whose queries take the caller's query
 * slots (query-lease.ts) and are cancelled when the client goes away, and one audit line when the request ends,
 * however it ends.
 */
function leasingData(app: FastifyInstance, slots: SharedSlots | undefined) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    if (!isDataRoute(request.routeOptions.config)) return;
    const started = Date.now();
    // The socket, held now: a finished response lets go of it (keep-alive).
    const socket = reply.raw.socket;
    const socketBytes = socket?.bytesWritten ?? 0;
    const gone = new AbortController();
    const key = quotaKey(request.principal, request.ip);
    const lease = new QueryLease(app.tg.trino, app.access.queries, key, gone.signal, slots);
    request.trino = lease;
    let finished = false;
    reply.raw.once('finish', () => {
      finished = true;
    });
    const end = () => {
      // Gone before the response was whole: cancel whatever the request still runs in Trino.
      if (!finished) gone.abort(new ApiError('TG_BAD_REQUEST', 'the client went away'));
      lease.end();
      audit(request, reply, { started, finished, bytes: (socket?.bytesWritten ?? socketBytes) - socketBytes });
    };
    // A 'close' that already happened (the client left during authentication) fires no listener added now.
    if (reply.raw.closed) end();
    else reply.raw.once('close', end);
  };
}

/** The audit line of a data request: never a credential, only who, what and how it ended. */
function audit(
  request: FastifyRequest,
  reply: FastifyReply,
  end: { started: number; finished: boolean; bytes: number },
): void {
  const status = reply.statusCode;
  // Cut: the response never finished (the client went away, or it stopped reading and was cut off).
  const outcome = !end.finished ? 'cut' : status >= 400 ? 'refused' : 'ok';
  request.log.info(
    {
      audit: {
        principal: request.principal.name,
        via: request.principal.via,
        id: request.principal.id,
        topic: request.audit.topic ?? null,
        action: request.audit.action ?? null,
        route: `${request.method} ${request.routeOptions.url}`,
        queryId: reply.getHeader('x-trino-query-id') ?? null,
        rows: request.audit.rows ?? null,
        bytes: end.bytes,
        durationMs: Date.now() - end.started,
        status,
        outcome,
      },
    },
    'audit',
  );
}

/** @fastify/rate-limit, called from the access hook (after authentication) rather than from its own hook. */
async function registerRateLimit(app: FastifyInstance, perMinute: number, store?: FastifyRateLimitStoreCtor) {
  // Counted in the store the instances share when there is one (access/shared-quotas.ts), else in the process.
  await app.register(rateLimit, { global: false, ...(store && { store }) });
  return app.rateLimit({
    max: perMinute,
    timeWindow: 60_000,
    keyGenerator: (request) => quotaKey(request.principal, request.ip),
    errorResponseBuilder: (_request, context) => rateExceeded(context.max, context.ttl, 'requests'),
  });
}

export default fp(accessPlugin, { name: 'topicgate-access', dependencies: ['topicgate-errors'] });
