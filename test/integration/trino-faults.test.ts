/**
 * Faults survived, against real servers this file starts and stops: a production-like Trino of its
 * own (scripts/secure-trino.ts, on its own port; the shared local Trino is never touched) and a PostgreSQL of its
 * own (scripts/local-postgres.ts on another port and data dir) as the cursor store.
 * - Trino killed (SIGKILL) while 16 clients stream: every in-flight response ends visibly incomplete in its format;
 *   new requests get 503 with Retry-After; /readyz turns 503; after a restart everything recovers without
 *   restarting the gateway. Times to recovery are printed.
 * - The cursor store partitioned (its processes stopped with SIGSTOP: connections hang) and then down: cursor
 *   routes answer 503 TG_STATE_UNAVAILABLE with Retry-After in bounded time, data routes keep working, /readyz
 *   names the store, and all recovers by itself.
 */
import http from 'node:http';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/server/load-config.js';
import { startServer } from '../../src/server.js';
import { pgDown, pgLayout, pgUp } from '../../scripts/local-postgres.js';
import {
  loadSecureTopics,
  secureDown,
  secureGatewayEnv,
  secureLayout,
  securePid,
  secureUp,
} from '../../scripts/secure-trino.js';

// C1 only (scripts/secure-trino.ts, `jit`): the streams read unordered and the reads after the restart sort 10,000
// rows at most, while the start, the restart and the loads are what the JIT's CPU goes to on two cores.
const l = secureLayout({
  ...process.env,
  TOPICGATE_SECURE_TRINO_PORT: '18453',
  TOPICGATE_SECURE_TRINO_JIT: 'quick',
  TOPICGATE_SECURE_TRINO_GC: 'parallel',
});
const pgl = pgLayout({ ...process.env, TOPICGATE_LOCAL_PG_PORT: '15442' });
const STATE_TIMEOUT_MS = 2000;
/** Streams at once: one caller's (anonymous), within its default `limits.concurrentQueries` (16). */
const CLIENTS = 16;
// Each of the 16 streams reads the whole clicks (100,000 rows, some 10-20 MB in each format): more than the
// sockets and the gateway hold for a client that stopped reading, so every stream is in flight when Trino dies.
const SIZES = { orders: 500, clicks: 100_000 };
/** After the restart the clients read 2,000 rows each: a smaller clicks table is quicker to load and to scan. */
const SIZES_AFTER_RESTART = { orders: 500, clicks: 10_000 };
const SINCE = 'since=2026-11-01T00:00:00Z';
const UNTIL = 'until=2026-11-02T00:00:00Z'; // after every event: 100,000 events 10 ms apart span 1,000 s
const FORMATS = ['json', 'ndjson', 'csv', 'arrow'] as const;
const ARROW_EOS = Buffer.from([0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0]);

const report = (line: string) => process.stderr.write(`[faults] ${line}\n`);

let trinoStarted = false;
let pgStarted = false;
let app: FastifyInstance | undefined;
let base = '';

beforeAll(async () => {
  const t0 = Date.now();
  // The cursor store starts while Trino does; whichever started is stopped by the teardown if the other failed.
  const [trino, pg] = await Promise.allSettled([secureUp(l), pgUp(pgl)]);
  trinoStarted = trino.status === 'fulfilled' && trino.value.started;
  pgStarted = pg.status === 'fulfilled' && pg.value.started;
  if (trino.status === 'rejected') throw trino.reason;
  if (pg.status === 'rejected') throw pg.reason;
  const upAt = Date.now();
  await loadSecureTopics(l, SIZES);
  report(
    `Trino ready in ${((upAt - t0) / 1000).toFixed(1)} s, topics loaded in ${((Date.now() - upAt) / 1000).toFixed(1)} s`,
  );
  const started = await startServer(
    loadConfig({
      ...secureGatewayEnv(l),
      // The gateway runs in the test's process, whose event loop the test itself holds at times.
      TOPICGATE_MAX_EVENT_LOOP_DELAY_MS: '0',
      TOPICGATE_STATE_URL: pgl.url,
      TOPICGATE_STATE_TIMEOUT_MS: String(STATE_TIMEOUT_MS),
      TOPICGATE_MAX_LIMIT: '200000',
      // The streams are held open while all 16 start, which can take minutes on a loaded machine: the query time
      // limit (its own tests are in timeout.test.ts) must not be what ends them before Trino is killed.
      TOPICGATE_QUERY_TIMEOUT_MS: '900000',
      TOPICGATE_PORT: '0',
      TOPICGATE_LOG_LEVEL: 'silent',
    }),
  );
  app = started.app;
  base = started.url;
}, 400_000);

