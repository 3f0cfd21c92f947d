/**
 * `npm run bench:loads`: one window of the bench clicks (10^6 rows; `-- --rows 10000000` for 10^7) landed
 * in the lake by a load run (Trino reads the topic and writes Iceberg; no event passes through the gateway) against
 * the same window read through the gateway with `limit=all&order=none` into a Parquet file. Rows/s, the CPU seconds of the
 * gateway and of Trino during each, and the machine's busy share; the table is printed and written to
 * docs/loads-bench.md.
 */
import { createWriteStream, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { layout as trinoLayout, serverPids, up, down } from '../scripts/local-trino.js';
import { HttpTrino } from '../src/trino/http-trino.js';
import { quoteIdent } from '../src/query/sql/sql-text.js';
import { BENCH_CATALOG, BENCH_SCHEMA, BIG_SCHEMA, ensureBenchData, ensureBigClicks } from './data.js';
import { ROOT, startGateway, type Gateway } from './gateway.js';
import { busyShare, cpuSeconds, machineTicks } from './proc.js';
import { windowOf, type Window } from './window.js';

const log = (msg: string) => process.stderr.write(`[bench:loads] ${msg}\n`);
const LAKE_SCHEMA = 'bench_loads';

interface Measured {
  case: string;
  rows: number;
  seconds: number;
  gatewayCpu: number;
  trinoCpu: number;
  busy: number;
  detail: string;
}

async function measure(
  g: Gateway,
  trinoPid: number | undefined,
  what: () => Promise<{ rows: number; detail: string }>,
) {
  const cpu = () => ({ g: cpuSeconds(g.pid), t: trinoPid === undefined ? 0 : cpuSeconds(trinoPid), m: machineTicks() });
  const a = cpu();
  const t0 = performance.now();
  const { rows, detail } = await what();
  const seconds = (performance.now() - t0) / 1000;
  const b = cpu();
  return { rows, seconds, gatewayCpu: b.g - a.g, trinoCpu: b.t - a.t, busy: busyShare(a.m, b.m), detail };
}

async function loadRun(g: Gateway, w: Window, name: string, target: string) {
  const put = await fetch(`${g.url}/v1/loads/${name}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ topic: 'clicks', target, start: w.since, settle: '1s' }),
  });
  if (put.status !== 201) throw new Error(`PUT load: ${put.status} ${await put.text()}`);
  const res = await fetch(`${g.url}/v1/loads/${name}/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ until: w.until }),
  });
  const body = (await res.json()) as { rows: number; run: { queryIds: string[] } };
  if (res.status !== 200) throw new Error(`POST run: ${res.status} ${JSON.stringify(body)}`);
  return { rows: body.rows, detail: `${body.run.queryIds.length} Trino statements` };
}

async function parquetRead(g: Gateway, w: Window, file: string) {
  // order=none: the load's INSERT is unordered too (and a sort of 10^7 rows would need the Trino memory of a big heap).
  const url = `${g.url}/v1/topics/clicks/events?since=${w.since}&until=${w.until}&limit=all&order=none&format=parquet`;
  const res = await fetch(url);
  if (res.status !== 200 || !res.body) throw new Error(`limit=all: ${res.status} ${await res.text()}`);
  await pipeline(Readable.fromWeb(res.body as never), createWriteStream(file));
  return { rows: w.rows, detail: `${(statSync(file).size / 1e6).toFixed(0)} MB of Parquet` };
}

async function wholeTable(c: HttpTrino, schema: string): Promise<Window> {
  const t = `${quoteIdent(BENCH_CATALOG)}.${quoteIdent(schema)}.clicks`;
  const { rows } = await c.all(
    `SELECT CAST(min(timestamp_broker) AS varchar), CAST(max(timestamp_broker) + INTERVAL '0.001' SECOND AS varchar), count(*) FROM ${t}`,
    { timeoutMs: 600_000 },
  );
  const [lo, hi, count] = rows[0] as [string, string, number];
  const iso = (ts: string) => `${ts.replace(' ', 'T')}Z`;
  return { since: iso(lo), until: iso(hi), rows: Number(count) };
}

