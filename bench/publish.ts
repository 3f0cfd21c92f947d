/** What the bench finds out about the gateway before it races, and what it writes afterwards (docs/). */
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import { join } from 'node:path';
import { format as prettierFormat } from 'prettier';
import { BENCH_CATALOG, BENCH_SCHEMA, BIG_SCHEMA } from './data.js';
import { ROOT, startGateway } from './gateway.js';
import { PAGE_ROWS, type PagingRun } from './paging.js';
import type { CaseResult, GatewayFeatures } from './race.js';
import { fmtInt, pagingTable, pagingVerdicts, parallelVerdicts, raceTable, raceVerdicts, rate } from './report.js';
import { ceilingVerdicts } from './ceiling-report.js';
import { barChart, logLineChart } from './svg.js';

/**
 * Asks a gateway whether it has `limit=all` and `parallel=<n>` (a 400 means not), and whether it takes per-topic
 * session properties (a gateway without them refuses the config file at start-up).
 */
export async function detectFeatures(env: Record<string, string>, topic: string): Promise<GatewayFeatures> {
  const config = join(tmpdir(), `topicgate-bench-probe-${process.pid}.json`);
  writeFileSync(config, JSON.stringify({ topics: { [topic]: { session: { query_max_run_time: '10m' } } } }));
  let session = true;
  const gw = await startGateway({ ...env, TOPICGATE_CONFIG: config }).catch(() => {
    session = false;
    return startGateway(env);
  });
  try {
    const base = `${gw.url}/v1/topics/${encodeURIComponent(topic)}/events?since=2026-11-01T00:00:00Z&until=2026-11-01T00:00:01Z&format=ndjson`;
    const ok = async (q: string) => (await fetch(`${base}&${q}`).then((r) => r.text().then(() => r.status))) === 200;
    return { limitAll: await ok('limit=all'), parallel: await ok('limit=all&parallel=2'), session };
  } finally {
    await gw.stop();
    rmSync(config, { force: true });
  }
}

export interface Facts {
  command: string;
  seconds: number;
  load0: number;
  load1: number;
  trinoVersion: string;
  anchors: { cli: string; python: string };
  features: GatewayFeatures;
  /** `--pin`: Trino on CPU 0, the clients on CPU 1 (bench/pin.ts). */
  pin?: boolean;
}

const RATE_SVG = 'bench-rows-per-second.svg';
const PAGES_SVG = 'bench-rows-read-per-page.svg';

function plots(results: CaseResult[], paging: PagingRun[]): void {
  if (results.length) {
    const sizes = [...new Set(results.map((r) => r.size))];
    const labels = [...new Set(results.map((r) => r.label))];
    // A case not run at a size (the 10^7 race runs a few) has no bar there.
    const values = sizes.map((s) =>
      labels.map((l) => {
        const r = results.find((x) => x.size === s && x.label === l);
        return r ? rate(r.best) : NaN;
      }),
    );
    const svg = barChart(
      'Rows/s by client and result size (clicks, same window)',
      'rows/s',
      labels,
      sizes.map((s) => `${fmtInt(s)} rows`),
      values,
    );
    writeFileSync(join(ROOT, 'docs', RATE_SVG), svg);
  }
  if (paging.length) {
    const points = paging.map((r) => r.pages.map((p, i): [number, number] => [i + 1, Math.max(1, p.rowsRead)]));
    const svg = logLineChart(
      `Rows Trino read per page (${fmtInt(PAGE_ROWS)} rows per page)`,
      'page number',
      'rows read (log scale)',
      paging.map((r) => r.catalog),
      points,
    );
    writeFileSync(join(ROOT, 'docs', PAGES_SVG), svg);
  }
}

function gitCommit(): string {
  const r = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : 'unknown';
}

function machine(f: Facts): string[] {
  return [
    `- nproc: ${os.availableParallelism()} (${os.cpus()[0]?.model ?? 'unknown'})`,
    `- memory: ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB`,
    `- Node ${process.version}, ${os.type()} ${os.release()}; ${f.anchors.cli}; ${f.anchors.python}`,
    `- gateway at commit ${gitCommit()} (its limit=all: ${f.features.limitAll ? 'yes' : 'no'}, parallel=N: ${f.features.parallel ? 'yes' : 'no'})`,
    `- Trino ${f.trinoVersion} (local single node, heap ${process.env.TOPICGATE_LOCAL_TRINO_HEAP ?? '6G'})`,
    `- load average (1 min) ${f.load0.toFixed(1)} at the start, ${f.load1.toFixed(1)} at the end ${
      f.pin
        ? '(`--pin`: Trino and its S3 server on CPU 0; the bench, every client and the gateways on CPU 1, as when Trino runs on machines of its own)'
        : '(Trino, the clients and the gateways share the 2 cores)'
    }`,
  ];
}

