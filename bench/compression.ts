/**
 * `npm run bench:compression`: what compression on the wire costs and saves, to choose the
 * default levels (src/core/content-codings.ts DEFAULT_LEVELS). A 10^6-row window of the bench's clicks (bench/data.ts)
 * is read from a gateway process (dist/server.js, as `npm start` runs it) in NDJSON, uncompressed and under each
 * coding at a few levels; per case: wire bytes per row, rows/s (query sent to last byte), and the gateway's CPU per
 * row (/proc: user + system of every thread, zlib's thread pool included). The client counts the bytes and checks
 * that the transfer completed, but does not decode (its CPU would compete with the gateway's on this machine).
 *
 *   npm run bench:compression [-- --rows 1000000] [--reps 2] [--formats ndjson,arrow]
 *
 * Uses the Trino at TOPICGATE_TRINO_URL when set (never restarting it), else starts the local one as `trino:up`
 * does. Writes docs/compression.md (with the machine's load average at the start and the end) and prints the table.
 */
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { format, resolveConfig } from 'prettier';
import { up } from '../scripts/local-trino.js';
import { BENCH_CATALOG, BENCH_SCHEMA, ensureBenchData } from './data.js';
import { ROOT, startGateway, type Gateway } from './gateway.js';
import { cpuSeconds } from './proc.js';
import { windowOf, type Window } from './window.js';

interface Case {
  coding: 'none' | 'gzip' | 'br' | 'zstd';
  level: number;
}
const CASES: Case[] = [
  { coding: 'none', level: 0 },
  ...[1, 3, 6, 9].map((level) => ({ coding: 'zstd' as const, level })),
  ...[1, 4, 6].map((level) => ({ coding: 'br' as const, level })),
  ...[1, 6, 9].map((level) => ({ coding: 'gzip' as const, level })),
];

interface Result extends Case {
  format: string;
  rows: number;
  bytes: number;
  seconds: number;
  cpu: number;
}

const log = (msg: string) =>
  process.stderr.write(`[bench:compression] ${new Date().toISOString().slice(11, 19)} ${msg}\n`);

function args(argv: string[]) {
  const o = { rows: 1_000_000, reps: 2, formats: ['ndjson'] };
  for (let i = 0; i < argv.length; i += 2) {
    const [k, v] = [argv[i], argv[i + 1] ?? ''];
    if (k === '--rows') o.rows = Number(v);
    else if (k === '--reps') o.reps = Number(v);
    else if (k === '--formats') o.formats = v.split(',');
    else throw new Error(`unknown argument ${k}`);
  }
  return o;
}

