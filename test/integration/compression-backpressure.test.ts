/**
 * Backpressure through the compressor (API.md "Compression on the wire"): a client that stops reading a large
 * compressed read stops the gateway reading Trino, so neither the gateway's memory nor Trino's progress grows while
 * it waits; reading again moves the query on; leaving cancels it. Trino's own statistics tell how many rows the query
 * has produced (`queryStats.outputPositions` of /v1/query/{id}), so a gateway that pulled rows ahead of its client
 * (a compressor that buffered, a stream that read ahead) fails here. The direct protocol is asked for, so the query
 * itself is held (with spooling Trino writes segments ahead and the gateway's segment fetch is what is held).
 *
 * A client that keeps reading, slowly (in bursts, the gateway waiting on it between them: test/slow-reader.ts),
 * reads 6 x 10^5 rows while this process's RSS stays flat and Trino stays a bounded number of rows ahead of it.
 *
 * The topic is a view that generates its rows: 8 x 10^6 small events, more than twice what Trino's buffers (some
 * 10^6 of them, whatever the client does) and the sockets hold once compressed. Each carries a hash, so they do not
 * compress to almost nothing: compressed bytes held anywhere would show in the RSS.
 */
import http from 'node:http';
import type net from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/server/load-config.js';
import { startServer } from '../../src/server.js';
import { HttpTrino } from '../../src/trino/http-trino.js';
import { trinoUrl } from '../helpers.js';
import { readSlowly } from '../slow-reader.js';

const SCHEMA = 'wire|kafka_topics';
const ROWS = 8_000_000;
const BASE = Date.UTC(2026, 10, 1);
const trino = () => new HttpTrino({ server: trinoUrl(), user: 'test' });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let gateway: { app: FastifyInstance; url: string };
/** The gateway's side of the newest connection to it (each test opens one). */
let serverSocket: net.Socket | undefined;

beforeAll(async () => {
  const c = trino();
  await c.all(`CREATE SCHEMA IF NOT EXISTS vast."${SCHEMA}"`);
  await c.all(
    `CREATE OR REPLACE VIEW vast."${SCHEMA}".events AS SELECT to_utf8('k' || CAST(i % 1000 AS varchar)) AS key,
      to_utf8('{"n":' || CAST(i AS varchar) || ',"page":"/p/' || CAST(i % 200 AS varchar) || '","h":"' ||
        to_hex(md5(to_utf8(CAST(i AS varchar)))) || '"}') AS value,
      date_add('millisecond', i, TIMESTAMP '2026-11-01 00:00:00.000') AS timestamp_broker,
      date_add('millisecond', i - 5, TIMESTAMP '2026-11-01 00:00:00.000') AS timestamp_producer,
      CAST(ARRAY[] AS array(row(key varchar, value varbinary))) AS headers
    FROM (SELECT a * 1000 + b AS i FROM UNNEST(sequence(0, ${ROWS / 1000 - 1})) AS x(a)
      CROSS JOIN UNNEST(sequence(0, 999)) AS y(b))`,
  );
  gateway = await startServer(
    loadConfig({
      TOPICGATE_TRINO_URL: trinoUrl(),
      TOPICGATE_TRINO_ENCODING: 'none',
      TOPICGATE_SCHEMAS: SCHEMA,
      TOPICGATE_STATE_URL: 'sqlite::memory:',
      TOPICGATE_PORT: '0',
      TOPICGATE_LOG_LEVEL: 'silent',
      TOPICGATE_MAX_EVENT_LOOP_DELAY_MS: '0',
    }),
  );
  gateway.app.server.on('connection', (socket: net.Socket) => (serverSocket = socket));
}, 120_000);

afterAll(async () => {
  await gateway?.app.close();
  const c = trino();
  await c.all(`DROP VIEW IF EXISTS vast."${SCHEMA}".events`);
  await c.all(`DROP SCHEMA IF EXISTS vast."${SCHEMA}"`);
});

/** The query's state and the rows it has produced so far, from Trino's query info. */
async function progress(id: string): Promise<{ state: string; rows: number; error?: string }> {
  const res = await fetch(`${trinoUrl()}/v1/query/${encodeURIComponent(id)}`, { headers: { 'X-Trino-User': 'test' } });
  const info = (await res.json()) as {
    state: string;
    queryStats: { outputPositions: number };
    errorCode?: { name: string };
  };
  return { state: info.state, rows: info.queryStats.outputPositions, error: info.errorCode?.name };
}

