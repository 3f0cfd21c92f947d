/**
 * Graceful shutdown, on the real server process against the suite's Trino: the bulk clicks of
 * test/global-setup.ts (400,400 events, a result large enough that a stalled client keeps its query running), read
 * over the direct protocol, so the query itself is held, as a Trino user of its own, so the queries counted are this
 * file's alone (it started and loaded a Trino of its own before, half of its time). SIGTERM during 10 streaming
 * responses stops accepting connections, lets the responses that keep reading finish within
 * TOPICGATE_SHUTDOWN_GRACE_MS, then cuts the others, cancels their Trino queries and exits 0 within the grace
 * period plus a second; no Trino query of the gateway is left running.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { HttpTrino } from '../../src/trino/http-trino.js';
import { serverCommand, trinoUrl } from '../helpers.js';

const GRACE_MS = 4000;
const FORMATS = ['json', 'ndjson', 'csv', 'arrow'] as const;
const BULK = 'bulk|kafka_topics';
const ROWS = 400_400;
/** The gateway's Trino user: only this file's gateway runs queries as it. */
const USER = 'topicgate-shutdown';
let proc: ChildProcess | undefined;

afterAll(async () => {
  if (proc && proc.exitCode === null) proc.kill('SIGKILL');
});

function startGateway(): Promise<{ url: string; exited: Promise<{ code: number | null; at: number }> }> {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('TOPICGATE_')) env[k] = v;
  const server = serverCommand();
  const child = spawn(server.command, server.args, {
    cwd: server.cwd,
    env: {
      ...env,
      TOPICGATE_TRINO_URL: trinoUrl(),
      TOPICGATE_TRINO_USER: USER,
      TOPICGATE_TRINO_ENCODING: 'none',
      TOPICGATE_CATALOG: 'vast',
      TOPICGATE_SCHEMAS: BULK,
      TOPICGATE_MAX_LIMIT: String(ROWS),
      TOPICGATE_STATE_URL: 'sqlite::memory:',
      TOPICGATE_PORT: '0',
      TOPICGATE_SHUTDOWN_GRACE_MS: String(GRACE_MS),
      // Each response reads ahead only one Trino page before its first bytes: the queries keep running.
      TOPICGATE_PREFETCH_ROWS: '0',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  proc = child;
  const exited = new Promise<{ code: number | null; at: number }>((resolve) =>
    child.on('exit', (code) => resolve({ code, at: Date.now() })),
  );
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`the gateway did not start: ${out}`)), 60_000);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /"url":"(http:[^"]+)"/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ url: m[1]!, exited });
      }
    });
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    child.on('exit', (code) => reject(new Error(`the gateway exited ${code}: ${out}`)));
  });
}

interface Stream {
  format: (typeof FORMATS)[number];
  queryId: string;
  release: () => void;
  done: Promise<{ body: Buffer; cut: boolean }>;
}

/** A streaming read that stops reading after its first bytes until released. */
function hold(url: string, format: (typeof FORMATS)[number], long: boolean): Promise<Stream> {
  // A long read takes the whole window unordered, so Trino streams it rather than sorting it before the first bytes.
  const range = long ? 'until=2026-11-02T00:00:00Z&limit=all&order=none' : 'limit=5000';
  return new Promise((resolve, reject) => {
    let release = () => {};
    const released = new Promise<void>((r) => (release = r));
    const req = http.get(
      `${url}/v1/topics/clicks/events?since=2026-11-01T00:00:00Z&${range}&format=${format}`,
      { agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        let done: (v: { body: Buffer; cut: boolean }) => void = () => {};
        const finished = new Promise<{ body: Buffer; cut: boolean }>((r) => (done = r));
        res.on('data', (c: Buffer) => chunks.push(c));
        res.once('data', () => {
          res.pause();
          void released.then(() => res.resume());
          resolve({ format, queryId: String(res.headers['x-trino-query-id']), release, done: finished });
        });
        res.on('end', () => done({ body: Buffer.concat(chunks), cut: !res.complete }));
        res.on('close', () => done({ body: Buffer.concat(chunks), cut: !res.complete }));
        res.on('error', () => done({ body: Buffer.concat(chunks), cut: true }));
      },
    );
    req.on('error', reject);
  });
}

