/**
 * `npm run bench:304`: revalidations of a settled window. A gateway (dist/server.js, as `npm start`
 * runs it) reads one settled window once for its ETag; then autocannon sends that GET with `If-None-Match` on 50
 * connections for `--duration` seconds (default 20): autocannon as fast as answers come (throughput; its
 * latency is then 50 connections over the throughput), then paced at each of `--rates` (default 500, 2000, 5000
 * and 8000 a second) by bench/paced-client.ts (latency from when each request was due). Prints the status codes, requests/s and latency (p50, p90, p99, max)
 * of each, and the Trino queries the gateway's user ran, read from Trino's own query list: data reads apart from
 * catalog look-ups (the served topics' list, kept 10 s: every request needs it, 304 or not). Fails unless every
 * response is a 304 and no data read ran, and unless p99 at the first fixed rate is under 5 ms; says the highest
 * rate whose p99 was.
 *
 *   npm run bench:304
 *   npm run bench:304 -- --duration 10 --connections 50 --rates 500,2000
 *   npm run bench:304 -- --profile    # the gateway with --cpu-prof, its profile in bench/profiles/304/
 */
import { get, type IncomingMessage } from 'node:http';
import autocannon, { type Result } from 'autocannon';
import { HttpTrino } from '../src/trino/http-trino.js';
import { startGateway } from './gateway.js';
import { pacedGets } from './paced-client.js';
import { runUser } from './trino-stats.js';

const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : dflt;
};
const DURATION_S = Number(arg('duration', '20'));
const CONNECTIONS = Number(arg('connections', '50'));
/** Requests a second over all connections in the paced phases (the first sends as fast as answers come). */
const RATES = arg('rates', '500,2000,5000,8000').split(',').map(Number);
const PROFILE = process.argv.includes('--profile');
const TRINO = process.env.TOPICGATE_TRINO_URL ?? 'http://127.0.0.1:18080';
const USER = runUser('not-modified');
const PATH = '/v1/topics/orders/events?since=2026-11-01T00:00:00Z&until=2026-11-01T06:00:00Z&limit=100';

const checker = new HttpTrino({ server: TRINO, user: 'topicgate-bench' });

/** The gateway user's queries so far: data reads, and catalog look-ups (information_schema). */
async function queries(): Promise<{ reads: number; catalog: number }> {
  const catalog = `query LIKE '%.information_schema.%'`;
  const { rows } = await checker.all(
    `SELECT count_if(NOT (${catalog})), count_if(${catalog}) FROM system.runtime.queries WHERE "user" = '${USER}'`,
  );
  return { reads: Number(rows[0]![0]), catalog: Number(rows[0]![1]) };
}

/** Closed loop (autocannon): each connection sends its next request as soon as its answer came. */
async function saturated(url: string, etag: string) {
  const r = (await autocannon({
    url: url + PATH,
    connections: CONNECTIONS,
    duration: DURATION_S,
    headers: { 'if-none-match': etag },
  })) as Result;
  const codes = Object.fromEntries(Object.entries(r.statusCodeStats ?? {}).map(([c, s]) => [c, Number(s.count)]));
  return {
    requests: r.requests.total,
    codes,
    errors: r.errors + r.timeouts,
    latencyMs: { p50: r.latency.p50, p90: r.latency.p90, p99: r.latency.p99, max: r.latency.max },
  };
}

/** One phase: as fast as answered (rate undefined), or paced at `rate` a second; with Trino's queries counted. */
async function phase(url: string, etag: string, rate: number | undefined) {
  const before = await queries();
  const r = rate
    ? await pacedGets(url + PATH, { 'if-none-match': etag }, { connections: CONNECTIONS, rate, seconds: DURATION_S })
    : await saturated(url, etag);
  const after = await queries();
  return {
    connections: CONNECTIONS,
    rate: rate ?? 'as fast as answered',
    seconds: DURATION_S,
    perSecond: Math.round(r.requests / DURATION_S),
    ...r,
    only304: Object.keys(r.codes).every((c) => c === '304') && r.errors === 0,
    trinoQueries: { reads: after.reads - before.reads, catalog: after.catalog - before.catalog },
  };
}

async function main(): Promise<void> {
  const gateway = await startGateway(
    {
      TOPICGATE_PORT: '0',
      TOPICGATE_TRINO_URL: TRINO,
      TOPICGATE_TRINO_USER: USER,
      TOPICGATE_STATE_URL: 'sqlite::memory:',
      // The default level, as in production: every request's audit line is written (and read by startGateway).
      TOPICGATE_LOG_LEVEL: 'info',
    },
    PROFILE ? ['--cpu-prof', '--cpu-prof-dir=bench/profiles/304'] : [],
  );
  try {
    // With autocannon's headers (no Accept-Encoding: the content coding is an input of the tag), not fetch's.
    const first = await new Promise<IncomingMessage>((resolve, reject) =>
      get(gateway.url + PATH, resolve).once('error', reject),
    );
    // Read to its end: a page may run another slice's query until then, which must not count as the run's.
    await new Promise((resolve) => first.resume().once('end', resolve));
    const etag = first.headers.etag;
    if (first.statusCode !== 200 || !etag) throw new Error(`the settled read gave ${first.statusCode}, ETag ${etag}`);
    const phases = [];
    for (const rate of [undefined, ...RATES]) phases.push(await phase(gateway.url, etag, rate));
    process.stdout.write(`${JSON.stringify(phases, null, 2)}\n`);
    // The highest rate up to which every paced phase kept its p99 under 5 ms.
    const paced = phases.slice(1);
    const met = paced.findIndex((p) => p.latencyMs.p99 >= 5);
    const best = (met < 0 ? paced.at(-1) : paced[met - 1])?.rate;
    process.stdout.write(`p99 under 5 ms at 50 connections up to: ${best ?? 'no rate'} a second\n`);
    const bad = phases.filter((p) => !p.only304 || p.trinoQueries.reads !== 0);
    if (bad.length || phases[1]!.latencyMs.p99 >= 5) {
      throw new Error('expected only 304s, no data read in Trino, and p99 under 5 ms at the first fixed rate');
    }
  } finally {
    await gateway.stop();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`[bench:304] ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
