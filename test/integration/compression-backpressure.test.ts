/**
 * Backpressure through the compressor (API.md "Compression on the wire"): a client that stops reading a large
 * compressed read stops the gateway reading Trino, so neither the gateway's memory nor Trino's progress grows while
 * it waits; reading again moves the query on; leaving cancels it. Trino's own statistics tell how many rows the query
 * has produced (`queryStats.outputPositions` of /v1/query/{id}), so a gateway that pulled rows ahead of its client
 * (a compressor that buffered, a stream that read ahead) fails here. The direct protocol is asked for, so the query
 * itself is held (with spooling Trino writes segments ahead and the gateway's segment fetch is what is held).
 *
 * The topic is a view that generates its rows: 8 x 10^6 small events, more than twice what Trino's buffers (some
 * 10^6 of them, whatever the client does) and the sockets hold once compressed.
 */
import http from 'node:http';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/server/load-config.js';
import { startServer } from '../../src/server.js';
import { HttpTrino } from '../../src/trino/http-trino.js';
import { trinoUrl } from '../helpers.js';

const SCHEMA = 'wire|kafka_topics';
const ROWS = 8_000_000;
const BASE = Date.UTC(2026, 10, 1);
const trino = () => new HttpTrino({ server: trinoUrl(), user: 'test' });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let gateway: { app: FastifyInstance; url: string };

beforeAll(async () => {
  const c = trino();
  await c.all(`CREATE SCHEMA IF NOT EXISTS vast."${SCHEMA}"`);
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
      TOPICGATE_TRINO_ENCODING: 'none',
      TOPICGATE_SCHEMAS: SCHEMA,
      TOPICGATE_STATE_URL: 'sqlite::memory:',
      TOPICGATE_PORT: '0',
      TOPICGATE_LOG_LEVEL: 'silent',
      TOPICGATE_MAX_EVENT_LOOP_DELAY_MS: '0',
    }),
  );
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

/** Opens the read and pauses at its first bytes. */
function openPaused(coding: string): Promise<{ req: http.ClientRequest; res: http.IncomingMessage }> {
  const q = `since=${new Date(BASE).toISOString()}&until=${new Date(BASE + ROWS).toISOString()}&limit=all&order=none`;
  return new Promise((resolve, reject) => {
    const req = http.get(
      `${gateway.url}/v1/topics/events/events?${q}&format=ndjson`,
      { headers: { 'accept-encoding': coding }, agent: false },
      (res) => {
        res.once('data', () => {
          res.pause();
          resolve({ req, res });
        });
      },
    );
    req.on('error', reject);
  });
}

describe('a slow client of a large compressed read', () => {
  // identity: the uncompressed path, as a control.
  it.each(['gzip', 'zstd', 'br', 'identity'])(
    '%s: holds the query while paused, moves it when read, cancels it when gone',
    async (coding) => {
      const { req, res } = await openPaused(coding);
      expect(res.headers['content-encoding']).toBe(coding === 'identity' ? undefined : coding);
      const id = String(res.headers['x-trino-query-id']);
      // Let the buffers between Trino and the client fill (Trino's own stages buffer some 10^6 of these rows, the
      // sockets as many again once compressed): until Trino's count stands still for three seconds (on a loaded machine
      // this takes a while), or the query finishes, which would mean nothing held it back.
      let before = await progress(id);
      for (let i = 0, still = 0; i < 60 && still < 3 && before.state !== 'FINISHED'; i++) {
        await sleep(1_000);
        const now = await progress(id);
        // Trino's statistics lag: a count of 0 (not reported yet) is no standstill.
        still = now.rows > 0 && now.rows - before.rows < 10_000 ? still + 1 : 0;
        before = now;
      }
      const rss0 = process.memoryUsage.rss();
      let peak = rss0;
      for (let i = 0; i < 30; i++) {
        await sleep(100);
        peak = Math.max(peak, process.memoryUsage.rss());
      }
      const after = await progress(id);
      expect(after.state).not.toBe('FINISHED');
      expect(after.rows, 'rows Trino produced while the client was paused').toBeLessThan(ROWS / 2);
      expect(after.rows - before.rows, 'Trino moved on while the client was paused').toBeLessThan(100_000);
      expect((peak - rss0) / 2 ** 20, 'MB the process grew while paused').toBeLessThan(64);
      // Reading again moves the query on.
      res.on('data', () => {});
      res.resume();
      let moved = after;
      for (let i = 0; i < 50 && moved.rows - after.rows < 200_000; i++) {
        await sleep(200);
        moved = await progress(id);
      }
      expect(moved.rows - after.rows).toBeGreaterThanOrEqual(200_000);
      // Leaving cancels it, through the compressor.
      req.destroy();
      let gone = await progress(id);
      for (let i = 0; i < 50 && gone.state !== 'FAILED'; i++) {
        await sleep(100);
        gone = await progress(id);
      }
      expect([gone.state, gone.error]).toEqual(['FAILED', 'USER_CANCELED']);
    },
    120_000,
  );
});
