/**
 * `npm run bench`: throughput (rows/s) and peak RSS of the gateway's streaming formats against the raw
 * `trino-client` package, on topics of about 1,000,000 events, side by side in one run.
 *
 *   npm run bench [-- --topics clicks,orders] [--sizes 100000,1000000] [--reps 3] [--big-reps 2] [--profile]
 *
 * Cases, per topic and result size (rows per response = `limit`):
 *  (a) raw:    trino-client used directly, in a forked process, running the SQL text the gateway runs (taken
 *              from the gateway's `explain=true`; it asks for limit + 1 rows);
 *  (b) ndjson, (c) arrow, (d) csv: `GET /v1/topics/<t>/events?limit=<n>&format=<f>` against a real gateway
 *              process (`node --import tsx src/server.ts`, one per format), read with node:http, bytes discarded,
 *              rows counted and the completeness mark checked.
 * Every measured process is started fresh for each result size, so its peak RSS (VmHWM) is that of the size
 * alone. Repetitions run round-robin across the cases (spreading other load on the machine evenly); the best
 * time counts. `--profile` starts the gateways with `--cpu-prof` (profiles in bench/profiles/) and leaves
 * docs/benchmarks.md alone.
 */
import { fork } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { format as prettierFormat } from 'prettier';
import { down, up } from '../scripts/local-trino.js';
import { BENCH_CATALOG, BENCH_SCHEMA, ensureBenchData } from './data.js';
import { getJson, readGateway, ROOT, startGateway, type Format, type Gateway } from './gateway.js';
import { cpuSeconds, currentRss, peakRss } from './proc.js';

const FORMATS: Format[] = ['ndjson', 'arrow', 'csv'];
type CaseName = 'raw' | Format;
const CASES: CaseName[] = ['raw', ...FORMATS];
const TARGET_RATIO = 0.8;
/** Peak RSS "does not grow with result size" when the 1M peak is within this factor of the smallest size's. */
const RSS_GROWTH_LIMIT = 1.25;

interface Options {
  topics: string[];
  sizes: number[];
  reps: number;
  bigReps: number;
  profile: boolean;
}

function parseArgs(argv: string[]): Options {
  const o: Options = { topics: ['clicks', 'orders'], sizes: [100_000, 1_000_000], reps: 3, bigReps: 2, profile: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const v = () => {
      const x = argv[++i];
      if (x === undefined) throw new Error(`${a} needs a value`);
      return x;
    };
    if (a === '--topics') o.topics = v().split(',').filter(Boolean);
    else if (a === '--sizes') o.sizes = v().split(',').map(Number);
    else if (a === '--reps') o.reps = Number(v());
    else if (a === '--big-reps') o.bigReps = Number(v());
    else if (a === '--profile') o.profile = true;
    else throw new Error(`unknown argument ${a}`);
  }
  for (const t of o.topics)
    if (t !== 'clicks' && t !== 'orders') throw new Error(`--topics: clicks or orders, not ${t}`);
  for (const s of o.sizes) if (!Number.isInteger(s) || s < 1 || s > 1_000_000) throw new Error(`--sizes: 1..1000000`);
  if (!(o.reps >= 1 && o.bigReps >= 1)) throw new Error('--reps and --big-reps must be at least 1');
  return o;
}

const log = (msg: string) => process.stderr.write(`[bench] ${msg}\n`);

interface Run {
  rows: number;
  seconds: number;
  cpu: number;
  bytes?: number;
}

interface CaseResult {
  topic: string;
  size: number;
  name: CaseName;
  runs: Run[];
  best: Run;
  peakRssBytes: number;
  idleRssBytes: number;
  /** Largest sampled RSS in the first and in the second half of each run (max over the runs). */
  halves: [number, number];
}

/**
 * Samples a process's RSS every 50 ms while a run lasts; `stop` returns the largest sample of the first and of the
 * second half of the time rows were flowing (from the first row on; an ordered read waits for Trino's sort before
 * that): a process that buffers the result grows through the run, one that streams stays flat.
 */
function sampleRss(pid: number) {
  const samples: [number, number][] = [];
  const t0 = performance.now();
  const take = () => {
    try {
      samples.push([performance.now() - t0, currentRss(pid)]);
    } catch {
      // the process is gone; the run reports it
    }
  };
  take();
  const timer = setInterval(take, 50);
  return {
    stop(firstSeconds: number): [number, number] {
      clearInterval(timer);
      take();
      const first = Math.max(0, firstSeconds * 1000);
      const mid = first + (performance.now() - t0 - first) / 2;
      const max = (xs: [number, number][]) => xs.reduce((m, [, v]) => Math.max(m, v), 0);
      return [max(samples.filter(([t]) => t >= first && t <= mid)), max(samples.filter(([t]) => t > mid))];
    },
  };
}

