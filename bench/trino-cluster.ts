/**
 * `npm run bench -- --workers N [--rows R] [--streams S]`: a read session on the local Trino cluster
 * (scripts/local-trino-cluster.ts: a coordinator that schedules no work and N workers). R clicks (bench/data.ts's
 * layout, loaded into the cluster's memory catalog when missing) read as one session of S streams, every stream at
 * once, through the gateway as `npm start` runs it (dist/, a process of its own), each stream checked complete.
 * Measured from /proc/<pid>/stat around the read: the CPU seconds of the coordinator, of each worker and of the
 * gateway, per row; rows/s end to end. The cluster runs as started (the test suite's runs C1 alone).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { clusterLayout, clusterUp, nodePid, workerCount } from '../scripts/local-trino-cluster.js';
import { demoStatements } from '../scripts/demo-data.js';
import { PROJECT_ROOT, startFlags } from '../scripts/start-command.js';
import { HttpTrino } from '../src/trino/http-trino.js';
import { cpuSeconds } from './proc.js';

const SCHEMA = 'bench|kafka_topics';
const log = (msg: string) => process.stderr.write(`[bench:cluster] ${msg}\n`);

function arg(name: string, fallback: string): string {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1]! : fallback;
}

/** The gateway as `npm start` runs it; resolves with its URL once it listens. */
function startGateway(trinoUrl: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [...startFlags(), 'dist/server.js'], {
    cwd: PROJECT_ROOT,
    env: {
      ...process.env,
      TOPICGATE_TRINO_URL: trinoUrl,
      TOPICGATE_SCHEMAS: SCHEMA,
      TOPICGATE_STATE_URL: 'sqlite::memory:',
      TOPICGATE_PORT: '0',
      TOPICGATE_LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the gateway exited (${code})`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const url = /"url":"([^"]+)"/.exec(line)?.[1];
      if (url && line.includes('topicgate listening')) resolve({ child, url });
    });
  });
}

/** Reads one stream to its end; its NDJSON rows (the body must end with the empty line of a complete one). */
async function readStream(url: string): Promise<number> {
  const res = await fetch(url, { headers: { 'accept-encoding': 'identity' } });
  if (res.status !== 200) throw new Error(`stream ${url}: ${res.status} ${await res.text()}`);
  let rows = 0;
  let last = '';
  const decoder = new TextDecoder();
  for await (const chunk of res.body!) {
    const text = decoder.decode(chunk as Uint8Array, { stream: true });
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) rows++;
    last = (last + text).slice(-2);
  }
  if (last !== '\n\n') throw new Error(`stream ${url} ended incomplete`);
  return rows - 1;
}

async function main(): Promise<void> {
  const c = clusterLayout(workerCount(process.env, arg('--workers', '2')));
  const rows = Number(arg('--rows', '1000000'));
  const streams = Number(arg('--streams', '4'));
  const t0 = Date.now();
  const { started } = await clusterUp(c);
  log(`cluster ${c.url} ${started ? `started in ${((Date.now() - t0) / 1000).toFixed(1)} s` : 'already running'}`);
  const trino = new HttpTrino({ server: c.url, user: 'bench' });
  const have = await trino.all(`SELECT count(*) FROM vast."${SCHEMA}".clicks`).then(
    (r) => Number(r.rows[0]![0]),
    () => 0,
  );
  if (have < rows) {
    const t1 = Date.now();
    for (const s of demoStatements({ orders: 1, clicks: rows, s3_events: 1 }, 'vast', SCHEMA)) {
      await trino.all(s, { timeoutMs: 1_800_000 });
    }
    log(`${rows} clicks loaded in ${((Date.now() - t1) / 1000).toFixed(1)} s`);
  }
  const gateway = await startGateway(c.url);
  try {
    const nodes = [c.coordinator, ...c.workers].map((n) => ({ name: n.name, pid: nodePid(n)! }));
    const pids = [...nodes, { name: 'gateway', pid: gateway.child.pid! }];
    const body = { since: '2026-11-01T00:00:00Z', until: '2026-12-01T00:00:00Z', streams };
    const before = pids.map((p) => cpuSeconds(p.pid));
    const start = performance.now();
    const made = await fetch(`${gateway.url}/v1/topics/clicks/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (made.status !== 201) throw new Error(`session: ${made.status} ${await made.text()}`);
    const session = (await made.json()) as { streams: { url: string }[] };
    const counts = await Promise.all(session.streams.map((s) => readStream(`${gateway.url}${s.url}&format=ndjson`)));
    const seconds = (performance.now() - start) / 1000;
    const read = counts.reduce((a, b) => a + b, 0);
    const cpu = pids.map((p, i) => ({ name: p.name, seconds: cpuSeconds(p.pid) - before[i]! }));
    log(
      `${read} rows in ${session.streams.length} streams, ${seconds.toFixed(1)} s: ${Math.round(read / seconds)} rows/s`,
    );
    for (const p of cpu) {
      log(`${p.name.padEnd(12)} ${p.seconds.toFixed(1)} CPU s, ${((p.seconds / read) * 1e6).toFixed(2)} us/row`);
    }
    process.stdout.write(`${JSON.stringify({ rows: read, streams, seconds, cpu })}\n`);
  } finally {
    gateway.child.kill('SIGTERM');
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`[bench:cluster] error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
