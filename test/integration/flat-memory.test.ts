/**
 * Memory stays flat on 5 x 10^6 rows: a gateway listening on real HTTP streams a `limit=all` read
 * of five million events over spooled results (the local Trino spools; the gateway asks for json+zstd by default),
 * compressed in gzip as most clients ask, to a client in the same process that decodes and discards it. The process's RSS, sampled while the body streams, may
 * not grow with the result: the peak of the 5 x 10^6-row read stays within a fixed margin of the peak of a 10^6-row
 * read (by then segments have reached their full size and the fetch window is full: the working set is what it
 * will be). The extra 4 x 10^6 rows are some 600 MB in NDJSON, nine times that margin, so a gateway holding any
 * ninth of them fails the test. It read 10^7 rows with a 96 MB margin before: 18 MB of growth at 10^7 rows
 * (measured) leaves the 64 MB margin 3.5 times what a flat gateway takes, and the read takes half the time.
 *
 * The topic is a view that generates its rows (the memory connector would need about 1 GB of Trino's heap to hold
 * them), and the read is `order=none` so Trino does not sort 5 x 10^6 rows first: the gateway's side of the stream is
 * the same code as an ordered read's.
 */
import http from 'node:http';
import { pipeline } from 'node:stream';
import zlib from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/server/load-config.js';
import { startServer } from '../../src/server.js';
import { HttpTrino } from '../../src/trino/http-trino.js';
import { trinoUrl } from '../helpers.js';

const SCHEMA = 'huge|kafka_topics';
const ROWS = 5_000_000;
const BASE = Date.UTC(2026, 10, 1);
/** The 5 x 10^6-row read's peak RSS may exceed the 10^6-row read's by at most this. */
const MARGIN_MB = 64;

const trino = () => new HttpTrino({ server: trinoUrl(), user: 'test' });
let gateway: { app: FastifyInstance; url: string };

beforeAll(async () => {
  const c = trino();
  await c.all(`CREATE SCHEMA IF NOT EXISTS vast."${SCHEMA}"`);
  // Event i at BASE + i ms: every millisecond one event, keys over 1000 values, small JSON values.
  await c.all(
    `CREATE OR REPLACE VIEW vast."${SCHEMA}".events AS SELECT to_utf8('k' || CAST(i % 1000 AS varchar)) AS key,
      to_utf8('{"n":' || CAST(i AS varchar) || ',"page":"/p/' || CAST(i % 200 AS varchar) || '"}') AS value,
      date_add('millisecond', i, TIMESTAMP '2026-11-01 00:00:00.000') AS timestamp_broker,
      date_add('millisecond', i - 5, TIMESTAMP '2026-11-01 00:00:00.000') AS timestamp_producer,
      CAST(ARRAY[] AS array(row(key varchar, value varbinary))) AS headers
    FROM (SELECT a * 1000 + b AS i FROM UNNEST(sequence(0, ${ROWS / 1000 - 1})) AS x(a)
      CROSS JOIN UNNEST(sequence(0, 999)) AS y(b))`,
  );
  gateway = await startServer(
    loadConfig({
      TOPICGATE_TRINO_URL: trinoUrl(),
      TOPICGATE_SCHEMAS: SCHEMA,
      TOPICGATE_STATE_URL: 'sqlite::memory:',
      TOPICGATE_PORT: '0',
      TOPICGATE_LOG_LEVEL: 'silent',
      TOPICGATE_MAX_EVENT_LOOP_DELAY_MS: '0',
      TOPICGATE_QUERY_TIMEOUT_MS: '900000',
    }),
  );
});

afterAll(async () => {
  await gateway?.app.close();
  const c = trino();
  await c.all(`DROP VIEW IF EXISTS vast."${SCHEMA}".events`);
  await c.all(`DROP SCHEMA IF EXISTS vast."${SCHEMA}"`);
});

/**
 * Reads a whole NDJSON response in gzip, decoded by Node's zlib and discarded: its lines, whether it ended complete,
 * and the peak RSS seen. Not fetch(): undici's fetch decoding a compressed body in this same process held some
 * 200 MB of ArrayBuffers by the end of a 10^7-row read (measured; a zlib stream holds none, and the gateway's own
 * memory stays flat with either client), which is the client's memory, not the gateway's.
 */
async function drain(rows: number): Promise<{ lines: number; bytes: number; complete: boolean; peakRss: number }> {
  const until = new Date(BASE + rows).toISOString();
  const q = `since=${new Date(BASE).toISOString()}&until=${until}&limit=all&order=none&format=ndjson`;
  const res = await new Promise<http.IncomingMessage>((resolve, reject) =>
    http
      .get(
        `${gateway.url}/v1/topics/events/events?${q}`,
        { headers: { 'accept-encoding': 'gzip' }, agent: false },
        resolve,
      )
      .once('error', reject),
  );
  expect([res.statusCode, res.headers['content-encoding']]).toEqual([200, 'gzip']);
  let peakRss = process.memoryUsage.rss();
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage.rss())), 50);
  let lines = 0;
  let bytes = 0;
  let tail = '';
  try {
    // A cut transfer, or a gzip stream that never finished, fails the decoder and so this loop.
    for await (const chunk of pipeline(res, zlib.createGunzip(), () => {}) as AsyncIterable<Buffer>) {
      bytes += chunk.length;
      for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) lines++;
      tail = (tail + chunk.subarray(-2).toString('latin1')).slice(-2);
    }
  } finally {
    clearInterval(sampler);
  }
  return { lines, bytes, complete: tail === '\n\n', peakRss: Math.max(peakRss, process.memoryUsage.rss()) };
}

describe('a limit=all read of 5 x 10^6 rows over spooled results', () => {
  it('streams every row, its peak RSS within a fixed margin of a 10^6-row read', { timeout: 900_000 }, async () => {
    const mid = await drain(1_000_000);
    expect(mid).toMatchObject({ lines: 1_000_001, complete: true });
    const big = await drain(ROWS);
    // Every row, then the empty line that marks a complete NDJSON body.
    expect(big.lines).toBe(ROWS + 1);
    expect(big.complete).toBe(true);
    // The rows the larger read adds are many times the margin: holding them would show.
    expect((big.bytes - mid.bytes) / 2 ** 20).toBeGreaterThan(8 * MARGIN_MB);
    const grewMb = (big.peakRss - mid.peakRss) / 2 ** 20;
    expect(grewMb, `peak RSS ${(big.peakRss / 2 ** 20).toFixed(0)} MB at ${ROWS} rows`).toBeLessThan(MARGIN_MB);
  });
});