function report(results: Measured[], facts: Record<string, unknown>): string {
  const rowsPerS = (r: Measured) => Math.round(r.rows / r.seconds).toLocaleString('en-US');
  const lines = [
    '<!-- Written by npm run bench:loads (bench/loads.ts); the last run on this machine. -->',
    '# A load run by Trino against a read through the gateway',
    '',
    `${facts.command}, ${facts.date}: ${Number(facts.rows).toLocaleString('en-US')} rows of the bench clicks, ` +
      `${facts.cores} cores shared by Trino, its S3 server, PostgreSQL and the gateway; load average ` +
      `${Number(facts.load0).toFixed(1)} at the start, ${Number(facts.load1).toFixed(1)} at the end.`,
    '',
    '| case | rows | seconds | rows/s | gateway CPU s | gateway CPU µs/row | Trino CPU s | machine busy | |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
    ...results.map(
      (r) =>
        `| ${r.case} | ${r.rows.toLocaleString('en-US')} | ${r.seconds.toFixed(1)} | ${rowsPerS(r)} | ` +
        `${r.gatewayCpu.toFixed(2)} | ${((r.gatewayCpu / r.rows) * 1e6).toFixed(3)} | ${r.trinoCpu.toFixed(1)} | ` +
        `${(r.busy * 100).toFixed(0)}% | ${r.detail} |`,
    ),
  ];
  return `${lines.join('\n')}\n`;
}

async function main(): Promise<void> {
  const i = process.argv.indexOf('--rows');
  const n = i > 0 ? Number(process.argv[i + 1]) : 1_000_000;
  const big = n > 1_000_000;
  const load0 = os.loadavg()[0]!;
  const trino = await up();
  log(`Trino ${trino.url} (${trino.started ? 'started by the bench' : 'already running'}); load ${load0.toFixed(1)}`);
  const dir = mkdtempSync(join(os.tmpdir(), 'topicgate-bench-loads-'));
  const c = new HttpTrino({ server: trino.url, user: 'topicgate-bench' });
  let gateway: Gateway | undefined;
  const target = `lake.${LAKE_SCHEMA}.clicks_${Date.now()}`;
  try {
    if (big) await ensureBigClicks(trino.url, log);
    else await ensureBenchData(trino.url, log, ['clicks']);
    const schema = big ? BIG_SCHEMA : BENCH_SCHEMA;
    // 10^7: the whole table (min..max), counted without the sort windowOf makes to find the n-th row.
    const w = big ? await wholeTable(c, schema) : await windowOf(trino.url, BENCH_CATALOG, schema, 'clicks', n);
    log(`${w.rows} rows of ${schema}.clicks, ${w.since} .. ${w.until}`);
    gateway = await startGateway({
      TOPICGATE_TRINO_URL: trino.url,
      TOPICGATE_CATALOG: BENCH_CATALOG,
      TOPICGATE_SCHEMAS: schema,
      TOPICGATE_STATE_URL: `sqlite:${join(dir, 'state.db')}`,
      // info: startGateway waits for the line saying where it listens.
      TOPICGATE_LOG_LEVEL: 'info',
      TOPICGATE_QUERY_TIMEOUT_MS: '3600000',
    });
    const trinoPid = serverPids(trinoLayout())[0];
    const results: Measured[] = [];
    const load = await measure(gateway, trinoPid, () => loadRun(gateway!, w, `bench-${Date.now()}`, target));
    results.push({ case: 'load run (Trino writes Iceberg)', ...load });
    log(`load: ${load.rows} rows in ${load.seconds.toFixed(1)}s`);
    const landed = Number((await c.all(`SELECT count(*) FROM ${target}`)).rows[0]![0]);
    if (landed !== w.rows) throw new Error(`the lake table holds ${landed} rows, the window ${w.rows}`);
    const read = await measure(gateway, trinoPid, () => parquetRead(gateway!, w, join(dir, 'clicks.parquet')));
    results.push({ case: 'limit=all&order=none through the gateway into a Parquet file', ...read });
    log(`parquet: ${read.rows} rows in ${read.seconds.toFixed(1)}s`);
    const facts = {
      command: `npm run bench:loads${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
      date: new Date().toISOString(),
      rows: w.rows,
      cores: os.cpus().length,
      load0,
      load1: os.loadavg()[0]!,
    };
    const text = report(results, facts);
    writeFileSync(join(ROOT, 'docs', 'loads-bench.md'), text);
    process.stdout.write(text);
  } finally {
    await gateway?.stop();
    await c.all(`DROP TABLE IF EXISTS ${target}`).catch(() => {});
    rmSync(dir, { recursive: true, force: true });
    if (trino.started) await down();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`[bench:loads] error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
