/**
 * `npm run load`: the request mix of bench/load-mix.ts at 10, 50 and 200 concurrent connections
 * against a gateway this script starts (`node dist/server.js`, the production build, on 127.0.0.1 only), over the
 * local Trino's demo topics. Per level: throughput, p50/p99 latency per route, status codes, the gateway's RSS
 * and the Trino queries running at once (sampled): the reads' queries, which `maxConcurrentQueries` governs, apart
 * from the gateway's catalog lookups (one at a time, at most every 10 s, outside the query slots). It fails on any 5xx but a 503 with Retry-After, and on a Trino
 * query of the gateway's user still running after the run. Writes docs/load.md and docs/load.svg. A second
 * gateway serves `vastpg` for the selective read (bench/load-selective.ts), whose Trino queries per read are
 * counted alone before the run.
 *
 *   npm run load                                      # 60 s per level, as the issue asks
 *   npm run load -- --duration 15                     # shorter, on a busy machine
 *   npm run load -- --mix selective --levels 10       # only the selective read, every connection on it
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon, { type Result } from 'autocannon';
import { HttpTrino } from '../src/trino/http-trino.js';
import { connectionsOf, filteredPaths, loadMix, rotating, type Route } from './load-mix.js';
import { checkPgData, PG_USER, probeReads, selectiveRoute, selectiveTarget, startPgGateway } from './load-selective.js';
import { writeLoadReport, type LevelResult } from './load-report.js';
import { currentRss, peakRss } from './proc.js';

const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : dflt;
};
const DURATION_S = Number(arg('duration', '60'));
const LEVELS = arg('levels', '10,50,200').split(',').map(Number);
const PORT = Number(arg('port', '18920'));
/** `all`: the whole mix, the selective read included; `selective`: the selective read alone. */
const MIX = arg('mix', 'all');
const TRINO = process.env.TOPICGATE_TRINO_URL ?? 'http://127.0.0.1:18080';
const USER = 'topicgate-load'; // the gateway's Trino user: its queries are told apart from everyone else's
const base = `http://127.0.0.1:${PORT}`;

const pgBase = `http://127.0.0.1:${PORT + 1}`;

