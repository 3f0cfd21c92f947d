/**
 * `npm run demo`: fetch the local Trino the first time, start it, load the demo topics, serve the API and
 * Swagger UI, print the URLs. Ctrl-C stops everything this command started.
 */
import { loadConfig } from '../src/config.js';
import { describeStartupError, startServer } from '../src/server.js';
import { down, up } from './local-trino.js';
import { loadDemo, parseEventsArg } from './load-demo.js';

async function main(): Promise<void> {
  const trino = await up();
  const stopTrino = async () => {
    if (trino.started) await down();
  };
  try {
    const events = parseEventsArg(process.argv.slice(2));
    process.stderr.write(`[demo] loading ${events} events per topic into ${trino.url}\n`);
    const { seconds } = await loadDemo(trino.url, events);
    process.stderr.write(`[demo] loaded in ${seconds.toFixed(1)}s\n`);
    const config = loadConfig({ ...process.env, TOPICGATE_TRINO_URL: trino.url });
    const { app, url } = await startServer(config);
    process.stdout.write(
      [
        '',
        `topicgate is serving the demo topics:`,
        `  API          ${url}/v1/topics`,
        `  Swagger UI   ${url}/docs`,
        `  OpenAPI      ${url}/openapi.json`,
        `  Trino        ${trino.url}`,
        `Try: curl '${url}/v1/topics/orders/events?limit=3&format=ndjson'`,
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
