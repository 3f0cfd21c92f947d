/**
 * `npm run bench:files [-- --topic clicks]`: a settled window of 10^6 bench orders (or clicks) as a file (API.md "Windows as files"). The same
 * window read as the streamed Parquet of `/events?limit=all&format=parquet`, as its file the first time (made:
 * Trino read, encoded, written to the file cache) and then from the cache; wall time, bytes/s and the gateway's
 * CPU seconds of each (curl reads, so the client is not the bottleneck). Then DuckDB (httpfs) over the file's URL:
 * `count(*)` and one-column aggregates, with the bytes each fetched counted at the gateway (its served ranges)
 * against the file's size. The table is printed.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { up } from '../scripts/local-trino.js';
import { BENCH_CATALOG, BENCH_SCHEMA, ensureBenchData } from './data.js';
import { ROOT, startGateway, type Gateway } from './gateway.js';
import { cpuSeconds } from './proc.js';
import { windowOf } from './window.js';

const run = promisify(execFile);
const log = (msg: string) => process.stderr.write(`[bench:files] ${msg}\n`);

interface Row {
  case: string;
  seconds: number;
  bytes: number;
  gatewayCpu: number;
  detail: string;
}

/** GET `url` with curl into /dev/null: bytes and seconds as curl counts them. */
async function curl(url: string): Promise<{ bytes: number; seconds: number; status: number }> {
  const { stdout } = await run('curl', [
    '-s',
    '-o',
    '/dev/null',
    '-w',
    '%{http_code} %{size_download} %{time_total}',
    url,
  ]);
  const [status, bytes, seconds] = stdout.trim().split(' ').map(Number) as [number, number, number];
  return { status, bytes, seconds };
}

/** GET `url` n times on one kept-alive connection (one curl): bytes in all, as curl counts them. */
async function curlMany(url: string, n: number): Promise<number> {
  const args = ['-s', '-w', '%{size_download}\\n'];
  for (let i = 0; i < n; i++) args.push('-o', '/dev/null', url);
  const { stdout } = await run('curl', args, { maxBuffer: 1 << 20 });
  return stdout
    .trim()
    .split('\n')
    .map(Number)
    .reduce((a, b) => a + b, 0);
}