/** Opens the read of every event (its response not yet read from). */
function open(coding: string): Promise<{ req: http.ClientRequest; res: http.IncomingMessage }> {
  const q = `since=${new Date(BASE).toISOString()}&until=${new Date(BASE + ROWS).toISOString()}&limit=all&order=none`;
  return new Promise((resolve, reject) => {
    const req = http.get(
      `${gateway.url}/v1/topics/events/events?${q}&format=ndjson`,
      { headers: { 'accept-encoding': coding }, agent: false },
      (res) => resolve({ req, res }),
    );
    req.on('error', reject);
  });
}

/** Opens the read and pauses at its first bytes. */
async function openPaused(coding: string): Promise<{ req: http.ClientRequest; res: http.IncomingMessage }> {
  const opened = await open(coding);
  await new Promise<void>((resolve) =>
    opened.res.once('data', () => {
      opened.res.pause();
      resolve();
    }),
  );
  return opened;
}

/** Leaves the read and waits for Trino to have cancelled its query. */
async function leave(req: http.ClientRequest, id: string): Promise<{ state: string; error?: string }> {
  req.destroy();
  let gone = await progress(id);
  for (let i = 0; i < 50 && gone.state !== 'FAILED'; i++) {
    await sleep(100);
    gone = await progress(id);
  }
  return gone;
}

/** A paused read: its request, its response (paused at its first bytes) and its query in Trino. */
interface Paused {
  req: http.ClientRequest;
  res: http.IncomingMessage;
  id: string;
  /** Trino's count of the query's rows when it stood still, and after the RSS was sampled. */
  still: { state: string; rows: number };
  after: { state: string; rows: number };
}

describe('a slow client of a large compressed read', () => {
  // identity: the uncompressed path, as a control.
  const CODINGS = ['gzip', 'zstd', 'br', 'identity'];
  const paused = new Map<string, Paused>();
  /** Every read opened, left at the end even when the setup below failed part way. */
  const requests: http.ClientRequest[] = [];
  /** How much this process grew while all four reads stood paused. */
  let grewMb = 0;

  // The four reads are opened and paused together, and each test then checks its own: one wait for the buffers to
  // fill instead of four (each is mostly waiting on Trino's count to stand still), and the RSS is sampled with all
  // four held at once.
  beforeAll(async () => {
    const opened = await Promise.all(
      CODINGS.map(async (coding) => {
        const read = await openPaused(coding);
        requests.push(read.req);
        return read;
      }),
    );
    // Let the buffers between Trino and the clients fill (Trino's own stages buffer some 10^6 of these rows per query,
    // the sockets as many again once compressed): until every query's count stands still for three seconds (on a
    // loaded machine this takes a while), or a query finishes, which would mean nothing held it back.
    const ids = opened.map(({ res }) => String(res.headers['x-trino-query-id']));
    let before = await Promise.all(ids.map(progress));
    const still = ids.map(() => 0);
    for (let i = 0; i < 60 && still.some((n) => n < 3) && before.every((b) => b.state !== 'FINISHED'); i++) {
      await sleep(1_000);
      const now = await Promise.all(ids.map(progress));
      // Trino's statistics lag: a count of 0 (not reported yet) is no standstill.
      for (const [k, n] of now.entries())
        still[k] = n.rows > 0 && n.rows - before[k]!.rows < 10_000 ? still[k]! + 1 : 0;
      before = now;
    }
    const rss0 = process.memoryUsage.rss();
    let peak = rss0;
    for (let i = 0; i < 30; i++) {
      await sleep(100);
      peak = Math.max(peak, process.memoryUsage.rss());
    }
    grewMb = (peak - rss0) / 2 ** 20;
    const after = await Promise.all(ids.map(progress));
    for (const [k, coding] of CODINGS.entries()) {
      paused.set(coding, { ...opened[k]!, id: ids[k]!, still: before[k]!, after: after[k]! });
    }
  }, 120_000);

  afterAll(() => {
    for (const req of requests) req.destroy();
  });

  it.each(CODINGS)(
    '%s: holds the query while paused, moves it when read, cancels it when gone',
    async (coding) => {
      const { req, res, id, still, after } = paused.get(coding)!;
      expect(res.headers['content-encoding']).toBe(coding === 'identity' ? undefined : coding);
      expect(after.state).not.toBe('FINISHED');
      expect(after.rows, 'rows Trino produced while the client was paused').toBeLessThan(ROWS / 2);
      expect(after.rows - still.rows, 'Trino moved on while the client was paused').toBeLessThan(100_000);
      expect(grewMb, 'MB the process grew while the four were paused').toBeLessThan(64);
      // Reading again moves the query on.
      res.on('data', () => {});
      res.resume();
      let moved = await progress(id);
      const from = moved.rows;
      expect(from - after.rows, 'Trino moved on before the client read again').toBeLessThan(100_000);
      for (let i = 0; i < 50 && moved.rows - from < 200_000; i++) {
        await sleep(200);
        moved = await progress(id);
      }
      expect(moved.rows - from).toBeGreaterThanOrEqual(200_000);
      // Leaving cancels it, through the compressor.
      const gone = await leave(req, id);
      expect([gone.state, gone.error]).toEqual(['FAILED', 'USER_CANCELED']);
    },
    120_000,
  );
});

