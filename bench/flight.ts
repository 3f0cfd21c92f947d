/**
 * `npm run bench:flight`: Flight SQL's DoGet against the HTTP Arrow stream for the same window: the first `--rows`
 * rows' window of the bench's clicks (bench/data.ts, bench/window.ts) read by pyarrow in a process of its own
 * (bench/flight_client.py: Arrow IPC read in C++), as one HTTP Arrow response (`limit=all`), and as the statement
 * `SELECT * FROM clicks WHERE <that window>` over Flight SQL with 1 and with 4 partitions (`topicgate-streams`; the
 * endpoints read at once), from one gateway run as `npm start` runs it. Measured per case: rows/s end to end (the
 * FlightInfo with its probe and its count query included), the gateway's and Trino's CPU per row (/proc).
 *
 *   npm run bench:flight [-- --rows 1000000] [--reps 3] [--partitions 1,4]
 *
 * Each case runs once unmeasured first, then `reps` times round robin. Results: a table on stdout and
 * bench/last-flight.json.
 */
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../scripts/free-port.js';
import { layout, serverPids, up } from '../scripts/local-trino.js';
import { BENCH_CATALOG, BENCH_SCHEMA, ensureBenchData } from './data.js';
import { ROOT, startGateway, type Gateway } from './gateway.js';
import { cpuSeconds } from './proc.js';
import { windowOf, type Window } from './window.js';

const execFileAsync = promisify(execFile);
const TOPIC = 'clicks';
const log = (msg: string) => process.stderr.write(`[bench:flight] ${new Date().toISOString().slice(11, 19)} ${msg}\n`);

interface Options {
  rows: number;
  reps: number;
  partitions: number[];
}

function parseArgs(argv: string[]): Options {
  const o: Options = { rows: 1_000_000, reps: 3, partitions: [1, 4] };
  for (let i = 0; i < argv.length; i += 2) {
    const [a, v] = [argv[i], argv[i + 1]];
    if (v === undefined) throw new Error(`${a} needs a value`);
    if (a === '--rows') o.rows = Number(v);
    else if (a === '--reps') o.reps = Number(v);
    else if (a === '--partitions') o.partitions = v.split(',').map(Number);
    else throw new Error(`unknown argument ${a} ${v}`);
  }
  if (!Number.isInteger(o.rows) || o.rows < 1 || o.rows > 1_000_000) throw new Error('--rows: 1..1000000');
  if (!(Number.isInteger(o.reps) && o.reps >= 1)) throw new Error('--reps: at least 1');
  if (!o.partitions.every((n) => Number.isInteger(n) && n >= 1 && n <= 64)) throw new Error('--partitions: 1..64');
  return o;
}

interface Case {
  id: string;
  args: (g: { url: string; flight: string }, w: Window) => string[];
}

/** The window as the SQL subset writes it: Trino's timestamp text of its bounds. */
const sqlOf = (w: Window) => {
  const ts = (iso: string) => `TIMESTAMP '${iso.replace('T', ' ').replace('Z', '')}'`;
  return `SELECT * FROM ${TOPIC} WHERE timestamp_broker >= ${ts(w.since)} AND timestamp_broker < ${ts(w.until)}`;
};

function cases(o: Options): Case[] {
  return [
    {
      id: 'http-arrow',
      args: (g, w) => [
        'http',
        `${g.url}/v1/topics/${TOPIC}/events?since=${w.since}&until=${w.until}&limit=all&format=arrow`,
      ],
    },
    ...o.partitions.map((n) => ({
      id: `doget-${n}`,
      args: (g: { flight: string }, w: Window) => ['flight', g.flight, sqlOf(w), String(n)],
    })),
  ];
}

interface Run {
  rows: number;
  seconds: number;
  endpoints: number;
  gatewayCpu: number;
  trinoCpu: number;
}

