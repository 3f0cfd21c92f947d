/**
 * The application as a fastify plugin tree: settings and services are built once and decorated onto the
 * instance; each resource is its own route plugin. No listen() here (server.ts does that).
 */
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Config } from '../config/config.js';
import { redactUserinfo } from '../config/read-settings.js';
import { TopicCatalog } from '../read/topic-catalog.js';
import { HttpTrino } from '../trino/http-trino.js';
import type { TrinoPort } from '../trino/trino-port.js';
import { httpTrinoOptions } from './http-trino-options.js';
import { withRedaction } from './log-redaction.js';
import errorsPlugin from './plugins/error-plugin.js';
import allowedHostsPlugin from './plugins/allowed-hosts.js';
import cacheScopePlugin from './plugins/cache-scope.js';
import jsonBodyPlugin from './plugins/json-body.js';
import { preRouteErrors } from './pre-route-errors.js';
import openapiPlugin from './plugins/openapi.js';
import accessPlugin from './plugins/access-plugin.js';
import { validators } from './validators.js';
import { closeFinishedConnections } from './close-finished.js';
import { serverTimeouts } from '../access/http-limits.js';
import type { JwtOptions } from '../access/jwt.js';
import metricsPlugin from './plugins/metrics.js';
import tracingPlugin from './plugins/tracing.js';
import readReply from '../http/read-reply.js';
import windowFiles from '../http/window-files.js';
import healthRoutes from '../routes/health.js';
import topicRoutes from '../routes/topics.js';
import eventRoutes from '../routes/events.js';
import eventFileRoutes from '../routes/event-files.js';
import cursorRoutes from '../routes/cursors.js';
import sessionRoutes from '../routes/sessions.js';
import inferRoutes from '../routes/infer.js';
import loadRoutes from '../routes/loads.js';
import { LoadService } from '../loads/load-service.js';
import type { LoadStore } from '../loads/load-store.js';
import { openLoadStore } from '../loads/open-load-store.js';
import { CursorService } from '../cursors/cursor-service.js';
import type { CursorStore } from '../cursors/cursor-store.js';
import { openStore } from '../cursors/open-store.js';
import { guardStore, storeTimeouts } from '../state/store-failures.js';
import { HeldResults } from '../read/held-results.js';
import { Keyring } from '../core/signed-token.js';
import { SchemaRegistry, type RegistryPort } from '../blob/avro/schema-registry.js';
import { sharedQuotas, type SharedQuotas } from '../access/shared-quotas.js';
import { GatewayMemory } from '../read/gateway-memory.js';
import { gatewayBytesOf } from '../config/access-schema.js';
import { getHeapStatistics } from 'node:v8';
import { SettledTags } from '../http/settled-tags.js';

export interface Services {
  config: Config;
  trino: TrinoPort;
  catalog: TopicCatalog;
  cursors: CursorService;
  store: CursorStore;
  /** Loads run by Trino (API.md "Loads run by Trino"), and their store beside the cursor store. */
  loads: LoadService;
  loadStore: LoadStore;
  /** Signs page cursors and batch tokens: the current secret signs, previous ones still verify. */
  keyring: Keyring;
  /** The Schema Registry of Avro / json-sr topics (API.md "Schema Registry payloads"), when one is configured. */
  registry?: RegistryPort;
  /** Page results read on, held for the pages after them (read/held-results.ts). */
  held: HeldResults;
  /** The per-caller limits counted in the store the instances share (PostgreSQL), when they are set. */
  quotas?: SharedQuotas;
  /** Rows and values held by responses (sorts, aggregates, look-ahead), in bytes: limits.maxGatewayBytes. */
  memory: GatewayMemory;
  /** The tags of settled windows answered so far, for revalidations without planning (settled-tags.ts). */
  settledTags: SettledTags;
}

declare module 'fastify' {
  interface FastifyInstance {
    tg: Services;
  }
}

