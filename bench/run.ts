/**
 * `npm run bench`: the race (the gateway against the Trino CLI and the python client, and paging against one response), in one run, on the same windows of the same topic.
 *
 *   npm run bench [-- --sizes 100000,1000000,10000000] [--reps 3] [--big-reps 2] [--huge-reps 1] [--warmups 1]
 *                    [--paging-rows 1000000]
 *                    [--cases raw,ndjson@spool,...] [--huge-cases raw,...] [--pg-race-rows 0] [--no-race] [--no-paging]
 *                    [--profile] [--pin]
 *   npm run bench -- --publish bench/last-run.json   (the docs again from the last run's results)
 *
 * 1. The race (bench/race.ts): the ceiling (Trino's protocol read and thrown away), the Trino CLI, the python
 *    `trino` client, the raw trino-client in Node and the gateway (NDJSON, CSV, Arrow; one stream, and
 *    `parallel=2,4` when the gateway has them) read the first `size` rows' window of `clicks`: rows/s, ratios to the
 *    raw client and to the ceiling, CPU per row, peak RSS. The ceiling, the CLI, python and the gateway run over the
 *    direct protocol and over spooled results (`@spool`). `--cases` keeps the named cases at every size,
 *    `--huge-cases` those of sizes above 10^6 (default: both ceilings, raw, the spooled CLI and gateway cases, and
 *    the direct NDJSON stream), which read a 10^7-event copy of the generator (bench/data.ts) on a Trino with
 *    a 16G heap (TOPICGATE_LOCAL_TRINO_HEAP, unless set).
 * 2. Paging vs one response (bench/paging.ts): a `--paging-rows` window at 10,000 rows per page vs one response,
 *    total time and rows Trino read, on the memory catalog and on PostgreSQL (`vastpg`), the latter also replayed
 *    with TopN pushdown off (bench/replay.ts), as VAST behaves.
 * Results: a table on stdout; docs/benchmarks.md and two SVG plots in docs/ (not with --profile, which starts the
 * gateways with `--cpu-prof`, profiles in bench/profiles/, see bench/profile-summary.ts). `--pin` runs Trino on
 * CPU 0 and every client on CPU 1 (bench/pin.ts, as when Trino has machines of its own) and writes
 * docs/benchmarks-pinned.md instead.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { down, up } from '../scripts/local-trino.js';
import { pgDown, pgLayout } from '../scripts/local-postgres.js';
import { ensurePythonTrino, ensureTrinoCli, javaVersion } from './anchors.js';
import {
  BENCH_CATALOG,
  BENCH_SCHEMA,
  BIG_ROWS,
  BIG_SCHEMA,
  ensureBenchData,
  ensureBigClicks,
  EXPECTED_ROWS,
} from './data.js';
import { getJson, ROOT } from './gateway.js';
import { pagingRun, type PagingRun } from './paging.js';
import { ensurePgCopy, PG_BENCH_CATALOG, PG_BENCH_SCHEMA } from './pg-copy.js';
import type { CaseResult } from './race.js';
import { raceSize } from './race-size.js';
import { detectFeatures, writeDocs } from './publish.js';
import { replay } from './replay.js';
import { windowOf } from './window.js';
import { pinBench, pinTrino, unpin } from './pin.js';

const TOPIC = 'clicks';

export interface Options {
  sizes: number[];
  reps: number;
  bigReps: number;
  /** Runs of each case at sizes above 10^6. */
  hugeReps: number;
  /** Untimed rounds of the cases with a long-lived process before the timed ones, at sizes up to 10^6. */
  warmups: number;
  pagingRows: number;
  race: boolean;
  paging: boolean;
  profile: boolean;
  /** Trino on CPU 0, the clients on CPU 1 (bench/pin.ts). */
  pin: boolean;
  cases?: string[];
  hugeCases: string[];
  /** Rows of the race on `vastpg` (ranges reach the scan there), 0 for none. */
  pgRaceRows: number;
}

/** The cases of the race on `vastpg`: what parallel slices do where each reads only its range. */
const PG_RACE_CASES = [
  'ceiling',
  'ceiling@spool',
  'raw',
  'ndjson',
  'ndjson-p2',
  'ndjson-p4',
  'csv',
  'csv-p4',
  'ndjson@spool',
  'ndjson-p4@spool',
];

/** Sizes above this read the 10^7-event topic. */
const HUGE = 1_000_000;
const HUGE_CASES = [
  'ceiling',
  'ceiling@spool',
  'raw',
  'cli@spool',
  'ndjson',
  'ndjson@spool',
  'csv@spool',
  'arrow@spool',
  'ndjson-p4@spool',
];

