/**
 * Loads the demo topics into the local Trino (or the Trino at TOPICGATE_TRINO_URL).
 *   tsx scripts/load-demo.ts [--events N]     (default 10000 events per topic)
 */
import { pathToFileURL } from 'node:url';
import { TrinoClient } from '../src/trino/trino-client.js';
import { DEFAULT_TRINO_URL } from '../src/config.js';
import { demoSizes, demoStatements, type DemoSizes } from './demo-data.js';

export const DEFAULT_DEMO_EVENTS = 10_000;

/** Creates and fills the demo topics; returns the sizes loaded and the seconds it took. */
export async function loadDemo(trinoUrl: string, events = DEFAULT_DEMO_EVENTS): Promise<{ sizes: DemoSizes; seconds: number }> {
  const client = new TrinoClient({ server: trinoUrl, user: 'topicgate-loader' });
  const sizes = demoSizes(events);
  const t0 = performance.now();
  for (const sql of demoStatements(sizes)) await client.all(sql, { timeoutMs: 1_800_000 });
  return { sizes, seconds: (performance.now() - t0) / 1000 };
}

export function parseEventsArg(argv: string[]): number {
  const i = argv.indexOf('--events');
  if (i < 0) return DEFAULT_DEMO_EVENTS;
  const n = Number(argv[i + 1]);
  if (!Number.isInteger(n) || n < 1 || n > 50_000_000) throw new Error('--events takes an integer from 1 to 50000000');
  return n;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const url = process.env.TOPICGATE_TRINO_URL ?? DEFAULT_TRINO_URL;
  loadDemo(url, parseEventsArg(process.argv.slice(2)))
    .then(({ sizes, seconds }) => {
      process.stderr.write(`[demo] loaded ${JSON.stringify(sizes)} in ${seconds.toFixed(1)}s\n`);
    })
    .catch((err: unknown) => {
      process.stderr.write(`[demo] error: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(1);
    });
}