function complete(format: (typeof FORMATS)[number], r: { body: Buffer; cut: boolean }): boolean {
  if (r.cut) return false;
  const text = r.body.toString();
  if (format === 'json') return text.trimEnd().endsWith('"complete":true}');
  if (format === 'ndjson') return text.endsWith('\n\n');
  if (format === 'csv') return !text.includes('\n#error ');
  return r.body.subarray(-8).equals(Buffer.from([0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0]));
}

describe('SIGTERM during 10 streaming responses', () => {
  it('finishes the responses that keep reading, cuts the rest, cancels their queries, exits 0 in time', async () => {
    const { url, exited } = await startGateway();
    // Five short reads (they finish within the grace period once they read on) and five long ones (they stall).
    const streams = await Promise.all(
      Array.from({ length: 10 }, (_, i) => hold(url, FORMATS[i % FORMATS.length]!, i >= 5)),
    );
    const trino = new HttpTrino({ server: trinoUrl(), user: 'test' });
    const ids = streams.map((s) => `'${s.queryId.replace(/[^a-z0-9_]/g, '')}'`).join(', ');
    const states = async () =>
      (await trino.all(`SELECT query_id, state FROM system.runtime.queries WHERE query_id IN (${ids})`)).rows as [
        string,
        string,
      ][];
    // While held, the five long queries are still running in Trino.
    const before = new Map(await states());
    expect(streams.slice(5).filter((s) => !['FINISHED', 'FAILED'].includes(before.get(s.queryId) ?? ''))).toHaveLength(
      5,
    );

    const termAt = Date.now();
    proc!.kill('SIGTERM');
    // No new connections: a probe that reaches the listener while it closes may be reset rather than refused; none
    // is ever answered, and within two seconds the port refuses outright.
    const probe = () =>
      new Promise<string>((resolve) =>
        http
          .get(`${url}/healthz`, { agent: false }, (res) => {
            res.resume();
            resolve('answered');
          })
          .on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'error')),
      );
    const probes: string[] = [];
    await new Promise((r) => setTimeout(r, 300));
    while (Date.now() - termAt < 2300) {
      probes.push(await probe());
      if (probes.at(-1) === 'ECONNREFUSED') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(probes.filter((p) => p !== 'ECONNRESET' && p !== 'ECONNREFUSED')).toEqual([]);
    expect(probes.at(-1)).toBe('ECONNREFUSED');
    // The first five read on and finish within the grace period; the other five stay stalled.
    for (const s of streams.slice(0, 5)) s.release();
    const finished = await Promise.all(streams.slice(0, 5).map((s) => s.done));
    for (const [i, r] of finished.entries()) expect(complete(streams[i]!.format, r), streams[i]!.format).toBe(true);
    const { code, at } = await exited;
    const exitMs = at - termAt;
    process.stderr.write(`[shutdown] exit code ${code} ${exitMs} ms after SIGTERM (grace ${GRACE_MS} ms)\n`);
    expect(code).toBe(0);
    expect(exitMs).toBeGreaterThanOrEqual(GRACE_MS - 100);
    expect(exitMs).toBeLessThan(GRACE_MS + 1000);
    for (const s of streams.slice(5)) s.release();
    const cut = await Promise.all(streams.slice(5).map((s) => s.done));
    for (const [i, r] of cut.entries()) expect(complete(streams[5 + i]!.format, r), streams[5 + i]!.format).toBe(false);
    // No query of the gateway is left running: the five finished or held were ended, the five cut were cancelled.
    const settled = async () => {
      for (let i = 0; i < 50; i++) {
        const now = await states();
        if (now.every(([, s]) => s === 'FINISHED' || s === 'FAILED')) return now;
        await new Promise((r) => setTimeout(r, 100));
      }
      return states();
    };
    const after = new Map(await settled());
    // The five short pages were whole; their queries were held for a next page (held-results.ts), and the shutdown
    // cancelled those (a query already read to its end is FINISHED).
    for (const s of streams.slice(0, 5)) expect(['FINISHED', 'FAILED']).toContain(after.get(s.queryId));
    expect(streams.slice(5).map((s) => after.get(s.queryId))).toEqual(Array(5).fill('FAILED'));
    const [[running]] = (
      await trino.all(
        `SELECT count(*) FROM system.runtime.queries WHERE "user" = '${USER}' AND state NOT IN ('FINISHED', 'FAILED')`,
      )
    ).rows as [[number]];
    expect(Number(running)).toBe(0);
  }, 120_000);
});