function parseArgs(argv: string[]): Options {
  const o: Options = {
    sizes: [100_000, 1_000_000],
    reps: 3,
    bigReps: 2,
    hugeReps: 1,
    warmups: 1,
    pagingRows: 1_000_000,
    race: true,
    paging: true,
    profile: false,
    pin: false,
    hugeCases: HUGE_CASES,
    pgRaceRows: 1_000_000,
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const v = () => {
      const x = argv[++i];
      if (x === undefined) throw new Error(`${a} needs a value`);
      return x;
    };
    if (a === '--sizes') o.sizes = v().split(',').map(Number);
    else if (a === '--reps') o.reps = Number(v());
    else if (a === '--big-reps') o.bigReps = Number(v());
    else if (a === '--huge-reps') o.hugeReps = Number(v());
    else if (a === '--warmups') o.warmups = Number(v());
    else if (a === '--paging-rows') o.pagingRows = Number(v());
    else if (a === '--no-race') o.race = false;
    else if (a === '--no-paging') o.paging = false;
    else if (a === '--profile') o.profile = true;
    else if (a === '--pin') o.pin = true;
    else if (a === '--cases') o.cases = v().split(',');
    else if (a === '--huge-cases') o.hugeCases = v().split(',');
    else if (a === '--pg-race-rows') o.pgRaceRows = Number(v());
    else throw new Error(`unknown argument ${a}`);
  }
  const max = EXPECTED_ROWS[TOPIC]! - 1;
  for (const s of [...o.sizes, o.pagingRows])
    if (!Number.isInteger(s) || s < 1 || s > BIG_ROWS - 1) throw new Error(`sizes: 1..${BIG_ROWS - 1}`);
  if (o.pagingRows > max) throw new Error(`--paging-rows: 1..${max} (the bench topic's rows)`);
  if (!(o.reps >= 1 && o.bigReps >= 1 && o.hugeReps >= 1))
    throw new Error('--reps, --big-reps and --huge-reps: at least 1');
  if (!(Number.isInteger(o.warmups) && o.warmups >= 0)) throw new Error('--warmups: 0 or more');
  return o;
}

const log = (msg: string) => process.stderr.write(`[bench] ${new Date().toISOString().slice(11, 19)} ${msg}\n`);

const LAST_RUN = join(ROOT, 'bench', 'last-run.json');