/** Reads one response to the end without decoding it: wire bytes, seconds, whether the transfer completed. */
function readWire(url: string, coding: string): Promise<{ bytes: number; seconds: number }> {
  const t0 = performance.now();
  const headers = coding === 'none' ? {} : { 'accept-encoding': coding };
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers, agent: false }, (res) => {
        let bytes = 0;
        res.on('data', (c: Buffer) => (bytes += c.length));
        res.on('end', () => {
          const encoding = res.headers['content-encoding'] ?? 'none';
          if (res.statusCode !== 200 || !res.complete || encoding !== coding)
            reject(new Error(`${url}: HTTP ${res.statusCode}, ${encoding}, complete ${res.complete}`));
          else resolve({ bytes, seconds: (performance.now() - t0) / 1000 });
        });
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

async function runCase(env: Record<string, string>, w: Window, c: Case, format: string, reps: number) {
  const level: Record<string, string> =
    c.coding === 'none' ? {} : { TOPICGATE_COMPRESSION_LEVEL: `${c.coding}:${c.level}` };
  const gateway: Gateway = await startGateway({ ...env, ...level });
  try {
    const url = `${gateway.url}/v1/topics/clicks/events?since=${w.since}&until=${w.until}&limit=all&format=${format}`;
    let best: Result | undefined;
    for (let i = 0; i < reps; i++) {
      const cpu0 = cpuSeconds(gateway.pid);
      const r = await readWire(url, c.coding);
      const cpu = cpuSeconds(gateway.pid) - cpu0;
      const result = { ...c, format, rows: w.rows, bytes: r.bytes, seconds: r.seconds, cpu };
      if (!best || result.seconds < best.seconds) best = result;
    }
    return best!;
  } finally {
    await gateway.stop();
  }
}

const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

function table(results: Result[]): string {
  const none = new Map(results.filter((r) => r.coding === 'none').map((r) => [r.format, r]));
  const head = '| format | coding | level | wire bytes/row | wire MB | ratio | rows/s | gateway CPU µs/row |';
  const lines = results.map((r) => {
    const base = none.get(r.format);
    const ratio = base ? base.bytes / r.bytes : 1;
    return `| ${r.format} | ${r.coding} | ${r.coding === 'none' ? '–' : r.level} | ${fmt(r.bytes / r.rows, 1)} | ${fmt(r.bytes / 2 ** 20, 1)} | ${fmt(ratio, 1)}x | ${fmt(r.rows / r.seconds)} | ${fmt((r.cpu / r.rows) * 1e6, 2)} |`;
  });
  return [head, '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |', ...lines].join('\n');
}

async function main(): Promise<void> {
  const o = args(process.argv.slice(2));
  const load0 = os.loadavg();
  const trinoUrl = process.env.TOPICGATE_TRINO_URL ?? (await up(undefined, undefined, { anyJvm: true })).url;
  const data = await ensureBenchData(trinoUrl, log, ['clicks']);
  log(data.reused ? 'bench data already loaded' : `bench data loaded in ${data.seconds.toFixed(1)}s`);
  const w = await windowOf(trinoUrl, BENCH_CATALOG, BENCH_SCHEMA, 'clicks', o.rows);
  log(`${w.rows} rows, ${w.since} .. ${w.until}`);
  const env = {
    TOPICGATE_TRINO_URL: trinoUrl,
    TOPICGATE_CATALOG: BENCH_CATALOG,
    TOPICGATE_SCHEMAS: BENCH_SCHEMA,
    TOPICGATE_MAX_LIMIT: '2000000',
    TOPICGATE_STATE_URL: 'sqlite::memory:',
    TOPICGATE_PORT: '0',
    TOPICGATE_LOG_LEVEL: 'info', // the start-up line is what startGateway waits for
  };
  const t0 = performance.now();
  const results: Result[] = [];
  for (const format of o.formats) {
    for (const c of CASES) {
      const r = await runCase(env, w, c, format, o.reps);
      log(`${format} ${c.coding} ${c.level}: ${fmt(r.bytes / r.rows, 1)} B/row, ${fmt(r.rows / r.seconds)} rows/s`);
      results.push(r);
    }
  }
  const load1 = os.loadavg();
  const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
  const text = [
    'Generated by `npm run bench:compression` (bench/compression.ts); do not edit by hand, run it again.',
    '',
    '# Compression on the wire: bytes, speed and CPU per coding and level',
    '',
    `Command: \`npm run bench:compression -- --rows ${o.rows} --reps ${o.reps} --formats ${o.formats.join(',')}\` ` +
      `(${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, ${((performance.now() - t0) / 1000).toFixed(0)} s), gateway at commit ${commit}.`,
    '',
    `Machine: ${os.cpus().length} cores (${os.cpus()[0]?.model ?? '?'}), Node ${process.version}; Trino, the gateway and ` +
      `the client share the cores. Load average (1 min): ${load0[0]!.toFixed(2)} at the start, ${load1[0]!.toFixed(2)} at the end.`,
    '',
    `Data: ${w.rows.toLocaleString('en-US')} rows of \`${BENCH_CATALOG}."${BENCH_SCHEMA}".clicks\` (the demo generator's ` +
      'small JSON clicks), one `limit=all` response each, over loopback. Each case is the best of its runs (by time) on ' +
      'a fresh gateway process. Wire bytes are the body as sent (compressed); ratio is the uncompressed body over it; ' +
      'rows/s from sending the request to the last byte; gateway CPU is user + system time of the gateway process ' +
      'during the read, all threads.',
    '',
    table(results),
    '',
  ].join('\n');
  const doc = join(ROOT, 'docs', 'compression.md');
  writeFileSync(doc, await format(text, { ...(await resolveConfig(doc)), parser: 'markdown' }));
  process.stdout.write(`${table(results)}\n`);
}

void main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