export async function createServices(config: Config): Promise<Services> {
  const trino = new HttpTrino(httpTrinoOptions(config));
  const opened = await openStore(config.stateUrl, { postgres: { pool: storeTimeouts(config.stateTimeoutMs) } }).catch(
    (err: unknown) => {
      const shown = redactUserinfo(config.stateUrl);
      throw new Error(`TOPICGATE_STATE_URL=${shown}: ${err instanceof Error ? err.message : String(err)}`);
    },
  );
  // Once running, the store going away is a 503 TG_STATE_UNAVAILABLE on cursor routes (data routes keep working,
  // unless per-caller limits are counted in it: access/shared-quotas.ts).
  const store = guardStore(opened);
  const schema = (opened as { schema?: string }).schema;
  const openedLoads = await openLoadStore(config.stateUrl, {
    schema,
    pool: storeTimeouts(config.stateTimeoutMs),
  }).catch(async (err: unknown) => {
    await opened.close().catch(() => {});
    throw new Error(
      `TOPICGATE_STATE_URL=${redactUserinfo(config.stateUrl)}: ${err instanceof Error ? err.message : String(err)}`,
    );
  });
  const loadStore = guardStore(openedLoads, 'the load store');
  const keyring = Keyring.fromSecrets(config.cursorSecret, ...config.cursorPreviousSecrets);
  const registry = config.schemaRegistry ? new SchemaRegistry(config.schemaRegistry) : undefined;
  // A held query must not reach its deadline while a page reads on from it: half of it at most.
  const held = new HeldResults(config.heldResults, config.queryTimeoutMs / 2);
  const catalog = new TopicCatalog(trino, config);
  const cursors = new CursorService({ catalog, config, registry }, store, keyring);
  const loads = new LoadService({ catalog, config }, loadStore);
  // In the cursor store's schema (a PostgreSQL store's; there is none with SQLite).
  const quotas = sharedQuotas(config, schema);
  const memory = new GatewayMemory(gatewayBytesOf(config.limits, getHeapStatistics().heap_size_limit));
  const settledTags = new SettledTags();
  return {
    config,
    trino,
    catalog,
    cursors,
    store,
    loads,
    loadStore,
    keyring,
    registry,
    held,
    quotas,
    memory,
    settledTags,
  };
}

/** Builds the app (not listening). Tests drive it with app.inject(). */
export async function buildApp(
  config: Config,
  opts: { logger?: FastifyServerOptions['logger']; services?: Services; jwt?: JwtOptions } = {},
): Promise<FastifyInstance> {
  const app = Fastify({
    // Tokens and credentials never reach the log (log-redaction.ts).
    logger: withRedaction(opts.logger ?? { level: config.logLevel }),
    // A slowly sent request, an idle connection and keep-alive are bounded.
    ...serverTimeouts(config),
    // Filter values and cursors can be long; the largest URL fastify accepts by default is too small for `in` lists.
    routerOptions: { maxParamLength: 1000 },
    bodyLimit: 1_048_576,
    // Text parts coerced to their schema's types, JSON bodies checked as sent (validators.ts).
    ...validators,
    // Failures before routing (a bad URL, the HTTP parser's refusals) get the one error body too.
    ...preRouteErrors,
  }).withTypeProvider<TypeBoxTypeProvider>();
  const services = opts.services ?? (await createServices(config));
  app.decorate('tg', services);
  // The app owns the services it made: close the cursor store with it, and end the queries held for a next page
  // (their cancellations are awaited).
  if (!opts.services) {
    app.addHook('onClose', async () => services.store.close());
    app.addHook('onClose', async () => services.loadStore.close());
    app.addHook('onClose', async () => services.held.close());
    app.addHook('onClose', async () => services.quotas?.close());
  }
  closeFinishedConnections(app);
  // First: every request's span, current for all that follows (a no-op while tracing is off).
  await app.register(tracingPlugin);
  await app.register(errorsPlugin);
  // Before anything else answers: a Host the gateway does not answer for (DNS rebinding) is a 421.
  await app.register(allowedHostsPlugin, { config });
  // Every answer private to its caller unless its route is the same for everyone (a 421 and a 401 included).
  await app.register(cacheScopePlugin);
  await app.register(jsonBodyPlugin, { maxDepth: config.limits.maxDepth });
  // Before every route: authentication, limits and security headers apply to all of them.
  await app.register(accessPlugin, { config, jwt: opts.jwt, quotas: services.quotas });
  await app.register(openapiPlugin);
  await app.register(metricsPlugin);
  await app.register(readReply);
  await app.register(windowFiles);
  await app.register(healthRoutes);
  await app.register(topicRoutes, { prefix: '/v1' });
  await app.register(eventRoutes, { prefix: '/v1' });
  await app.register(eventFileRoutes, { prefix: '/v1' });
  await app.register(sessionRoutes, { prefix: '/v1' });
  await app.register(cursorRoutes, { prefix: '/v1' });
  await app.register(inferRoutes, { prefix: '/v1' });
  await app.register(loadRoutes, { prefix: '/v1' });
  // The tools for agents (API.md "Tools for agents: MCP"), unless TOPICGATE_MCP=off.
  if (config.mcp) await app.register(import('../routes/mcp.js'));
  await app.register(import('../routes/topic-docs.js'));
  await app.register(import('../routes/explore.js'));
  return app;
}