/** The bytes of Parquet files the gateway has sent (its metric). */
async function sentBytes(g: Gateway): Promise<number> {
  const text = await (await fetch(`${g.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith('topicgate_file_bytes_sent_total{suffix="parquet"}'));
  return line ? Number(line.split(' ').pop()) : 0;
}

async function duckdb(dir: string, c: Record<string, string>): Promise<Record<string, number>> {
  const file = join(dir, `case-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(c));
  const { stdout } = await run('python3', ['test/readers/window_files.py', file], {
    cwd: ROOT,
    env: { ...process.env, PYTHONPATH: '.local/duckdb-httpfs' },
  });
  const out = JSON.parse(stdout) as Record<string, number> & { error?: string };
  if (out.error) throw new Error(String(out.error));
  return out;
}

async function timed(g: Gateway, what: () => Promise<{ bytes: number; detail: string }>) {
  const cpu0 = cpuSeconds(g.pid);
  const t0 = performance.now();
  const { bytes, detail } = await what();
  return { seconds: (performance.now() - t0) / 1000, bytes, gatewayCpu: cpuSeconds(g.pid) - cpu0, detail };
}

async function reads(g: Gateway, events: string, file: string, rows: number): Promise<Row[]> {
  const out: Row[] = [];
  const get = (url: string, name: string) => async () => {
    const r = await curl(url);
    if (r.status !== 200) throw new Error(`${name}: HTTP ${r.status}`);
    return { bytes: r.bytes, detail: `${((r.bytes / r.seconds) * 1e-6).toFixed(0)} MB/s (curl)` };
  };
  out.push({ case: 'streamed Parquet (/events limit=all)', ...(await timed(g, get(events, 'streamed'))) });
  out.push({ case: 'file, first read (made)', ...(await timed(g, get(file, 'first'))) });
  for (let i = 1; i <= 5; i++) out.push({ case: `file, cached read ${i}`, ...(await timed(g, get(file, 'cached'))) });
  const many = await timed(g, async () => {
    const t0 = performance.now();
    const bytes = await curlMany(file, 20);
    return { bytes, detail: `${((bytes / ((performance.now() - t0) / 1000)) * 1e-9).toFixed(2)} GB/s, one connection` };
  });
  out.push({ case: 'file, cached, 20 reads (keep-alive)', ...many });
  log(`${rows} rows: ${out.map((r) => `${r.case} ${r.seconds.toFixed(2)}s`).join('; ')}`);
  return out;
}

async function duckdbReads(g: Gateway, dir: string, file: string, size: number): Promise<Row[]> {
  const cases: [string, Record<string, string>][] = [
    ['DuckDB count(*)', { reader: 'duckdb-count', url: file }],
    ['DuckDB count(DISTINCT key)', { reader: 'duckdb-aggregate', url: file, column: 'key' }],
    [
      'DuckDB count(DISTINCT timestamp_producer)',
      { reader: 'duckdb-aggregate', url: file, column: 'timestamp_producer' },
    ],
  ];
  const out: Row[] = [];
  for (const [name, c] of cases) {
    const before = await sentBytes(g);
    const r = await timed(g, async () => {
      const answer = await duckdb(dir, c);
      return { bytes: 0, detail: `answer ${JSON.stringify(answer)}` };
    });
    const bytes = (await sentBytes(g)) - before;
    out.push({ ...r, case: name, bytes, detail: `${((bytes / size) * 100).toFixed(1)}% of the file; ${r.detail}` });
  }
  return out;
}

function table(rows: Row[], size: number, windowRows: number, topic: string): string {
  const lines = [
    `Window: ${windowRows} rows of bench ${topic}; its Parquet file ${(size / 1e6).toFixed(1)} MB; ${os.cpus().length} cores, load ${os.loadavg()[0]!.toFixed(1)}`,
    '',
    '| case | wall s | bytes | gateway CPU s | detail |',
    '| --- | ---: | ---: | ---: | --- |',
    ...rows.map(
      (r) => `| ${r.case} | ${r.seconds.toFixed(2)} | ${r.bytes} | ${r.gatewayCpu.toFixed(2)} | ${r.detail} |`,
    ),
  ];
  return `${lines.join('\n')}\n`;
}

async function main(): Promise<void> {
  const i = process.argv.indexOf('--topic');
  const topic = i > 0 ? String(process.argv[i + 1]) : 'orders';
  const trino = await up();
  await ensureBenchData(trino.url, log, [topic]);
  const w = await windowOf(trino.url, BENCH_CATALOG, BENCH_SCHEMA, topic, 1_000_000);
  log(`${w.rows} rows, ${w.since} .. ${w.until}`);
  const dir = mkdtempSync(join(os.tmpdir(), 'topicgate-bench-files-'));
  let g: Gateway | undefined;
  try {
    g = await startGateway({
      TOPICGATE_TRINO_URL: trino.url,
      TOPICGATE_CATALOG: BENCH_CATALOG,
      TOPICGATE_SCHEMAS: BENCH_SCHEMA,
      TOPICGATE_STATE_URL: `sqlite:${join(dir, 'state.db')}`,
      TOPICGATE_FILE_CACHE_DIR: join(dir, 'files'),
      // Any free port (and none for the other entrances): other gateways may be running on this machine.
      TOPICGATE_PORT: '0',
      TOPICGATE_LOG_LEVEL: 'info',
      TOPICGATE_QUERY_TIMEOUT_MS: '3600000',
    });
    const window = `since=${w.since}&until=${w.until}`;
    const events = `${g.url}/v1/topics/${topic}/events?${window}&limit=all&format=parquet`;
    const file = `${g.url}/v1/topics/${topic}/events.parquet?${window}`;
    const rows = await reads(g, events, file, w.rows);
    const size = rows[1]!.bytes;
    rows.push(...(await duckdbReads(g, dir, file, size)));
    process.stdout.write(table(rows, size, w.rows, topic));
  } finally {
    await g?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