async function main(): Promise<void> {
  const publish = process.argv.indexOf('--publish');
  if (publish >= 0) {
    const { results, paging, facts, pgResults } = JSON.parse(readFileSync(process.argv[publish + 1]!, 'utf8'));
    process.stdout.write(`${await writeDocs(results, paging, facts, true, pgResults)}\n`);
    return;
  }
  const o = parseArgs(process.argv.slice(2));
  const t0 = performance.now();
  const load0 = os.loadavg();
  // 10^7 rows: about 1.3 GB more in the memory connector, and one query sorting the whole window.
  if (o.sizes.some((x) => x > HUGE)) process.env.TOPICGATE_LOCAL_TRINO_HEAP ??= '16G';
  if (o.pin) pinBench();
  const trino = await up();
  log(`Trino ${trino.url} (${trino.started ? 'started by the bench' : 'already running'})`);
  if (o.pin) log(`pinned: ${pinTrino()} Trino processes on CPU 0, the bench and its clients on CPU 1`);
  let pgStarted = false;
  try {
    const data = await ensureBenchData(trino.url, log, [TOPIC]);
    log(data.reused ? `bench data already loaded` : `bench data loaded in ${data.seconds.toFixed(1)}s`);
    const info = await getJson<{ nodeVersion?: { version?: string } }>(`${trino.url}/v1/info`);
    const gatewayEnv = {
      TOPICGATE_TRINO_URL: trino.url,
      TOPICGATE_CATALOG: BENCH_CATALOG,
      TOPICGATE_SCHEMAS: BENCH_SCHEMA,
      TOPICGATE_MAX_LIMIT: '2000000',
      TOPICGATE_STATE_URL: 'sqlite::memory:',
      TOPICGATE_HOST: '127.0.0.1',
      TOPICGATE_PORT: '0',
      TOPICGATE_LOG_LEVEL: 'info',
    };
    const features = await detectFeatures(gatewayEnv, TOPIC);
    log(`gateway features: ${JSON.stringify(features)}`);
    ensureTrinoCli();
    const anchors = { cli: `Trino CLI 476 on Java ${javaVersion()}`, python: `python trino ${ensurePythonTrino()}` };
    const results: CaseResult[] = [];
    if (o.race) {
      for (const size of o.sizes) {
        const huge = size > HUGE;
        if (huge) await ensureBigClicks(trino.url, log);
        const schema = huge ? BIG_SCHEMA : BENCH_SCHEMA;
        const w = await windowOf(trino.url, BENCH_CATALOG, schema, TOPIC, size);
        log(`race: ${w.rows} rows of ${schema}, ${w.since} .. ${w.until}`);
        const setup = {
          trinoUrl: trino.url,
          topic: TOPIC,
          gatewayEnv: { ...gatewayEnv, TOPICGATE_SCHEMAS: schema },
          features,
          user: 'topicgate-bench',
          tableText: `"${schema}"`,
          log,
        };
        const reps = huge ? o.hugeReps : size >= 1_000_000 ? o.bigReps : o.reps;
        const warmups = huge ? 0 : o.warmups;
        results.push(...(await raceSize(setup, w, reps, o.profile, huge ? o.hugeCases : o.cases, warmups)));
      }
    }
    const pgResults: CaseResult[] = [];
    if (o.race && o.pgRaceRows > 0) {
      pgStarted = (await ensurePgCopy(trino.url, TOPIC, log)).pgStarted;
      const w = await windowOf(trino.url, PG_BENCH_CATALOG, PG_BENCH_SCHEMA, TOPIC, o.pgRaceRows);
      log(`race on ${PG_BENCH_CATALOG}: ${w.rows} rows, ${w.since} .. ${w.until}`);
      const setup = {
        trinoUrl: trino.url,
        topic: TOPIC,
        gatewayEnv: { ...gatewayEnv, TOPICGATE_CATALOG: PG_BENCH_CATALOG, TOPICGATE_SCHEMAS: PG_BENCH_SCHEMA },
        features,
        user: 'topicgate-bench',
        tableText: `"${PG_BENCH_SCHEMA}"`,
        log,
      };
      pgResults.push(...(await raceSize(setup, w, o.bigReps, o.profile, PG_RACE_CASES)));
    }
    const paging: PagingRun[] = [];
    if (o.paging) {
      const w = await windowOf(trino.url, BENCH_CATALOG, BENCH_SCHEMA, TOPIC, o.pagingRows);
      log(`paging: ${w.rows} rows on ${BENCH_CATALOG}`);
      paging.push(await pagingRun(trino.url, BENCH_CATALOG, BENCH_SCHEMA, TOPIC, w, features.limitAll, log));
      pgStarted = (await ensurePgCopy(trino.url, TOPIC, log)).pgStarted || pgStarted;
      log(`paging: ${w.rows} rows on ${PG_BENCH_CATALOG}`);
      // As VAST behaves: ranges reach the scan, TopN/LIMIT do not. Through the gateway's per-topic session when it
      // has one; otherwise the gateway's own queries (TopN pushed) replayed with the property.
      const session = { [`${PG_BENCH_CATALOG}.topn_pushdown_enabled`]: 'false' };
      const args = [trino.url, PG_BENCH_CATALOG, PG_BENCH_SCHEMA, TOPIC, w, features.limitAll, log] as const;
      if (features.session) paging.push(await pagingRun(...args, session));
      else {
        const pg = await pagingRun(...args);
        paging.push(pg, await replay(trino.url, pg, session, `"${PG_BENCH_SCHEMA}"`, log));
      }
    }
    const load1 = os.loadavg();
    const seconds = (performance.now() - t0) / 1000;
    const command = `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`;
    const facts = {
      command,
      seconds,
      load0: load0[0]!,
      load1: load1[0]!,
      trinoVersion: info.nodeVersion?.version ?? '?',
      anchors,
      features,
      pin: o.pin,
      o,
    };
    // Kept before the docs are written: `npm run bench -- --publish bench/last-run.json` writes them again.
    writeFileSync(LAST_RUN, JSON.stringify({ results, paging, facts, pgResults }));
    const md = await writeDocs(results, paging, facts, !o.profile, pgResults);
    process.stdout.write(`\n${md}\n`);
    log(
      o.profile
        ? 'CPU profiles in bench/profiles/ (docs not written: profiling slows the gateway)'
        : `wrote ${o.pin ? 'docs/benchmarks-pinned.md' : 'docs/benchmarks.md and docs/bench-*.svg'}`,
    );
  } finally {
    if (o.pin) unpin();
    if (pgStarted) await pgDown(pgLayout());
    if (trino.started) {
      log('stopping the Trino the bench started');
      await down();
    }
  }
}

if (process.argv.includes('--workers')) {
  // The session benchmark on the local Trino cluster (bench/trino-cluster.ts).
  await import('./trino-cluster.js');
} else
  main().catch((err: unknown) => {
    process.stderr.write(`[bench] error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  });
