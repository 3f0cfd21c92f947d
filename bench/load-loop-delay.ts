/**
 * `npx tsx bench/load-loop-delay.ts`: how long the gateway's event loop is held while it reads spooled results.
 * Load shedding (`TOPICGATE_MAX_EVENT_LOOP_DELAY_MS`, @fastify/under-pressure) answers 503 while the loop lags,
 * so a step that holds it sheds load for every other client. Two measurements:
 *
 * 1. real spooled reads: a gateway in this process streams bulk reads of the local Trino's 400,400-row `clicks`
 *    (NDJSON, over the spooling protocol, the segments as the local Trino cuts them) to clients that discard the
 *    bytes, `--reads` one after the other, then `--reads` rounds of `--concurrent` at once, with
 *    perf_hooks.monitorEventLoopDelay sampling every millisecond (max, p99, p50) and the reading load shedding
 *    acts on (the mean of each second), beside an idle process's delay (the machine's share) and GC pauses;
 * 2. one segment of Trino's default maximum size (16 MB of JSON rows made from the same topic's rows), compressed
 *    as zstd and as LZ4, decoded as the Trino port decodes it: the longest synchronous step and the whole segment.
 *
 *   npx tsx bench/load-loop-delay.ts                 # 3 reads
 *   npx tsx bench/load-loop-delay.ts --reads 5 --concurrent 16
 */
import { execFileSync, spawn } from 'node:child_process';
import http from 'node:http';
import { monitorEventLoopDelay, performance, PerformanceObserver } from 'node:perf_hooks';
import { compressSync as lz4Compress } from 'lz4-napi';
import { loadConfig } from '../src/server/load-config.js';
import { buildApp } from '../src/server/app.js';
import { HttpTrino } from '../src/trino/http-trino.js';
import { decodeSegment, decoderReady } from '../src/trino/segment-decoder.js';
import { BATCH_ROWS } from '../src/trino/result-reader.js';
import { batchLength } from '../src/core/text-rows.js';

const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : dflt;
};
const READS = Number(arg('reads', '3'));
const CONCURRENT = Number(arg('concurrent', '8'));
const TRINO = process.env.TOPICGATE_TRINO_URL ?? 'http://127.0.0.1:18080';
const SCHEMA = 'bulk|kafka_topics';
const WINDOW = 'since=2026-11-01T00:00:00Z&until=2026-12-01T00:00:00Z';
const ms = (ns: number) => (ns / 1e6).toFixed(1);