/** Starts a gateway with `env` over the defaults below and waits until it is ready. */
async function startGateway(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--max-semi-space-size=4', 'dist/server.js'], {
    env: {
      ...process.env,
      TOPICGATE_HOST: '127.0.0.1',
      TOPICGATE_LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const url = `http://127.0.0.1:${env.TOPICGATE_PORT}`;
  for (let i = 0; i < 600; i++) {
    if ((await fetch(`${url}/readyz`).catch(() => null))?.ok) return child;
    if (child.exitCode !== null) throw new Error(`the gateway exited (${child.exitCode})`);
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the gateway did not get ready within 60 s');
}

/** Later pages of one paged read (their cursor URLs), and cursors to read. */
async function prepare(): Promise<{ pages: string[]; cursors: string[] }> {
  const pages: string[] = [];
  let next: string | null = '/v1/topics/orders/events?since=2026-11-01T00:00:00Z&limit=200';
  while (next && pages.length < 20) {
    const body = (await (await fetch(base + next)).json()) as { next: string | null };
    next = body.next;
    if (next) pages.push(next);
  }
  const cursors = Array.from({ length: 8 }, (_, i) => `load-${i}`);
  for (const c of cursors) {
    const res = await fetch(`${base}/v1/cursors/${c}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ topic: 'orders', start: 'earliest', settle: '30s' }),
    });
    if (!res.ok) throw new Error(`PUT cursor ${c}: ${res.status} ${await res.text()}`);
  }
  return { pages, cursors };
}

const checker = new HttpTrino({ server: TRINO, user: 'topicgate-load-check' });

/** The catalog lookups' SQL (read/topic-catalog.ts): the only queries of the gateway that take no query slot. */
const CATALOG = `query LIKE '%.information_schema.%'`;

/**
 * Trino queries of the gateway's user not yet over (the check runs as another user, so it is not counted): those
 * of reads, which hold query slots, and catalog lookups.
 */
async function liveQueries(): Promise<{ reads: number; catalog: number }> {
  const { rows } = await checker.all(
    `SELECT count_if(NOT (${CATALOG})), count_if(${CATALOG}) FROM system.runtime.queries ` +
      `WHERE "user" IN ('${USER}', '${PG_USER}') AND state NOT IN ('FINISHED', 'FAILED')`,
  );
  return { reads: Number(rows[0]![0]), catalog: Number(rows[0]![1]) };
}
const live = async () => liveQueries().then(({ reads, catalog }) => reads + catalog);

function errorCode(body: string): string {
  try {
    return (JSON.parse(body) as { error?: { code?: string } }).error?.code ?? '?';
  } catch {
    return '?';
  }
}

async function runLevel(connections: number, pid: number, mix: Route[]): Promise<LevelResult> {
  const split = connectionsOf(mix, connections);
  const bad: string[] = [];
  const refusals: Record<string, number>[] = mix.map(() => ({}));
  const samples = { rss: [] as number[], queries: [] as number[], catalog: [] as number[] };
  const sampler = setInterval(() => {
    samples.rss.push(currentRss(pid));
  }, 500);
  let sampling = true;
  const queryCounts = (async () => {
    while (sampling) {
      const { reads, catalog } = await liveQueries().catch(() => ({ reads: 0, catalog: 0 }));
      samples.queries.push(reads);
      samples.catalog.push(catalog);
      await new Promise((r) => setTimeout(r, 1000));
    }
  })();
  const results = await Promise.all(
    mix.map(
      (route, i) =>
        autocannon({
          url: route.base ?? base,
          connections: split[i]!,
          duration: DURATION_S,
          timeout: 120,
          requests: route.requests.map((r) => ({
            ...r,
            onResponse: (status: number, body: string, _ctx: object, headers?: Record<string, unknown>) => {
              if (status >= 500 && !(status === 503 && headers?.['retry-after'])) bad.push(`${route.name}: ${status}`);
              if (status >= 400) {
                const code = `${status} ${errorCode(body)}`;
                refusals[i]![code] = (refusals[i]![code] ?? 0) + 1;
              }
            },
          })),
        }) as Promise<Result>,
    ),
  );
  clearInterval(sampler);
  sampling = false;
  await queryCounts;
  return {
    connections,
    seconds: DURATION_S,
    routes: mix.map((route, i) => {
      const r = results[i]!;
      const codes = Object.fromEntries(
        Object.entries(r.statusCodeStats ?? {}).map(([code, s]) => [code, Number(s.count ?? 0)]),
      );
      return {
        name: route.name,
        connections: split[i]!,
        requests: r.requests.total,
        perSecond: r.requests.average,
        p50: r.latency.p50,
        p99: r.latency.p99,
        codes,
        refusals: refusals[i]!,
        errors: r.errors,
        timeouts: r.timeouts,
      };
    }),
    rssMaxBytes: Math.max(...samples.rss),
    rssEndBytes: currentRss(pid),
    queriesMax: Math.max(0, ...samples.queries),
    catalogMax: Math.max(0, ...samples.catalog),
    bad,
  };
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'topicgate-load-'));
  await checkPgData(checker);
  const gateway = await startGateway({
    TOPICGATE_PORT: String(PORT),
    TOPICGATE_TRINO_URL: TRINO,
    TOPICGATE_TRINO_USER: USER,
    TOPICGATE_STATE_URL: `sqlite:${join(dir, 'load.db')}`,
  });
  const pgGateway = await startPgGateway(dir, PORT + 1, TRINO, startGateway).catch(async (err: unknown) => {
    await stopGateway(gateway);
    throw err;
  });
  const pid = gateway.pid!;
  try {
    const idleRss = currentRss(pid);
    const probe = await probeReads(selectiveTarget(pgBase), checker, TRINO);
    process.stderr.write(`[load] selective read alone: ${JSON.stringify(probe)}\n`);
    const filtered = { base, paths: filteredPaths(), user: USER, like: '%demo|kafka_topics%orders%' };
    const filteredProbe = await probeReads(filtered, checker, TRINO);
    process.stderr.write(`[load] filtered read alone: ${JSON.stringify(filteredProbe)}\n`);
    const selective = selectiveRoute(pgBase, rotating);
    let mix: Route[];
    if (MIX === 'selective') mix = [{ ...selective, weight: 1 }];
    else {
      const { pages, cursors } = await prepare();
      mix = loadMix(pages, cursors, selective);
    }
    const levels: LevelResult[] = [];
    for (const c of LEVELS) {
      process.stderr.write(`[load] ${c} connections for ${DURATION_S} s\n`);
      levels.push(await runLevel(c, pid, mix));
    }
    // Nothing may be left running in Trino: wait a moment for cancellations to land, then look.
    let leaked = await live();
    for (let i = 0; i < 20 && leaked > 0; i++) {
      await new Promise((r) => setTimeout(r, 500));
      leaked = await live();
    }
    const report = await writeLoadReport({
      levels,
      idleRss,
      peakRss: peakRss(pid),
      leaked,
      durationS: DURATION_S,
      probes: { selective: probe, filtered: filteredProbe },
      mix: MIX,
    });
    process.stdout.write(report);
    const bad = levels.flatMap((l) => l.bad);
    if (bad.length > 0) throw new Error(`5xx other than 503 with Retry-After: ${bad.slice(0, 5).join('; ')}`);
    if (leaked > 0) throw new Error(`${leaked} Trino queries of the gateway still running after the run`);
  } finally {
    await stopGateway(gateway);
    await stopGateway(pgGateway);
    rmSync(dir, { recursive: true, force: true });
  }
}

async function stopGateway(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
}

main().catch((err: unknown) => {
  process.stderr.write(`[load] failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});