async function runCase(
  c: Case,
  g: Gateway & { flight: string },
  w: Window,
  trinoPid: number | undefined,
): Promise<Run> {
  const cpu = () => ({ gateway: cpuSeconds(g.pid), trino: trinoPid === undefined ? 0 : cpuSeconds(trinoPid) });
  const before = cpu();
  const { stdout } = await execFileAsync('python3', [join(ROOT, 'bench', 'flight_client.py'), ...c.args(g, w)], {
    encoding: 'utf8',
  });
  const after = cpu();
  const r = JSON.parse(stdout) as { rows: number; seconds: number; endpoints: number };
  if (r.rows !== w.rows) throw new Error(`${c.id}: ${r.rows} rows read, the window holds ${w.rows}`);
  return { ...r, gatewayCpu: after.gateway - before.gateway, trinoCpu: after.trino - before.trino };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function report(results: { id: string; runs: Run[] }[], w: Window): string {
  const rows = results.map(({ id, runs }) => {
    const seconds = median(runs.map((r) => r.seconds));
    const perRow = (f: (r: Run) => number) => `${((median(runs.map(f)) / w.rows) * 1e6).toFixed(2)}`;
    return `| ${id} | ${runs[0]!.endpoints} | ${seconds.toFixed(2)} | ${Math.round(w.rows / seconds).toLocaleString('en-US')} | ${perRow((r) => r.gatewayCpu)} | ${perRow((r) => r.trinoCpu)} |`;
  });
  return [
    `${w.rows.toLocaleString('en-US')} rows of ${TOPIC} (${w.since} .. ${w.until}), medians of ${results[0]!.runs.length} runs:`,
    '',
    '| case | streams | seconds | rows/s | gateway CPU µs/row | Trino CPU µs/row |',
    '| --- | --- | --- | --- | --- | --- |',
    ...rows,
  ].join('\n');
}

async function main(): Promise<void> {
  const o = parseArgs(process.argv.slice(2));
  // The running local Trino is used as it is (the tests' too); one is started only when none runs.
  const trino = await up(layout(), 240_000, { anyJvm: true });
  log(
    `Trino ${trino.url} (${trino.started ? 'started by the bench' : 'already running'}); load ${os.loadavg()[0]!.toFixed(1)}`,
  );
  await ensureBenchData(trino.url, log, [TOPIC]);
  const w = await windowOf(trino.url, BENCH_CATALOG, BENCH_SCHEMA, TOPIC, o.rows);
  log(`${w.rows} rows of ${BENCH_SCHEMA}.${TOPIC}, ${w.since} .. ${w.until}`);
  const flightPort = await freePort();
  const gateway = await startGateway({
    TOPICGATE_TRINO_URL: trino.url,
    TOPICGATE_CATALOG: BENCH_CATALOG,
    TOPICGATE_SCHEMAS: BENCH_SCHEMA,
    TOPICGATE_STATE_URL: 'sqlite::memory:',
    TOPICGATE_HOST: '127.0.0.1',
    TOPICGATE_PORT: '0',
    TOPICGATE_FLIGHT_PORT: String(flightPort),
    // info: bench/gateway.ts waits for the `topicgate listening` line.
    TOPICGATE_LOG_LEVEL: 'info',
  });
  const g = { ...gateway, flight: `grpc://127.0.0.1:${flightPort}` };
  try {
    const trinoPid = serverPids(layout())[0];
    const all = cases(o);
    for (const c of all) await runCase(c, g, w, trinoPid);
    const runs = new Map<string, Run[]>(all.map((c) => [c.id, []]));
    for (let rep = 0; rep < o.reps; rep++) {
      for (const c of all.map((_, i) => all[(i + rep) % all.length]!)) {
        const r = await runCase(c, g, w, trinoPid);
        runs.get(c.id)!.push(r);
        log(
          `${c.id.padEnd(10)} rep ${rep + 1}/${o.reps}: ${r.seconds.toFixed(2)}s, ${Math.round(r.rows / r.seconds)} rows/s, gateway ${r.gatewayCpu.toFixed(2)} CPU-s`,
        );
      }
    }
    const results = all.map((c) => ({ id: c.id, runs: runs.get(c.id)! }));
    const facts = { date: new Date().toISOString(), rows: w.rows, cores: os.cpus().length, load1: os.loadavg()[0]! };
    writeFileSync(join(ROOT, 'bench', 'last-flight.json'), JSON.stringify({ facts, results }, null, 1));
    process.stdout.write(`${report(results, w)}\n`);
  } finally {
    await gateway.stop();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`[bench:flight] error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