/** Reads a response to its end, discarding it; resolves to the bytes read. */
function read(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get(url, (res) => {
        let bytes = 0;
        res.on('data', (c: Buffer) => (bytes += c.length));
        res.on('end', () => (res.statusCode === 200 ? resolve(bytes) : reject(new Error(`HTTP ${res.statusCode}`))));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

async function spooledReads(): Promise<void> {
  const app = await buildApp(
    loadConfig({
      TOPICGATE_TRINO_URL: TRINO,
      TOPICGATE_STATE_URL: 'sqlite::memory:',
      TOPICGATE_SCHEMAS: SCHEMA,
      TOPICGATE_MAX_EVENT_LOOP_DELAY_MS: '0',
    }),
    { logger: false },
  );
  const base = await app.listen({ host: '127.0.0.1', port: 0 });
  try {
    const url = `${base}/v1/topics/clicks/events?${WINDOW}&limit=all&format=ndjson`;
    await read(url); // warm: routes compiled, the catalog loaded, the zstd module ready
    for (const at of [1, CONCURRENT]) {
      const line = await measure(async () => {
        let bytes = 0;
        for (let i = 0; i < READS; i++) {
          bytes += (await Promise.all(Array.from({ length: at }, () => read(url)))).reduce((a, b) => a + b, 0);
        }
        return bytes;
      });
      process.stdout.write(`spooled reads of clicks (NDJSON), ${READS} x ${at} at once: ${line}\n`);
    }
  } finally {
    await app.close();
  }
}

/** The event-loop delay while `run` reads (it resolves to the bytes read), with what it is measured against. */
async function measure(run: () => Promise<number>): Promise<string> {
  const control = idleControl();
  const gc = gcPauses();
  const pressure = pressureReading();
  const h = monitorEventLoopDelay({ resolution: 1 });
  h.enable();
  const t0 = performance.now();
  const bytes = await run();
  const s = (performance.now() - t0) / 1000;
  h.disable();
  const [idle, pauses, shed] = [await control.stop(), gc.stop(), pressure.stop()];
  return (
    `${(bytes / 1e6).toFixed(0)} MB in ${s.toFixed(1)} s; event-loop delay max ${ms(h.max)} ms, ` +
    `p99 ${ms(h.percentile(99))} ms, p50 ${ms(h.percentile(50))} ms; load shedding's reading at most ${shed} ` +
    `(an idle process meanwhile: max ${idle.max} ms, p99 ${idle.p99} ms; garbage collection: longest pause ` +
    `${pauses.max.toFixed(1)} ms, ${pauses.over10} over 10 ms)`
  );
}

/**
 * What @fastify/under-pressure compares with TOPICGATE_MAX_EVENT_LOOP_DELAY_MS: the mean delay of each second
 * (sampled every 10 ms) less the 10 ms resolution; a second without a sample reads as Infinity, and sheds load
 * whatever the setting. The most it read, and how many seconds read as Infinity.
 */
function pressureReading(): { stop(): string } {
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  let most = 0;
  let infinite = 0;
  const timer = setInterval(() => {
    const reading = h.mean / 1e6 - 10;
    if (Number.isNaN(reading)) infinite++;
    else most = Math.max(most, reading);
    h.reset();
  }, 1000);
  return {
    stop: () => {
      clearInterval(timer);
      h.disable();
      return `${Math.max(0, most).toFixed(0)} ms, Infinity ${infinite} times`;
    },
  };
}

/**
 * An idle Node process measuring its own event-loop delay: on a machine whose cores are shared (Trino, other
 * processes), part of any process's delay is only waiting for a core.
 */
function idleControl(): { stop(): Promise<{ max: string; p99: string }> } {
  const script =
    "const h = require('node:perf_hooks').monitorEventLoopDelay({ resolution: 1 }); h.enable();" +
    "process.stdin.resume(); process.stdin.on('end', () => { h.disable();" +
    'process.stdout.write(JSON.stringify({ max: (h.max / 1e6).toFixed(1), p99: (h.percentile(99) / 1e6).toFixed(1) })); });';
  const child = spawn(process.execPath, ['-e', script], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  return {
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => resolve(JSON.parse(out) as { max: string; p99: string }));
        child.stdin.end();
      }),
  };
}

/** Garbage-collection pauses while it runs: the longest, and how many took more than 10 ms. */
function gcPauses(): { stop(): { max: number; over10: number } } {
  const seen = { max: 0, over10: 0 };
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      seen.max = Math.max(seen.max, e.duration);
      if (e.duration > 10) seen.over10++;
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  return {
    stop: () => {
      observer.disconnect();
      return seen;
    },
  };
}

/** 16 MB of JSON rows (a spooled segment's text) made from the topic's own rows. */
async function segmentText(): Promise<Buffer> {
  const trino = new HttpTrino({ server: TRINO, user: 'bench-loop-delay' });
  const { rows } = await trino.all(`SELECT * FROM vast."${SCHEMA}".clicks LIMIT 20000`);
  const parts: string[] = [];
  let size = 2;
  for (let i = 0; size < 16 * 2 ** 20; i++) {
    const text = JSON.stringify(rows[i % rows.length]);
    parts.push(text);
    size += text.length + 1;
  }
  return Buffer.from(`[${parts.join(',')}]`);
}

/** Decodes one segment as the port does; the longest synchronous step and the total, ms. */
function decodeSteps(encoding: 'json+zstd' | 'json+lz4', frame: Buffer, size: number) {
  const steps: number[] = [];
  let rows = 0;
  const gen = decodeSegment(encoding, frame, { segmentSize: frame.length, uncompressedSize: size }, false, BATCH_ROWS);
  for (;;) {
    const t = performance.now();
    const r = gen.next();
    steps.push(performance.now() - t);
    if (r.done) break;
    rows += batchLength(r.value);
  }
  return { rows, first: steps[0]!, longest: Math.max(...steps), total: steps.reduce((a, b) => a + b, 0) };
}

async function bigSegment(): Promise<void> {
  await decoderReady;
  const text = await segmentText();
  const zstd = execFileSync('zstd', ['-q', '-3', '-c'], { input: text, maxBuffer: 64 * 2 ** 20 });
  // lz4-napi's block carries its size in four bytes first; Trino's raw block does not.
  const lz4 = lz4Compress(text).subarray(4);
  for (const [encoding, frame] of [
    ['json+zstd', zstd],
    ['json+lz4', lz4],
  ] as const) {
    const runs = Array.from({ length: 5 }, () => decodeSteps(encoding, Buffer.from(frame), text.length));
    const best = runs.reduce((a, b) => (b.total < a.total ? b : a));
    process.stdout.write(
      `${encoding} segment, ${(text.length / 2 ** 20).toFixed(0)} MB, ${best.rows} rows: first batch after ` +
        `${best.first.toFixed(1)} ms, longest step ${best.longest.toFixed(1)} ms, all ${best.total.toFixed(1)} ms\n`,
    );
  }
}

await spooledReads();
await bigSegment();