/** The raw trino-client in its own process: one IPC message per query. */
function forkRaw(trinoUrl: string) {
  const child = fork(join(ROOT, 'bench', 'raw-client.ts'), [trinoUrl], {
    cwd: ROOT,
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ready = new Promise<void>((resolve, reject) => {
    child.once('spawn', () => resolve());
    child.once('error', reject);
  });
  return {
    get pid() {
      return child.pid!;
    },
    ready,
    run(sql: string): Promise<{ rows: number; seconds: number; firstSeconds: number }> {
      return new Promise((resolve, reject) => {
        const onExit = (code: number | null) => reject(new Error(`raw client exited (${code})`));
        child.once('exit', onExit);
        child.once('message', (m: { rows: number; seconds: number; firstSeconds: number } | { error: string }) => {
          child.off('exit', onExit);
          if ('error' in m) reject(new Error(`raw client: ${m.error}`));
          else resolve(m);
        });
        child.send({ sql, user: 'topicgate-bench' });
      });
    },
    async stop() {
      if (child.connected) child.disconnect();
      await exited;
    },
  };
}

/** Waits until the process has settled after start-up (module loading), so idle RSS means something. */
async function settle(): Promise<void> {
  await new Promise((r) => setTimeout(r, 500));
}

async function measureSize(
  trinoUrl: string,
  topic: string,
  size: number,
  reps: number,
  o: Options,
): Promise<CaseResult[]> {
  const gatewayEnv = {
    TOPICGATE_TRINO_URL: trinoUrl,
    TOPICGATE_CATALOG: BENCH_CATALOG,
    TOPICGATE_SCHEMAS: BENCH_SCHEMA,
    TOPICGATE_MAX_LIMIT: '2000000',
    TOPICGATE_STATE_URL: 'sqlite::memory:',
    TOPICGATE_HOST: '127.0.0.1',
    TOPICGATE_PORT: '0',
    TOPICGATE_LOG_LEVEL: 'info',
  };
  const profileDir = (f: Format) => join(ROOT, 'bench', 'profiles', `${topic}-${size}-${f}`);
  const gateways = new Map<Format, Gateway>();
  const raw = forkRaw(trinoUrl);
  try {
    const started = await Promise.allSettled(
      FORMATS.map(async (f) => {
        const execArgv = o.profile ? ['--cpu-prof', `--cpu-prof-dir=${profileDir(f)}`] : [];
        if (o.profile) {
          rmSync(profileDir(f), { recursive: true, force: true });
          mkdirSync(profileDir(f), { recursive: true });
          writeFileSync(join(ROOT, 'bench', 'profiles', '.gitignore'), '*\n');
        }
        gateways.set(f, await startGateway(gatewayEnv, execArgv));
      }),
    );
    const failed = started.find((s) => s.status === 'rejected');
    if (failed) throw (failed as PromiseRejectedResult).reason;
    await raw.ready;
    await settle();
    const pids: Record<CaseName, number> = {
      raw: raw.pid,
      ndjson: gateways.get('ndjson')!.pid,
      arrow: gateways.get('arrow')!.pid,
      csv: gateways.get('csv')!.pid,
    };
    const idle = Object.fromEntries(CASES.map((c) => [c, currentRss(pids[c])])) as Record<CaseName, number>;
    const path = (f: string) => `/v1/topics/${encodeURIComponent(topic)}/events?limit=${size}&format=${f}`;
    const { sql } = await getJson<{ sql: string }>(`${gateways.get('ndjson')!.url}${path('ndjson')}&explain=true`);
    if (!sql.endsWith(`LIMIT ${size + 1}`)) throw new Error(`unexpected gateway SQL: ${sql}`);
    const runs: Record<CaseName, Run[]> = { raw: [], ndjson: [], arrow: [], csv: [] };
    const halves = Object.fromEntries(CASES.map((c) => [c, [0, 0]])) as Record<CaseName, [number, number]>;
    for (let rep = 0; rep < reps; rep++) {
      // Round-robin, starting one case later each repetition.
      const order = CASES.map((_, i) => CASES[(i + rep) % CASES.length]!);
      for (const c of order) {
        const cpu0 = cpuSeconds(pids[c]);
        const sampler = sampleRss(pids[c]);
        const r = c === 'raw' ? await raw.run(sql) : await readGateway(`${gateways.get(c)!.url}${path(c)}`, c, size);
        const run: Run = { ...r, cpu: cpuSeconds(pids[c]) - cpu0 };
        const [first, second] = sampler.stop(r.firstSeconds);
        halves[c] = [Math.max(halves[c][0], first), Math.max(halves[c][1], second)];
        if (c === 'raw' && r.rows !== size + 1) throw new Error(`raw client read ${r.rows} rows, expected ${size + 1}`);
        runs[c].push(run);
        log(
          `${topic} ${size} ${c.padEnd(6)} rep ${rep + 1}/${reps}: ${r.seconds.toFixed(2)}s ` +
            `${Math.round(r.rows / r.seconds)} rows/s, cpu ${run.cpu.toFixed(2)}s, peak ${mb(peakRss(pids[c]))} MB`,
        );
      }
    }
    return CASES.map((c) => ({
      topic,
      size,
      name: c,
      runs: runs[c],
      best: runs[c].reduce((a, b) => (b.seconds < a.seconds ? b : a)),
      peakRssBytes: peakRss(pids[c]),
      idleRssBytes: idle[c],
      halves: halves[c],
    }));
  } finally {
    await raw.stop();
    for (const g of gateways.values()) await g.stop();
  }
}

const mb = (bytes: number) => (bytes / 1_048_576).toFixed(0);
const rate = (r: Run) => r.rows / r.seconds;
const fmtInt = (n: number) => Math.round(n).toLocaleString('en-US');

function table(results: CaseResult[]): string {
  const lines = [
    '| topic | case | rows | seconds | rows/s | ratio to raw | peak RSS MB | idle RSS MB | CPU µs/row | body MB |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const r of results) {
    const raw = results.find((x) => x.topic === r.topic && x.size === r.size && x.name === 'raw')!;
    const ratio = rate(r.best) / rate(raw.best);
    const label = r.name === 'raw' ? 'raw trino-client' : `gateway ${r.name}`;
    lines.push(
      `| ${r.topic} | ${label} | ${fmtInt(r.best.rows)} | ${r.best.seconds.toFixed(2)} | ${fmtInt(rate(r.best))} | ` +
        `${r.name === 'raw' ? '1.00' : ratio.toFixed(2)} | ${mb(r.peakRssBytes)} | ${mb(r.idleRssBytes)} | ` +
        `${((r.best.cpu / r.best.rows) * 1e6).toFixed(1)} | ${r.best.bytes !== undefined ? (r.best.bytes / 1_048_576).toFixed(0) : '–'} |`,
    );
  }
  return lines.join('\n');
}

function verdicts(results: CaseResult[], sizes: number[]): string[] {
  const out: string[] = [];
  const big = Math.max(...sizes);
  const small = Math.min(...sizes);
  for (const topic of new Set(results.map((r) => r.topic))) {
    const at = (size: number, name: CaseName) =>
      results.find((r) => r.topic === topic && r.size === size && r.name === name)!;
    for (const f of FORMATS) {
      const ratio = rate(at(big, f).best) / rate(at(big, 'raw').best);
      const ok = ratio >= TARGET_RATIO;
      let rss = '';
      if (big !== small) {
        const growth = at(big, f).peakRssBytes / at(small, f).peakRssBytes;
        rss =
          `; peak RSS ${mb(at(small, f).peakRssBytes)} MB at ${fmtInt(small)} rows -> ${mb(at(big, f).peakRssBytes)} MB ` +
          `at ${fmtInt(big)} rows (x${growth.toFixed(2)}: ${growth <= RSS_GROWTH_LIMIT ? 'does not grow' : 'GROWS'}; ` +
          `while a ${fmtInt(big)}-row response streams: max RSS ${mb(at(big, f).halves[0])} MB in its first half, ` +
          `${mb(at(big, f).halves[1])} MB in its second)`;
      }
      out.push(
        `- ${topic} ${f}: ${ratio.toFixed(2)}x raw at ${fmtInt(big)} rows (${ok ? 'meets' : 'MISSES'} the ${TARGET_RATIO}x target)${rss}`,
      );
    }
  }
  return out;
}

function machine(trinoVersion: string) {
  const cpu = os.cpus()[0]?.model ?? 'unknown';
  return [
    `- nproc: ${os.availableParallelism()} (${cpu})`,
    `- memory: ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB`,
    `- Node ${process.version}, ${os.type()} ${os.release()}`,
    `- Trino ${trinoVersion} (local single node, heap ${process.env.TOPICGATE_LOCAL_TRINO_HEAP ?? '6G'}, memory connector)`,
  ];
}

async function main(): Promise<void> {
  const o = parseArgs(process.argv.slice(2));
  const t0 = performance.now();
  const load0 = os.loadavg();
  const trino = await up();
  log(`Trino ${trino.url} (${trino.started ? 'started by the bench' : 'already running'})`);
  try {
    const data = await ensureBenchData(trino.url, log);
    log(
      data.reused
        ? `bench data already loaded: ${JSON.stringify(data.rows)}`
        : `bench data loaded in ${data.seconds.toFixed(1)}s`,
    );
    const info = await getJson<{ nodeVersion?: { version?: string } }>(`${trino.url}/v1/info`);
    const results: CaseResult[] = [];
    for (const topic of o.topics) {
      for (const size of o.sizes) {
        const reps = size >= 1_000_000 ? o.bigReps : o.reps;
        results.push(...(await measureSize(trino.url, topic, size, reps, o)));
      }
    }
    const load1 = os.loadavg();
    const seconds = (performance.now() - t0) / 1000;
    const md = table(results);
    const verdict = verdicts(results, o.sizes);
    const command = `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`;
    process.stdout.write(`\n${md}\n\n${verdict.join('\n')}\n\n`);
    process.stdout.write(
      `best of ${o.reps} runs per case (${o.bigReps} for 1,000,000-row results); ${seconds.toFixed(0)}s in all; load average ${load0[0]!.toFixed(1)} -> ${load1[0]!.toFixed(1)}\n`,
    );
    if (o.profile) {
      log(`CPU profiles in bench/profiles/ (docs/benchmarks.md not written: profiling slows the gateway)`);
      return;
    }
    const doc = [
      'Generated by `npm run bench` (bench/run.ts); do not edit by hand, run it again.',
      '',
      '# Benchmarks: streaming formats vs the raw Trino client',
      '',
      `Command: \`${command}\` (${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, ${seconds.toFixed(0)}s in all).`,
      '',
      'Machine:',
      '',
      ...machine(info.nodeVersion?.version ?? 'unknown'),
      `- load average (1 min) ${load0[0]!.toFixed(1)} at the start, ${load1[0]!.toFixed(1)} at the end: other work shares the cores, so the numbers are noisy`,
      '',
      `Data: \`${BENCH_CATALOG}."${BENCH_SCHEMA}"\` (bench/data.ts). \`clicks\`: 1,001,000 events of the demo generator (small JSON values, ` +
        'no headers). `orders`: the demo generator at 100,000 events copied 10 times, shifted in time: 1,002,000 events of ' +
        'bigger JSON values with headers and all hard cases. Each request reads the first `limit` events in broker-time order ' +
        '(`GET /v1/topics/<topic>/events?limit=<rows>&format=<f>`: one page, `TOPICGATE_MAX_LIMIT=2000000`).',
      '',
      `Each case is the best of ${o.reps} runs (${o.bigReps} for 1,000,000-row results), run round-robin across the cases. ` +
        "Seconds run from sending the query to the last byte (Trino included). Ratio to raw is rows/s over the raw client's " +
        "rows/s at the same size. Peak RSS is the VmHWM of the measured process (the raw client's own forked process, or " +
        'the gateway process serving that format), started fresh for each size; idle RSS is its RSS before the first ' +
        'request. CPU µs/row is the CPU time that process used in the best run, per row: Trino, the gateway and the ' +
        'client share the same cores here, so a gateway that needs more CPU also slows Trino down, and this column is ' +
        'steadier than the wall-clock ones when other work runs on the machine. The raw client reads limit + 1 rows (the SQL ' +
        'the gateway runs), the gateway sends limit.',
      '',
      md,
      '',
      `Target: each gateway format at least ${TARGET_RATIO}x the raw client's rows/s, and peak RSS that does not grow ` +
        `with result size (here: at most x${RSS_GROWTH_LIMIT} from ${fmtInt(Math.min(...o.sizes))} to ${fmtInt(Math.max(...o.sizes))} rows).`,
      '',
      ...verdict,
      '',
    ].join('\n');
    writeFileSync(
      join(ROOT, 'docs', 'benchmarks.md'),
      await prettierFormat(doc, { parser: 'markdown', ...prettierOptions() }),
    );
    log('wrote docs/benchmarks.md');
  } finally {
    if (trino.started) {
      log('stopping the Trino the bench started');
      await down();
    }
  }
}

function prettierOptions(): Record<string, unknown> {
  try {
    return JSON.parse(readFileSync(join(ROOT, '.prettierrc.json'), 'utf8')) as Record<string, unknown>;
  } catch {
    return {};
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`[bench] error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