afterAll(async () => {
  await app?.close();
  if (trinoStarted) await secureDown(l);
  if (pgStarted) await pgDown(pgl);
}, 120_000);

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** The connection was cut before the body ended (the chunked encoding was not terminated). */
  aborted: boolean;
}

/** A request whose body can be held after its first bytes, as a slow client does. */
function open(path: string, o: { holdAfterBytes?: number; method?: string; body?: unknown } = {}) {
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  let firstBytes: () => void = () => {};
  const started = new Promise<void>((resolve) => (firstBytes = resolve));
  const done = new Promise<Reply>((resolve, reject) => {
    const req = http.request(
      `${base}${path}`,
      {
        agent: false,
        method: o.method ?? 'GET',
        headers: o.body ? { 'content-type': 'application/json' } : {},
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        let holding = false;
        res.on('data', (c: Buffer) => {
          chunks.push(c);
          size += c.length;
          if (!holding && o.holdAfterBytes !== undefined && size >= o.holdAfterBytes) {
            holding = true;
            res.pause();
            firstBytes();
            void held.then(() => res.resume());
          }
        });
        const finish = (aborted: boolean) =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), aborted });
        res.on('end', () => finish(!res.complete));
        res.on('aborted', () => finish(true));
        res.on('error', () => finish(true));
        res.on('close', () => finish(!res.complete));
        if (o.holdAfterBytes === undefined) firstBytes();
      },
    );
    req.on('error', reject);
    req.end(o.body ? JSON.stringify(o.body) : undefined);
  });
  return { started, done, release: () => release() };
}

const get = (path: string) => open(path).done;
const json = (r: Reply) => JSON.parse(r.body.toString()) as { error?: { code: string; details?: unknown } };

/** Whether a body that ended says it is complete, by its format's rule (docs/reading.md, "Complete or visibly not"). */
function complete(format: (typeof FORMATS)[number], r: Reply): boolean {
  if (r.aborted) return false;
  const text = r.body.toString();
  switch (format) {
    case 'json':
      try {
        return (JSON.parse(text) as { complete?: boolean }).complete === true;
      } catch {
        return false;
      }
    case 'ndjson':
      return text.endsWith('\n\n');
    case 'csv':
      return !text.includes('\n#error ');
    case 'arrow':
      return r.body.subarray(-8).equals(ARROW_EOS);
  }
}

