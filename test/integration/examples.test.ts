/**
 * The client examples run as a user runs them, against a gateway over the demo topics, and print real
 * results: each is checked against the same figures computed in Trino directly. A cut response (a query that
 * fails in Trino mid-stream, test/cut-topic.ts) makes each of them fail with a non-zero exit.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CUT_SCHEMA, CUT_SINCE, CUT_UNTIL, cutReadPath, ensureCutTopic } from '../cut-topic.js';
import { sql, testGateway, trinoUrl } from '../helpers.js';

const run = promisify(execFile);
const apps: FastifyInstance[] = [];
let demo = '';
let cut = '';
const SINCE = '2026-11-01T00:00:00Z';
const UNTIL = '2026-11-04T00:00:00Z';
/** A paged read (three pages of the 10,020 demo orders) and a closed window read in one response. */
const paged = () => `${demo}/v1/topics/orders/events?since=${SINCE}&limit=4000`;
const window = () => `${demo}/v1/topics/orders/events?since=${SINCE}&until=${UNTIL}&limit=all`;

beforeAll(async () => {
  await ensureCutTopic(trinoUrl());
  const gateways = [await testGateway('demo|kafka_topics'), await testGateway(CUT_SCHEMA)];
  apps.push(...gateways.map((g) => g.app));
  [demo, cut] = gateways.map((g) => g.url) as [string, string];
}, 120_000);
afterAll(() => Promise.all(apps.map((a) => a.close())));

/** Runs an example; resolves with its exit code and output (never rejects). */
async function example(cmd: string, args: string[]) {
  return run(cmd, args, { encoding: 'utf8', maxBuffer: 16 << 20, env: { ...process.env, RUST_BACKTRACE: '0' } }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (err: { code: number; stdout: string; stderr: string }) => ({
      code: err.code,
      stdout: err.stdout,
      stderr: err.stderr,
    }),
  );
}

const ts = (iso: string) => `TIMESTAMP '${iso.slice(0, 19).replace('T', ' ')}'`;

/**
 * The figures from Trino are the same for every example that prints them: each query runs once for the file (the
 * examples read the demo topics, which no test changes).
 */
function once<T>(compute: () => Promise<T>): () => Promise<T> {
  let answer: Promise<T> | undefined;
  return () => (answer ??= compute());
}

/** Events and distinct keys per day of the closed window. */
const perDay = once(async (): Promise<{ day: string; events: number; keys: number }[]> => {
  const rows = await sql(
    `SELECT format_datetime(date_trunc('day', timestamp_broker), 'yyyy-MM-dd'), count(*), count(DISTINCT key) ` +
      `FROM orders WHERE timestamp_broker >= ${ts(SINCE)} AND timestamp_broker < ${ts(UNTIL)} GROUP BY 1 ORDER BY 1`,
  );
  return rows.map(([day, events, keys]) => ({ day: String(day), events: Number(events), keys: Number(keys) }));
});

/**
 * In one query: the events since SINCE (the paged read's total), the closed window's events, distinct keys and
 * distinct hours of broker time (each FILTER is the WHERE the figure had as a query of its own).
 */
const figures = once(async () => {
  const window = `timestamp_broker < ${ts(UNTIL)}`;
  const [row] = await sql(
    `SELECT count(*), count(*) FILTER (WHERE ${window}), count(DISTINCT key) FILTER (WHERE ${window}),
            count(DISTINCT date_trunc('hour', timestamp_broker)) FILTER (WHERE ${window})
     FROM orders WHERE timestamp_broker >= ${ts(SINCE)}`,
  );
  const [total, events, keys, hours] = row!.map(Number) as [number, number, number, number];
  return { total, events, keys, hours };
});

const total = async () => (await figures()).total;

/** Events and distinct keys of the closed window, from Trino. */
async function eventsAndKeys(): Promise<[number, number]> {
  const { events, keys } = await figures();
  return [events, keys];
}

const pagesOf = (n: number) => [4000, 4000, n - 8000].join(', ');