/** What the race measures and how: the data, the clients, the protocols, the ceiling and each column. */
function raceMethod(f: Facts): string[] {
  const heap = process.env.TOPICGATE_LOCAL_TRINO_HEAP ?? '6G';
  const single = f.features.limitAll
    ? '`limit=all&until=...`'
    : '`limit=<window rows>` (one page: `limit=all` is not on main yet)';
  return [
    `Data: \`${BENCH_CATALOG}."${BENCH_SCHEMA}".clicks\` (bench/data.ts: the demo generator at 1,000,000 events, 1,001,000 rows of small JSON values); ` +
      `sizes above 10^6 read \`${BENCH_CATALOG}."${BIG_SCHEMA}".clicks\` (the same generator at 10,000,000 events, 10,010,000 rows), on a Trino with a ${heap} heap. ` +
      'For a result size n, every client reads the same window: from the first broker time up to the broker time of the n-th row. ' +
      `The gateway reads it in one response, ${single}${f.features.parallel ? ', and with `parallel=2` and `parallel=4`' : '; `parallel=N` is not on main yet, so those cases are absent'}. ` +
      "The ceiling, the Trino CLI, the python client and the raw client run the SQL text of the gateway's single stream (its `explain=true`), so Trino does the same work for all. " +
      'The ceiling, the CLI, python and the gateway each run over the direct protocol and over spooled results (`, spooled`: json+zstd segments that Trino writes to the S3 server beside it and the client fetches through the coordinator); the raw trino-client speaks only the direct protocol. ' +
      'The CLI asks for spooled results by default: its direct case runs with the session property `spooling_enabled=false`.',
    '',
    "The Trino protocol ceiling is what Trino sends, read and thrown away: a Node process (bench/ceiling-client.ts) that sends the gateway's SQL with the gateway's headers and follows each `nextUri`, reading of each page only `nextUri`, `error` and the number of rows (counted by scanning the page's bytes: no row is parsed); over spooling it fetches, decompresses and acknowledges each segment and takes its rows from the segment's metadata. " +
      "A client that does anything with the rows (the gateway parses, encodes and writes them) does it on top of this work. Ratio to ceiling is rows/s over the ceiling's of the same protocol (direct cases to the direct ceiling, spooled ones to the spooled ceiling) at the same size.",
    '',
    'Seconds run from sending the query to the last byte (the CLI: from starting the JVM to its exit, since that is what running it costs). ' +
      "Ratio to raw is rows/s over the raw trino-client's at the same size. CPU µs/row is the CPU the client process used (the gateway " +
      'process for gateway cases; Trino is not counted), per row, in the best run: ' +
      (f.pin
        ? 'Trino has CPU 0 to itself and the client (with the bench reading the gateway) CPU 1, so a client keeps up with Trino as long as its work per row fits in one core. '
        : 'Trino and every client share the same 2 cores, so a client that needs more CPU also slows Trino down. ') +
      "Trino CPU µs/row is the Trino server's CPU in the same run, per row. " +
      "First byte is when the gateway's first body byte arrived: an ordered read sorts (the first slice of) the window before it. " +
      "Machine busy is the share of both cores' time in use during that run (Trino, the client, everything): near 100%, the cores are the limit, and more concurrency (`parallel=N`) cannot add throughput. Peak RSS is the client process's (VmHWM of a fresh process per size, or " +
      "ru_maxrss of the CLI's JVM and of the python process). Each case is the best of a few runs, run round-robin across the cases, after an untimed warm-up run of each case whose process lives across runs (the gateways, the raw client, the ceilings: a running gateway is warm; the CLI and python start a process per run, as their users do). Trino queries and rows read by Trino are per response, from Trino's query statistics (each gateway sends its queries as a Trino user of its own); the other clients send the one query.",
  ];
}

function raceSection(results: CaseResult[]): string[] {
  if (!results.length) return ['(race not run)', ''];
  const ceiling = ceilingVerdicts(results);
  return [
    raceTable(results),
    '',
    'Targets:',
    '',
    ...raceVerdicts(results),
    '',
    ...(ceiling.length ? [...ceiling, ''] : []),
  ];
}