/** How a cut body says so inside (besides its aborted transfer): the error trailer its format defines. */
function cutMark(format: (typeof FORMATS)[number], r: Reply): string {
  const text = r.body.toString();
  const last = text.trimEnd().split(/\r?\n/).pop() ?? '';
  switch (format) {
    case 'json':
      return (JSON.parse(text) as { error: { code: string } }).error.code;
    case 'ndjson':
      return (JSON.parse(last) as { error: { code: string } }).error.code;
    case 'csv':
      return (JSON.parse(last.replace(/^#error /, '')) as { code: string }).code;
    case 'arrow':
      return r.body.subarray(-8).equals(ARROW_EOS) ? 'complete' : 'no end-of-stream marker';
  }
}

async function until<T>(what: string, f: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await f().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('Trino killed while 16 clients stream', () => {
  it('in-flight responses end visibly incomplete, new ones get 503, and all recovers after a restart', async () => {
    const clients = Array.from({ length: CLIENTS }, (_, i) => {
      const format = FORMATS[i % FORMATS.length]!;
      return {
        format,
        // The whole window, in no order: Trino streams it without sorting 100,000 rows for each of the 16 first.
        ...open(`/v1/topics/clicks/events?${SINCE}&${UNTIL}&limit=all&order=none&format=${format}`, {
          holdAfterBytes: 1,
        }),
      };
    });
    // Every client has its headers and first bytes: their queries run in Trino, and they stop reading.
    const openedAt = Date.now();
    await Promise.all(clients.map((c) => c.started));
    report(
      `all ${CLIENTS} streams had their first bytes ${((Date.now() - openedAt) / 1000).toFixed(1)} s after they were sent`,
    );
    const pid = securePid(l);
    expect(pid).toBeDefined();
    process.kill(pid!, 'SIGKILL');
    const killedAt = Date.now();
    const dying = until('the killed Trino gone', async () => (exited(pid!) ? true : undefined), 30_000);
    for (const c of clients) c.release();
    const replies = await Promise.all(clients.map((c) => c.done));
    const cutS = (Date.now() - killedAt) / 1000;
    for (const [i, r] of replies.entries()) {
      const { format } = clients[i]!;
      expect(r.status, `${format}: ${r.body.toString().slice(0, 400)}`).toBe(200);
      expect(complete(format, r), `${format} response ${i} must be visibly incomplete`).toBe(false);
      // Every cut is an aborted transfer; inside, text formats end with their error trailer and Arrow lacks its
      // end-of-stream marker.
      expect(r.aborted, `${format} response ${i}: transfer aborted`).toBe(true);
      if (format === 'arrow') expect(cutMark(format, r)).toBe('no end-of-stream marker');
      else expect(cutMark(format, r)).toBe('TG_TRINO_UNAVAILABLE');
    }
    const marks = replies.map((r, i) => `${clients[i]!.format}:${cutMark(clients[i]!.format, r)}`);
    report(
      `Trino killed: all ${CLIENTS} streams ended incomplete within ${cutS.toFixed(1)} s (${[...new Set(marks)].join(', ')})`,
    );

    // New requests: 503 with Retry-After; readiness says Trino is unreachable.
    const fresh = await get(`/v1/topics/orders/events?${SINCE}&limit=1`);
    expect([fresh.status, json(fresh).error?.code, fresh.headers['retry-after']]).toEqual([
      503,
      'TG_TRINO_UNAVAILABLE',
      '5',
    ]);
    const notReady = await until(
      'readyz 503',
      async () => ((await get('/readyz')).status === 503 ? Date.now() : undefined),
      10_000,
    );
    report(`/readyz 503 ${((notReady - killedAt) / 1000).toFixed(1)} s after the kill`);

    // Restart Trino (same certificates and passwords), reload its memory topics; the gateway is not restarted.
    await dying; // its launcher refuses to start while the old process is still there
    const restartAt = Date.now();
    await secureUp(l, { keepConfig: true });
    const trinoReadyAt = Date.now();
    const readyAgain = await until(
      'readyz 200',
      async () => ((await get('/readyz')).status === 200 ? Date.now() : undefined),
      30_000,
    );
    await loadSecureTopics(l, SIZES_AFTER_RESTART);
    const loadedAt = Date.now();
    // All 16 clients again, each retrying after a 503 as Retry-After asks (shortened here), until complete.
    const seen = new Map<string, number>();
    const recovered = await Promise.all(
      clients.map(async ({ format }) =>
        until(
          `${format} read after the restart`,
          async () => {
            const r = await get(`/v1/topics/clicks/events?${SINCE}&limit=2000&format=${format}`);
            const ok = r.status === 200 && complete(format, r);
            const key = ok ? 'complete' : `${r.status} ${r.status === 200 ? 'incomplete' : json(r).error?.code}`;
            seen.set(key, (seen.get(key) ?? 0) + 1);
            return ok ? Date.now() : undefined;
          },
          180_000,
        ),
      ),
    );
    const allBack = Math.max(...recovered);
    report(
      `restart: Trino ready ${((trinoReadyAt - restartAt) / 1000).toFixed(1)} s after launch; gateway /readyz 200 ` +
        `${((readyAgain - trinoReadyAt) / 1000).toFixed(1)} s after Trino was ready; topics reloaded in ` +
        `${((loadedAt - readyAgain) / 1000).toFixed(1)} s; first client complete ` +
        `${((Math.min(...recovered) - loadedAt) / 1000).toFixed(1)} s and all ${CLIENTS} (2000 rows each, at once) ` +
        `${((allBack - loadedAt) / 1000).toFixed(1)} s after the reload (kill to recovery ` +
        `${((allBack - killedAt) / 1000).toFixed(1)} s); answers on the way: ${JSON.stringify(Object.fromEntries(seen))}`,
    );
    // Recovery needs no gateway restart: every client completes against the same gateway (the waits above are
    // liveness bounds, not timings; a freshly started Trino beside other test files can take a minute for all 20).
    expect(seen.get('complete')).toBe(CLIENTS);
  }, 400_000);
});

/** Whether process `pid` is gone: Trino's launcher takes a zombie for a running server, so it must be reaped too. */
function exited(pid: number): boolean {
  return !existsSync(`/proc/${pid}`);
}

/** The PostgreSQL server's processes (postmaster and its children), for SIGSTOP / SIGCONT. */
function pgProcesses(): number[] {
  const postmaster = Number(readFileSync(join(pgl.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const pids = [postmaster];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === postmaster) pids.push(Number(d));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

describe('the PostgreSQL cursor store partitioned, then down', () => {
  // The store's data dir outlives a run: a name of this run's own.
  const name = `faults-loader-${Date.now()}`;
  const cursor = `/v1/cursors/${name}`;

  async function expectStoreUnavailable(label: string): Promise<number> {
    const t0 = Date.now();
    const c = await get(cursor);
    const ms = Date.now() - t0;
    const [ready, data] = await Promise.all([
      get('/readyz'),
      get(`/v1/topics/orders/events?${SINCE}&limit=5&format=ndjson`),
    ]);
    expect([c.status, json(c).error?.code, c.headers['retry-after']], label).toEqual([
      503,
      'TG_STATE_UNAVAILABLE',
      '5',
    ]);
    expect([ready.status, json(ready).error?.code, json(ready).error?.details]).toEqual([
      503,
      'TG_STATE_UNAVAILABLE',
      { trino: 'ok', state: 'unreachable' },
    ]);
    // Data routes do not need the store.
    expect(data.status).toBe(200);
    expect(data.body.toString().endsWith('\n\n')).toBe(true);
    // Bounded: the connect timeout, or the client's read timeout, and never a hang.
    expect(ms).toBeLessThan(STATE_TIMEOUT_MS + 3000);
    return ms;
  }

  async function recovery(): Promise<number> {
    const t0 = Date.now();
    await until('cursor route 200', async () => ((await get(cursor)).status === 200 ? true : undefined), 30_000);
    await until('readyz 200', async () => ((await get('/readyz')).status === 200 ? true : undefined), 30_000);
    return Date.now() - t0;
  }

  it('503 TG_STATE_UNAVAILABLE in bounded time, data routes work, /readyz names the store, recovery by itself', async () => {
    const put = await open(cursor, { method: 'PUT', body: { topic: 'orders', start: 'earliest' } }).done;
    expect(put.status, put.body.toString()).toBe(201);
    const first = await get(cursor);
    expect(first.status, first.body.toString().slice(0, 400)).toBe(200);

    // Partitioned: the server's processes stopped, so connections open but nothing answers.
    const pids = pgProcesses();
    for (const p of pids) process.kill(p, 'SIGSTOP');
    let partitionMs: number;
    try {
      partitionMs = await expectStoreUnavailable('partitioned');
    } finally {
      for (const p of pids) process.kill(p, 'SIGCONT');
    }
    const backFromPartition = await recovery();
    report(
      `store partitioned: 503 TG_STATE_UNAVAILABLE after ${partitionMs} ms; recovered ${backFromPartition} ms after it healed`,
    );

    // Down: connections refused.
    await pgDown(pgl);
    const downMs = await expectStoreUnavailable('down');
    const restartAt = Date.now();
    await pgUp(pgl);
    const pgReadyMs = Date.now() - restartAt;
    const backFromDown = await recovery();
    report(
      `store down: 503 TG_STATE_UNAVAILABLE after ${downMs} ms; PostgreSQL restarted in ${pgReadyMs} ms; ` +
        `cursor routes and /readyz back ${backFromDown} ms later`,
    );
    const c = await get(cursor);
    expect(JSON.parse(c.body.toString()).name).toBe(name);
  }, 200_000);
});
