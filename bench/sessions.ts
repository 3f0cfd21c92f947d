/**
 * `npm run bench:sessions`: read sessions against the single response. The first `--rows` rows' window
 * of the bench's clicks (bench/data.ts, bench/window.ts) read as one `limit=all` response, and as a session of 1, 4
 * and 16 streams, through one gateway instance and through two behind HAProxy (scripts/cluster.ts, the built dist/
 * as `npm start` runs it). A case is timed end to end: the session made (its count query included), then every
 * stream read at once, each to its end and checked complete with its rows, by a client in a process of its own
 * (bench/session-client.ts). Measured from /proc around each case: the CPU of each gateway instance, of Trino, of
 * HAProxy and of the client, and the machine's busy share. The ceiling is what the cores allow at the measured CPU
 * per row: cores / (gateways' + Trino's CPU per row). The single response and the widest session through two
 * instances run once unmeasured first, so that no case pays for the others' warm-up.
 *
 *   npm run bench:sessions [-- --rows 1000000|10000000] [--reps 2] [--streams 1,4,16] [--format ndjson]
 *
 * 10^7 rows read a schema of their own, loaded when missing (about 1.3 GB of Trino's memory connector: a Trino the
 * bench starts gets a 16G heap). Results: a table and the arithmetic for 10^9 rows on stdout, and
 * bench/last-sessions.json; docs/sessions-bench.md is written from them.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { clusterDown, clusterLayout, clusterUp, type Cluster } from '../scripts/cluster.js';
import { freePort } from '../scripts/free-port.js';
import { down, layout as trinoLayout, serverPids, up } from '../scripts/local-trino.js';
import { forkClient, type ClientRun, type ForkedClient } from './client-fork.js';
import { BENCH_CATALOG, BENCH_SCHEMA, BIG_ROWS, BIG_SCHEMA, ensureBenchData, ensureBigClicks } from './data.js';
import { ROOT, type Format } from './gateway.js';
import { busyShare, cpuSeconds, machineTicks } from './proc.js';
import { sessionReport, type SessionCase, type SessionRun } from './sessions-report.js';
import { windowOf, type Window } from './window.js';

const TOPIC = 'clicks';
const log = (msg: string) =>
  process.stderr.write(`[bench:sessions] ${new Date().toISOString().slice(11, 19)} ${msg}\n`);

interface Options {
  rows: number;
  reps: number;
  streams: number[];
  format: Format;
}

function parseArgs(argv: string[]): Options {
  const o: Options = { rows: 1_000_000, reps: 2, streams: [1, 4, 16], format: 'ndjson' };
  for (let i = 0; i < argv.length; i += 2) {
    const [a, v] = [argv[i], argv[i + 1]];
    if (v === undefined) throw new Error(`${a} needs a value`);
    if (a === '--rows') o.rows = Number(v);
    else if (a === '--reps') o.reps = Number(v);
    else if (a === '--streams') o.streams = v.split(',').map(Number);
    else if (a === '--format' && (v === 'ndjson' || v === 'csv' || v === 'arrow')) o.format = v;
    else throw new Error(`unknown argument ${a} ${v}`);
  }
  if (!Number.isInteger(o.rows) || o.rows < 1 || o.rows >= BIG_ROWS) throw new Error(`--rows: 1..${BIG_ROWS - 1}`);
  if (!(Number.isInteger(o.reps) && o.reps >= 1)) throw new Error('--reps: at least 1');
  if (!o.streams.every((n) => Number.isInteger(n) && n >= 1 && n <= 64)) throw new Error('--streams: each 1..64');
  return o;
}

/** The cases: the single response through one instance, then each stream count through one and through two. */
function cases(o: Options): SessionCase[] {
  const out: SessionCase[] = [{ id: 'single', streams: 0, via: 'one' }];
  for (const via of ['one', 'two'] as const)
    for (const streams of o.streams) out.push({ id: `s${streams}-${via}`, streams, via });
  return out;
}

interface Bench {
  cluster: Cluster;
  client: ForkedClient;
  w: Window;
  format: Format;
  trinoPid: number | undefined;
}

/** CPU seconds so far of every measured process. */
function cpuNow(b: Bench) {
  return {
    gateways: b.cluster.instances.map((g) => cpuSeconds(g.pid)),
    trino: b.trinoPid === undefined ? undefined : cpuSeconds(b.trinoPid),
    balancer: cpuSeconds(b.cluster.balancerPid),
    client: cpuSeconds(b.client.pid),
  };
}