/**
 * Rows the slow client reads, and how many of the first it reads before the RSS it starts from is taken. Enough to
 * catch a gateway that reads ahead of its client: the 4 x 10^5 rows after the first are some 75 MB decoded, three
 * times the margin. With its compressed chunks queued ahead of the client (measured, gzip), the gateway grew 45 MB
 * over them and Trino ran 1.6 x 10^6 rows ahead; reading flat, it grew 0-1.3 MB in every coding. The margin is
 * half what it was for the 1.2 x 10^6 rows this read took before, as are the rows: the same test, in half the time.
 */
const SLOW_ROWS = 600_000;
const WARM_ROWS = 200_000;
const MARGIN_MB = 24;

describe('a client that keeps reading a large compressed read, slowly', () => {
  it.each(['gzip', 'br', 'zstd'])(
    '%s: 6 x 10^5 rows in bursts, the gateway waiting on it between them; RSS flat, Trino a bounded way ahead',
    async (coding) => {
      const { req, res } = await open(coding);
      expect([res.statusCode, res.headers['content-encoding']]).toEqual([200, coding]);
      const id = String(res.headers['x-trino-query-id']);
      const read = await readSlowly(res, serverSocket!, coding, {
        rows: SLOW_ROWS,
        burstMs: 150,
        holdMs: 500,
        waitMaxMs: 5_000,
      });
      const trinoThen = await progress(id);
      // It read slowly: after most bursts the gateway's response stood waiting on it (its socket full), then
      // waited half a second more each time.
      expect(read.rows).toBeGreaterThanOrEqual(SLOW_ROWS);
      expect(read.serverWaited, `of ${read.pauses} pauses`).toBeGreaterThanOrEqual(0.8 * read.pauses);
      // RSS flat: what the process holds once the read is under way is all it ever holds, over the 4 x 10^5 rows
      // (some 75 MB decoded) read after that.
      const peak = (rows: (n: number) => boolean) =>
        Math.max(...read.samples.filter((s) => rows(s.rows)).map((s) => s.rss));
      const grewMb = (peak((n) => n > WARM_ROWS) - peak((n) => n <= WARM_ROWS)) / 2 ** 20;
      expect(read.decodedBytes / 2 ** 20).toBeGreaterThan(4 * MARGIN_MB);
      expect(grewMb, 'MB the process grew while the client read on').toBeLessThan(MARGIN_MB);
      // Trino was held back by the client: a bounded way ahead of it, nowhere near done.
      expect(trinoThen.state).not.toBe('FINISHED');
      // Some 10^6 rows stand in Trino's buffers (0.6-0.9 x 10^6 measured in every coding); a gateway reading ahead
      // of its client took Trino 1-3 x 10^6 further in a read of twice this length (the RSS above is what catches
      // it first in this one).
      expect(trinoThen.rows - read.rows, 'rows Trino produced beyond those read').toBeLessThan(2_000_000);
      const gone = await leave(req, id);
      expect([gone.state, gone.error]).toEqual(['FAILED', 'USER_CANCELED']);
    },
    240_000,
  );
});
