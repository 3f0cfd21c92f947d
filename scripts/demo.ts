/**
 * `npm run demo`: fetch the local Trino and Schema Registry the first time, start them, load the demo topics
 * (the Avro one with its schemas registered), serve the API, Swagger UI and Flight SQL, print the URLs and a Python
 * snippet for Flight SQL. Ctrl-C (or SIGTERM, SIGHUP), at any point, stops everything this command started and
 * nothing else (scripts/clean-stop.ts): the services run detached, so the terminal's signal to its process group
 * reaches only this command, which stops them.
 */
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/server/load-config.js';
import { describeStartupError, startServer } from '../src/server.js';
import { down, layout, trinoRunning, up } from './local-trino.js';
import { loadDemo, parseEventsArg } from './load-demo.js';
import { loadAvroDemo } from './load-demo-avro.js';
import { registryDown, registryLayout, registryReady, registryUp } from './local-registry.js';
import { bundleExplore } from './bundle-explore.mjs';
import { exitAfterStop, isStopping, startAllowed, startedHere, stopOnSignals } from './clean-stop.js';

/** The demo's config file: the Avro topic decoded through the local registry (a TOPICGATE_CONFIG of yours wins). */
const DEMO_CONFIG = fileURLToPath(new URL('../examples/payments-avro.yaml', import.meta.url));

function log(msg: string): void {
  process.stderr.write(`[demo] ${msg}\n`);
}

/**
 * Starts the local Trino (with its S3 server and the lake's PostgreSQL) and the registry, each registered to be
 * stopped (clean-stop.ts) when it was not running before: a Ctrl-C during the start stops what is already up.
 */
async function services(): Promise<{ trino: string; registry: string }> {
  const t = layout();
  const r = registryLayout();
  const [trinoBefore, registryBefore] = await Promise.all([trinoRunning(t), registryReady(r.url)]);
  let trinoStart: Promise<unknown> = Promise.resolve();
  // A Trino launched just before the stop may not be found by it yet: stopped again once its start has given up.
  const stopTrino = async () => {
    await down(t);
    await trinoStart.catch(() => undefined);
    await down(t);
  };
  if (!trinoBefore) startedHere('the local Trino', stopTrino);
  if (!registryBefore) startedHere('the Schema Registry', () => registryDown(r));
  const trinoUp = up(t);
  trinoStart = trinoUp;
  const [trino, registry] = await Promise.allSettled([trinoUp, registryUp(r)]);
  if (trino.status === 'rejected') throw trino.reason;
  if (registry.status === 'rejected') throw registry.reason;
  return { trino: trino.value.url, registry: registry.value.url };
}

/** The Flight SQL URI and a Python snippet (ADBC; the README's Flight SQL section has the same three lines). */
function flightLines(uri: string): string[] {
  return [
    `  Flight SQL   ${uri}   (ADBC, the Flight SQL JDBC driver, pyarrow.flight)`,
    'Python (pip install adbc-driver-flightsql):',
    '  import adbc_driver_flightsql.dbapi as flight_sql',
    `  cur = flight_sql.connect("${uri}", autocommit=True).cursor()`,
    `  cur.execute("SELECT date_trunc('day', timestamp_broker) AS day, count(*) AS n FROM orders GROUP BY 1"); print(cur.fetch_arrow_table())`,
  ];
}

async function main(): Promise<void> {
  stopOnSignals(log);
  const events = parseEventsArg(process.argv.slice(2));
  const { trino, registry } = await services();
  log(`loading ${events} events per topic into ${trino}`);
  const { seconds } = await loadDemo(trino, events);
  log(`loaded in ${seconds.toFixed(1)}s`);
  const avro = await loadAvroDemo(trino, registry, events);
  log(`payments_avro loaded in ${avro.seconds.toFixed(1)}s (schemas in ${registry})`);
  const config = loadConfig({
    TOPICGATE_CONFIG: DEMO_CONFIG,
    ...process.env,
    TOPICGATE_TRINO_URL: trino,
    TOPICGATE_SCHEMA_REGISTRY_URL: registry,
  });
  // The explorer's page script and style sheet (dist/explore/), which the server serves from the sources too.
  await bundleExplore();
  startAllowed('the gateway');
  const { app, url, flight } = await startServer(config);
  startedHere('the gateway', () => app.close());
  process.stdout.write(
    [
      '',
      `topicgate is serving the demo topics:`,
      `  API          ${url}/v1/topics`,
      `  Swagger UI   ${url}/docs`,
      `  Explorer     ${url}/explore?since=2026-11-01T00:00:00Z&until=2026-11-04T00:00:00Z`,
      `  OpenAPI      ${url}/openapi.json`,
      `  Trino        ${trino}`,
      `  Registry     ${registry}`,
      `Try: curl '${url}/v1/topics/orders/events?limit=3&format=ndjson'`,
      `     curl '${url}/v1/topics/payments_avro/events?limit=3&format=ndjson'`,
      ...(flight ? flightLines(flight.uri) : []),
      'Ctrl-C stops everything this command started.',
      '',
    ].join('\n'),
  );
}

main().catch(async (err: unknown) => {
  // Interrupted: the signal's handler is stopping the services and exits once they are stopped.
  if (!isStopping()) process.stderr.write(`${describeStartupError(err)}\n`);
  await exitAfterStop(1, log);
});