function pgSection(pgResults: CaseResult[]): string[] {
  if (!pgResults.length) return [];
  return [
    '## Parallel slices where ranges reach the scan',
    '',
    'The memory catalog pushes no predicate into its scan, so each of `parallel=N` slices reads the whole table: ' +
      'there N slices cost Trino N scans. On `vastpg` (the same rows in PostgreSQL, indexed on `timestamp_broker`) ' +
      'each slice reads only its range, as on VAST. In order, a slice starts once the one before it has its first rows ' +
      '(Trino scans and sorts a slice before its first row), so the next slice is sorted while the one before it is ' +
      'written. Slices add concurrency, not less work: where the single stream kept the cores busy a share b of the ' +
      'time, N slices can be at most 1/b times as fast at the same CPU per row, which each line below gives:',
    '',
    raceTable(pgResults),
    '',
    ...parallelVerdicts(pgResults),
    '',
  ];
}

function pagingSection(paging: PagingRun[], f: Facts): string[] {
  return [
    '## Paging vs one response',
    '',
    `A window of ${fmtInt(paging[0]?.single.rows ?? 0)} rows read as NDJSON pages of ${fmtInt(PAGE_ROWS)} rows (following \`Link: rel="next"\`) and in ` +
      'one response. Rows read by Trino: the sum of `queryStats.processedInputPositions` of the queries a run sent (found by a Trino ' +
      'user unique to the run in `system.runtime.queries`, cancelled ones included). On the memory catalog no predicate reaches ' +
      'the scan, so every query reads the whole table. On `vastpg` (PostgreSQL, indexed on `timestamp_broker`) the range reaches ' +
      "the scan, but Trino's PostgreSQL connector also pushes TopN/LIMIT, which VAST does not; " +
      (f.features.session
        ? 'so the gateway runs there with `topics.clicks.session: {vastpg.topn_pushdown_enabled: false}` and reads what VAST would.'
        : 'this gateway cannot set `vastpg.topn_pushdown_enabled=false` per topic (`topics.<t>.session`), so its queries on ' +
          '`vastpg` are replayed through the Node Trino port with that session property: the replay rows are the raw SQL cost as ' +
          'VAST would pay it (its seconds are Trino plus reading the rows in Node, no gateway).'),
    '',
    `![rows read per page](${PAGES_SVG})`,
    '',
    paging.length ? pagingTable(paging) : '(paging not run)',
    '',
    ...pagingVerdicts(paging),
    '',
  ];
}

export async function writeDocs(
  results: CaseResult[],
  paging: PagingRun[],
  f: Facts,
  write: boolean,
  pgResults: CaseResult[] = [],
): Promise<string> {
  const doc = [
    'Generated by `npm run bench` (bench/run.ts); do not edit by hand, run it again.',
    '',
    '# Benchmarks: the gateway against the tools users would pick instead',
    '',
    `Command: \`${f.command}\` (${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, ${f.seconds.toFixed(0)}s in all).`,
    '',
    'Machine:',
    '',
    ...machine(f),
    '',
    ...raceMethod(f),
    '',
    ...(f.pin ? [] : [`![rows/s by client and size](${RATE_SVG})`, '']),
    ...raceSection(results),
    ...pgSection(pgResults),
    ...pagingSection(paging, f),
    '## Not run',
    '',
    '- At 10^7 rows only the cases `--huge-cases` names (default: both ceilings, the raw client, the CLI over spooling, the ' +
      'gateway in each format over spooling, NDJSON direct, and NDJSON `parallel=4` over spooling), `--huge-reps` times each (default once) and without a warm-up (the read is its own): every case reads ' +
      '10^7 rows from a Trino on the same 2 cores, and the python client, at its 10^6-row pace, would take about 7 minutes per mode.',
    '',
  ].join('\n');
  if (write) {
    if (!f.pin) plots(results, paging);
    writeFileSync(
      join(ROOT, 'docs', f.pin ? 'benchmarks-pinned.md' : 'benchmarks.md'),
      await prettierFormat(doc, { parser: 'markdown', ...prettierOptions() }),
    );
  }
  return doc;
}

function prettierOptions(): Record<string, unknown> {
  try {
    return JSON.parse(readFileSync(join(ROOT, '.prettierrc.json'), 'utf8')) as Record<string, unknown>;
  } catch {
    return {};
  }
}
