/**
 * `npm run demo`: fetch the local Trino and Schema Registry the first time, start them, load the demo topics
 * (the Avro one with its schemas registered), serve the API and Swagger UI, print the URLs. Ctrl-C stops
 * everything this command started.
 */
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/server/load-config.js';
import { describeStartupError, startServer } from '../src/server.js';
import { down, up } from './local-trino.js';
import { loadDemo, parseEventsArg } from './load-demo.js';
import { loadAvroDemo } from './load-demo-avro.js';
import { registryDown, registryUp } from './local-registry.js';
import { bundleExplore } from './bundle-explore.mjs';

/** The demo's config file: the Avro topic decoded through the local registry (a TOPICGATE_CONFIG of yours wins). */
const DEMO_CONFIG = fileURLToPath(new URL('../examples/payments-avro.yaml', import.meta.url));

async function main(): Promise<void> {
  const [trinoUp, registry] = await Promise.all([
    up().catch((err: unknown) => ({ err })),
    registryUp().catch((err: unknown) => ({ err })),
  ]);
  if ('err' in trinoUp) {
    if ('started' in registry && registry.started) await registryDown();
    throw trinoUp.err;
  }
  const trino = trinoUp;
  const stopTrino = async () => {
    if ('started' in registry && registry.started) await registryDown();
    if (trino.started) await down();
  };
  try {
    const events = parseEventsArg(process.argv.slice(2));
    process.stderr.write(`[demo] loading ${events} events per topic into ${trino.url}\n`);
    const { seconds } = await loadDemo(trino.url, events);
    process.stderr.write(`[demo] loaded in ${seconds.toFixed(1)}s\n`);
    if ('err' in registry) throw registry.err;
    const avro = await loadAvroDemo(trino.url, registry.url, events);
    process.stderr.write(`[demo] payments_avro loaded in ${avro.seconds.toFixed(1)}s (schemas in ${registry.url})\n`);
    const config = loadConfig({
      TOPICGATE_CONFIG: DEMO_CONFIG,
      ...process.env,
      TOPICGATE_TRINO_URL: trino.url,
      TOPICGATE_SCHEMA_REGISTRY_URL: registry.url,
    });
    // The explorer's page script and style sheet (dist/explore/), which the server serves from the sources too.
    await bundleExplore();
    const { app, url } = await startServer(config);
    process.stdout.write(
      [
        '',
        `topicgate is serving the demo topics:`,
        `  API          ${url}/v1/topics`,
        `  Swagger UI   ${url}/docs`,
        `  Explorer     ${url}/explore?since=2026-11-01T00:00:00Z&until=2026-11-04T00:00:00Z`,
        `  OpenAPI      ${url}/openapi.json`,
        `  Trino        ${trino.url}`,
        `  Registry     ${registry.url}`,
        `Try: curl '${url}/v1/topics/orders/events?limit=3&format=ndjson'`,
        `     curl '${url}/v1/topics/payments_avro/events?limit=3&format=ndjson'`,
        'Ctrl-C stops everything this command started.',
        '',
      ].join('\n'),
    );
    const stop = async () => {
      await app.close().catch(() => undefined);
      await stopTrino();
      process.exit(0);
    };
    process.once('SIGINT', () => void stop());
    process.once('SIGTERM', () => void stop());
  } catch (err) {
    process.stderr.write(`${describeStartupError(err)}\n`);
    await stopTrino();
    process.exit(1);
  }
}

void main();
