/**
 * Starts the API: settings validated once, Trino and the served schemas checked, then listen; SIGINT/SIGTERM
 * close gracefully, SIGHUP reloads the access blocks. Any start-up problem is one line on stderr and exit code 1,
 * never a stack trace.
 */
import { pathToFileURL } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { ConfigError, type Config } from './config/config.js';
import { loadConfig } from './server/load-config.js';
import { redactUserinfo } from './config/read-settings.js';
import { devKeyWarning, startupProblems, startupWarnings } from './access/startup-checks.js';
import { decodedForPolicies, rowPolicyProblems } from './access/policy-check.js';
import { buildApp } from './server/app.js';
import { reloadOnHangup } from './server/access-reload.js';
import { prepareFlight } from './server/flight-entrance.js';
import type { FlightServer } from './flight/flight-server.js';
import { TrinoUnavailableError } from './trino/trino-errors.js';

/**
 * Builds the app, checks Trino and the catalog, listens (HTTP, and Flight SQL unless it is off); resolves with the
 * app, its base URL and the Flight SQL server.
 */
export async function startServer(
  config: Config,
): Promise<{ app: FastifyInstance; url: string; flight: FlightServer | null }> {
  const problems = startupProblems(config);
  if (problems.length) throw new ConfigError(problems);
  const app = await buildApp(config);
  try {
    await app.tg.trino.info();
  } catch (err) {
    await app.close();
    if (err instanceof TrinoUnavailableError) {
      throw new Error(`TOPICGATE_TRINO_URL=${redactUserinfo(config.trinoUrl)}: ${err.message}`);
    }
    throw err;
  }
  try {
    await app.tg.catalog.verify();
    // Row policies name columns: each must exist on every served table it applies to, or no caller could read it.
    const { refused, warnings } = await policyProblems(app, config);
    if (refused.length) throw new ConfigError(refused);
    for (const warning of [...startupWarnings(config), ...warnings])
      app.log.warn(`${warning} (TOPICGATE_CONFIG=${config.configFile})`);
    const devKey = devKeyWarning(config);
    if (devKey) app.log.warn(devKey);
  } catch (err) {
    await app.close();
    throw err;
  }
  let startFlight: () => Promise<FlightServer | null>;
  try {
    startFlight = prepareFlight(app);
  } catch (err) {
    await app.close();
    throw err;
  }
  try {
    await app.listen({ host: config.host, port: config.port });
  } catch (err) {
    await app.close();
    throw new Error(`TOPICGATE_HOST/TOPICGATE_PORT=${config.host}:${config.port}: ${(err as Error).message}`);
  }
  let flight: FlightServer | null;
  try {
    flight = await startFlight();
  } catch (err) {
    await app.close();
    throw err;
  }
  const addr = app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : config.port;
  return { app, url: `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`, flight };
}

/**
 * Graceful shutdown: stop accepting at once (fastify answers 503 to new requests on kept-alive
 * connections), let running responses finish for `graceMs`, then cut the rest and cancel every Trino query still
 * running, waiting until Trino has been told, so none of the gateway's queries outlives it.
 */
export async function shutdown(app: FastifyInstance, graceMs: number): Promise<'drained' | 'cut'> {
  const closing = app.close();
  let timer: NodeJS.Timeout | undefined;
  const graceOver = new Promise<'cut'>((resolve) => (timer = setTimeout(() => resolve('cut'), graceMs)));
  const outcome = await Promise.race([closing.then(() => 'drained' as const), graceOver]);
  clearTimeout(timer);
  if (outcome === 'cut') {
    app.server.closeAllConnections();
    await app.tg.trino.close();
    await closing;
  }
  return outcome;
}

/**
 * Problems of the configured row policies against the served tables, decoded Avro fields included
 * (access/policy-check.ts), and warnings for the topics whose decoded fields the registry did not give.
 */
async function policyProblems(app: FastifyInstance, config: Config, rowPolicies = app.access.rowPolicies) {
  const tables = await app.tg.catalog.tables();
  const { decoded, unchecked, warnings } = await decodedForPolicies(rowPolicies, config, app.tg.registry);
  const where = `TOPICGATE_CONFIG=${config.configFile}`;
  const refused = rowPolicyProblems(rowPolicies, tables, config, decoded, unchecked).map((p) => `${where}: ${p}`);
  return { refused, warnings };
}

export function describeStartupError(err: unknown): string {
  if (err instanceof ConfigError) return `topicgate: ${err.message}`;
  return `topicgate: cannot start: ${err instanceof Error ? err.message : String(err)}`;
}

async function main(): Promise<void> {
  let started: Awaited<ReturnType<typeof startServer>>;
  let tracing: { shutdown(): Promise<void> } | undefined;
  try {
    const config = loadConfig();
    // Tracing on (TOPICGATE_TRACING_URL): the OpenTelemetry SDK is loaded only then.
    if (config.tracingUrl)
      tracing = await (await import('./server/tracing-sdk.js')).startOtlpTracing(config.tracingUrl);
    started = await startServer(config);
  } catch (err) {
    process.stderr.write(`${describeStartupError(err)}\n`);
    process.exit(1);
  }
  const { app, url, flight } = started;
  app.log.info({ url, ...(flight && { flight: flight.uri }) }, 'topicgate listening');
  // SIGHUP reloads the config file's access blocks, checked as at start-up (server/access-reload.ts).
  reloadOnHangup(app, {
    load: () => loadConfig(),
    policyProblems: async (config, access) => (await policyProblems(app, config, access.rowPolicies)).refused,
  });
  const { shutdownGraceMs } = app.tg.config;
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    // SIGINT then SIGTERM (or the reverse): one shutdown.
    if (stopping) return;
    stopping = true;
    app.log.info({ signal, graceMs: shutdownGraceMs }, 'shutting down: no new requests, running ones may finish');
    shutdown(app, shutdownGraceMs).then(
      async (outcome) => {
        await tracing?.shutdown().catch(() => {}); // the last spans are sent
        app.log.info({ outcome }, 'topicgate stopped');
        process.exit(0);
      },
      (err: unknown) => {
        app.log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) void main();