describe('examples against the demo topics', () => {
  it('pandas_arrow.py: Arrow pages into one DataFrame, following Link', async () => {
    const r = await example('python3', ['examples/pandas_arrow.py', paged()]);
    expect(r.code, r.stderr).toBe(0);
    const n = await total();
    expect(r.stdout).toContain(`rows: ${n} in 3 pages (${pagesOf(n)})`);
    expect(r.stdout).toMatch(/timestamp_broker\s+datetime64\[ms, UTC\]/);
    for (const d of await perDay()) expect(r.stdout).toMatch(new RegExp(`${d.day} 00:00:00\\+00:00\\s+${d.events}\\n`));
    process.stderr.write(`[examples] pandas_arrow.py:\n${r.stdout}`);
  }, 120_000);

  it('polars_parquet.py: a closed window as Parquet, aggregated in polars', async () => {
    const r = await example('python3', ['examples/polars_parquet.py', window()]);
    expect(r.code, r.stderr).toBe(0);
    const days = await perDay();
    expect(r.stdout).toContain(`rows: ${days.reduce((a, d) => a + d.events, 0)}`);
    for (const d of days) expect(r.stdout).toContain(`day ${d.day}: ${d.events} events, ${d.keys} keys`);
    process.stderr.write(`[examples] polars_parquet.py:\n${r.stdout}`);
  }, 120_000);

  it('duckdb_arrow.py: DuckDB queries the Arrow stream in process', async () => {
    const query = 'SELECT count(*) AS events, count(DISTINCT key) AS keys, min(timestamp_broker) AS first FROM events';
    const r = await example('python3', ['examples/duckdb_arrow.py', window(), query]);
    expect(r.code, r.stderr).toBe(0);
    const [events, keys] = await eventsAndKeys();
    expect(r.stdout).toContain(`events\tkeys\tfirst\n${events}\t${keys}\t2026-11-01 00:00:00+00:00\n`);
    // The default query: events per hour of broker time.
    const hourly = await example('python3', ['examples/duckdb_arrow.py', window()]);
    expect(hourly.code, hourly.stderr).toBe(0);
    expect(hourly.stdout).toContain(`result rows: ${(await figures()).hours}`);
    process.stderr.write(`[examples] duckdb_arrow.py:\n${r.stdout}`);
  }, 120_000);

  it('node-arrow.mjs: apache-arrow in Node, batch by batch, following Link', async () => {
    const r = await example(process.execPath, ['examples/node-arrow.mjs', paged()]);
    expect(r.code, r.stderr).toBe(0);
    const n = await total();
    expect(r.stdout).toContain(`rows: ${n} in 3 pages (${pagesOf(n)})`);
    expect(r.stdout).toContain("'2026-11-01T00:00:00.000Z'");
    process.stderr.write(`[examples] node-arrow.mjs:\n${r.stdout}`);
  }, 120_000);
});

describe('read-session examples: streams read concurrently into one table', () => {
  const body = JSON.stringify({ since: SINCE, until: UNTIL, streams: 4 });
  it.each([
    ['python3', 'examples/session_pyarrow.py'],
    ['python3', 'examples/session_polars.py'],
    ['python3', 'examples/session_duckdb.py'],
    [process.execPath, 'examples/node-session.mjs'],
  ] as const)(
    '%s %s',
    async (cmd, script) => {
      const r = await example(cmd, [script, `${demo}/v1/topics/orders/sessions`, body]);
      expect(r.code, r.stderr).toBe(0);
      const days = await perDay();
      expect(r.stdout).toMatch(new RegExp(`^rows: ${days.reduce((a, d) => a + d.events, 0)} in 4 streams \\(`));
      expect(r.stdout).toContain('broker-time order: true');
      for (const d of days) expect(r.stdout).toContain(`day ${d.day}: ${d.events} events`);
      process.stderr.write(`[examples] ${script}:\n${r.stdout}`);
    },
    120_000,
  );

  it('session_duckdb.py: a query of its own over the streams', async () => {
    const query = 'SELECT count(*) AS events, count(DISTINCT key) AS keys FROM events';
    const r = await example('python3', [
      'examples/session_duckdb.py',
      `${demo}/v1/topics/orders/sessions`,
      body,
      query,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const [events, keys] = await eventsAndKeys();
    expect(r.stdout).toContain(`events\tkeys\n${events}\t${keys}\n`);
  }, 120_000);

  it.each([
    ['python3', 'examples/session_pyarrow.py', /IncompleteRead|HTTP Error 400/],
    ['python3', 'examples/session_polars.py', /IncompleteRead|HTTP Error 400/],
    ['python3', 'examples/session_duckdb.py', /IncompleteRead|HTTP Error 400/],
    [process.execPath, 'examples/node-session.mjs', /failed: (terminated|HTTP 400)/],
  ] as const)(
    'a failing stream (the cut topic) fails the whole read: %s %s',
    async (cmd, script, error) => {
      // Each stream is one sorted query: the one over the poisoned day fails in Trino before (or after) its first
      // byte (test/cut-topic.ts), and either way the example exits non-zero instead of joining what arrived.
      const cutBody = JSON.stringify({ since: CUT_SINCE, until: CUT_UNTIL, streams: 2 });
      const r = await example(cmd, [script, `${cut}/v1/topics/orders/sessions`, cutBody]);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toMatch(error);
    },
    120_000,
  );
});

describe('a cut response makes each example fail', () => {
  it.each([
    ['python3', 'examples/pandas_arrow.py', 'arrow', /IncompleteRead/],
    ['python3', 'examples/polars_parquet.py', 'parquet', /IncompleteRead/],
    ['python3', 'examples/duckdb_arrow.py', 'arrow', /IncompleteRead/],
    [process.execPath, 'examples/node-arrow.mjs', 'arrow', /failed: terminated/],
  ] as const)(
    '%s %s',
    async (cmd, script, format, error) => {
      const r = await example(cmd, [script, cut + cutReadPath(format)]);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toMatch(error);
    },
    120_000,
  );
});