async function makeSession(base: string, w: Window, streams: number) {
  const res = await fetch(`${base}/v1/topics/${TOPIC}/sessions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ since: w.since, until: w.until, streams }),
  });
  if (res.status !== 201) throw new Error(`POST session: HTTP ${res.status} ${(await res.text()).slice(0, 500)}`);
  return (await res.json()) as { streams: { url: string }[] };
}

async function runCase(b: Bench, c: SessionCase): Promise<SessionRun> {
  const base = c.via === 'two' ? b.cluster.url : b.cluster.instances[0]!.url;
  const [cpu0, ticks0, t0] = [cpuNow(b), machineTicks(), performance.now()];
  let urls = [`${base}/v1/topics/${TOPIC}/events?${new URLSearchParams({ since: b.w.since, until: b.w.until })}`];
  let createSeconds = 0;
  if (c.streams > 0) {
    const s = await makeSession(base, b.w, c.streams);
    createSeconds = (performance.now() - t0) / 1000;
    if (s.streams.length !== c.streams) throw new Error(`${c.id}: ${s.streams.length} streams`);
    urls = s.streams.map((x) => `${base}${x.url}`);
  } else urls = urls.map((u) => `${u}&limit=all`);
  // Every response complete, and all of them together the window's rows.
  const formatted = urls.map((u) => `${u}&format=${b.format}`);
  const read = await b.client.call<ClientRun>({ urls: formatted, format: b.format, rows: b.w.rows });
  const seconds = (performance.now() - t0) / 1000;
  const [cpu1, ticks1] = [cpuNow(b), machineTicks()];
  return {
    rows: read.rows,
    seconds,
    createSeconds,
    firstSeconds: createSeconds + read.firstSeconds,
    cpu: {
      gateways: cpu1.gateways.map((x, i) => x - cpu0.gateways[i]!),
      trino: cpu1.trino === undefined ? undefined : cpu1.trino - cpu0.trino!,
      balancer: cpu1.balancer - cpu0.balancer,
      client: cpu1.client - cpu0.client,
    },
    busy: busyShare(ticks0, ticks1),
  };
}

async function main(): Promise<void> {
  const o = parseArgs(process.argv.slice(2));
  const big = o.rows > 1_000_000;
  // A Trino started here for 10^7 rows holds them in its memory connector and sorts the whole window in one query.
  if (big) process.env.TOPICGATE_LOCAL_TRINO_HEAP ??= '16G';
  // The memory connector's scan reserves each split's pages whole: 16 streams scanning 10^7 rows at once with the
  // default two splits reserved 12 GB of an 11.2 GB pool (CLUSTER_OUT_OF_MEMORY); 64 splits make it a few per query.
  if (big) process.env.TOPICGATE_LOCAL_TRINO_MEMORY_SPLITS ??= '64';
  const load0 = os.loadavg()[0]!;
  const trino = await up();
  log(`Trino ${trino.url} (${trino.started ? 'started by the bench' : 'already running'}); load ${load0.toFixed(1)}`);
  const dir = mkdtempSync(join(os.tmpdir(), 'topicgate-bench-sessions-'));
  const layout = clusterLayout(
    { ...process.env, TOPICGATE_CACHE_DIR: dir },
    {
      port: await freePort(),
      instancePorts: [await freePort(), await freePort()],
    },
  );
  let client: ForkedClient | undefined;
  let failed = true;
  try {
    if (big) await ensureBigClicks(trino.url, log);
    else await ensureBenchData(trino.url, log, [TOPIC]);
    const schema = big ? BIG_SCHEMA : BENCH_SCHEMA;
    const w = await windowOf(trino.url, BENCH_CATALOG, schema, TOPIC, o.rows);
    log(`${w.rows} rows of ${schema}.${TOPIC}, ${w.since} .. ${w.until}`);
    const cluster = await clusterUp(layout, {
      trinoUrl: trino.url,
      env: {
        TOPICGATE_CATALOG: BENCH_CATALOG,
        TOPICGATE_SCHEMAS: schema,
        TOPICGATE_LOG_LEVEL: 'warn',
        // One response of 10^7 rows takes minutes on a busy machine: past the default 120 s it would be cut.
        ...(big ? { TOPICGATE_QUERY_TIMEOUT_MS: '3600000' } : {}),
      },
    });
    client = forkClient('session-client.ts', []);
    await client.ready;
    const b: Bench = { cluster, client, w, format: o.format, trinoPid: serverPids(trinoLayout())[0] };
    const all = cases(o);
    // Unmeasured: the client's, the instances' and Trino's code warmed up on each kind of read first.
    for (const c of [all[0]!, all.at(-1)!]) await runCase(b, c);
    const runs = new Map<string, SessionRun[]>(all.map((c) => [c.id, []]));
    // Round robin, one case later each repetition, so other load falls on every case alike.
    for (let rep = 0; rep < o.reps; rep++) {
      for (const c of all.map((_, i) => all[(i + rep) % all.length]!)) {
        const r = await runCase(b, c);
        runs.get(c.id)!.push(r);
        log(
          `${c.id.padEnd(8)} rep ${rep + 1}/${o.reps}: ${r.seconds.toFixed(2)}s, ${Math.round(r.rows / r.seconds)} rows/s`,
        );
      }
    }
    const facts = {
      command: `npm run bench:sessions${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
      date: new Date().toISOString(),
      rows: w.rows,
      format: o.format,
      cores: os.cpus().length,
      load0,
      load1: os.loadavg()[0]!,
      trinoPid: b.trinoPid !== undefined,
    };
    const results = all.map((c) => ({ c, runs: runs.get(c.id)! }));
    writeFileSync(join(ROOT, 'bench', 'last-sessions.json'), JSON.stringify({ facts, results }, null, 1));
    process.stdout.write(`${sessionReport(results, facts)}\n`);
    failed = false;
  } finally {
    await client?.stop();
    await clusterDown(layout);
    // A failed run keeps the instances' and the balancer's logs for a look at what went wrong.
    if (failed) log(`the instances' logs are kept in ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
    if (trino.started) await down();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`[bench:sessions] error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
