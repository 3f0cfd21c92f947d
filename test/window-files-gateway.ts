/**
 * Gateways for the window-file tests (test/integration/window-files*.test.ts), listening on free loopback ports on the
 * real Trino: `secured` with two API keys (`all-1` reads orders; `eu-1` only the rows whose key ends in 1), `open`
 * without an auth block. Also Trino's own answers for the window, a reader run in Python
 * (test/readers/window_files.py), and the bytes and ranges the gateway served, from its metrics.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { stringify } from 'yaml';
import { apiKeyHash } from '../src/access/api-keys.js';
import { buildApp } from '../src/server/app.js';
import { loadConfig } from '../src/server/load-config.js';
import { sql, trinoUrl } from './helpers.js';

const run = promisify(execFile);
export const ALL = 'key-files-all-000000000000000000000';
export const EU = 'key-files-eu-0000000000000000000000';
export const SINCE = '2026-11-01T00:00:00Z';
export const MID = '2026-11-02T12:00:00Z';
export const UNTIL = '2026-11-03T00:00:00Z';
export const all = { authorization: `Bearer ${ALL}` };
export const eu = { authorization: `Bearer ${EU}` };

export interface Listening {
  app: FastifyInstance;
  url: string;
}

/** The window's file URL on `base` (`extra`: more parameters, `&` first). */
export const fileUrl = (base: string, suffix: string, extra = '') =>
  `${base}/v1/topics/orders/events.${suffix}?since=${SINCE}&until=${UNTIL}${extra}`;

/** Trino's answers for the window: its rows, distinct keys, rows from MID on, and eu-1's rows. */
async function expectedCounts() {
  const t = (iso: string) => `TIMESTAMP '${iso.slice(0, 19).replace('T', ' ')}'`;
  const [[rows, keys, sinceMid, inEu]] = (await sql(
    `SELECT count(*), count(DISTINCT key), count_if(timestamp_broker >= ${t(MID)}), count_if(from_utf8(key) LIKE '%1') ` +
      `FROM orders WHERE timestamp_broker >= ${t(SINCE)} AND timestamp_broker < ${t(UNTIL)}`,
  )) as [[number, number, number, number]];
  return { rows: Number(rows), keys: Number(keys), sinceMid: Number(sinceMid), eu: Number(inEu) };
}

export class FileGateways {
  readonly dir = mkdtempSync(join(tmpdir(), 'topicgate-window-files-'));
  secured!: Listening;
  open!: Listening;
  expected = { rows: 0, keys: 0, sinceMid: 0, eu: 0 };

  async start(): Promise<void> {
    const config = this.configFile('a.yaml');
    this.secured = await this.listening({
      TOPICGATE_CONFIG: config,
      TOPICGATE_FILE_CACHE_DIR: join(this.dir, 'secured'),
    });
    this.open = await this.listening({ TOPICGATE_FILE_CACHE_DIR: join(this.dir, 'open') });
    this.expected = await expectedCounts();
    // The window's 8,658 rows are 9 row groups of 1,024 (env below), so a filter on time skips some.
    expect(this.expected.rows).toBeGreaterThan(8 * 1024);
    expect(this.expected.sinceMid).toBeGreaterThan(0);
    expect(this.expected.eu).toBeGreaterThan(0);
  }

  async close(): Promise<void> {
    await Promise.all([this.secured?.app.close(), this.open?.app.close()]);
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** The config file: `all-1` reads orders unless revoked; `eu-1` only rows whose key ends in 1. */
  configFile(name: string, revoked = false): string {
    const file = join(this.dir, name);
    writeFileSync(
      file,
      stringify({
        auth: {
          apiKeys: [
            { principal: 'all-1', sha256: apiKeyHash(ALL), roles: revoked ? ['nobody'] : ['analyst'] },
            { principal: 'eu-1', sha256: apiKeyHash(EU), roles: ['analyst', 'analyst-eu'] },
          ],
        },
        access: [{ roles: ['analyst'], topics: ['orders'], actions: ['read'] }],
        rowPolicies: { default: 'allow', orders: [{ roles: ['analyst-eu'], filter: 'key=like.*1' }] },
      }),
    );
    return file;
  }

  env(extra: Record<string, string>) {
    return {
      TOPICGATE_TRINO_URL: trinoUrl(),
      TOPICGATE_STATE_URL: 'sqlite::memory:',
      TOPICGATE_PORT: '0',
      TOPICGATE_LOG_LEVEL: 'silent',
      TOPICGATE_MAX_EVENT_LOOP_DELAY_MS: '0',
      TOPICGATE_CURSOR_SECRET: 'window-files-test-secret-of-32-bytes-or-more',
      TOPICGATE_FILE_ROW_GROUP_ROWS: '1024',
      ...extra,
    };
  }

  /** A gateway on a free loopback port (built as the app, without the start-up check of policies against tables). */
  async listening(e: Record<string, string>): Promise<Listening> {
    const app = await buildApp(loadConfig(this.env(e)), { logger: false });
    return { app, url: await app.listen({ host: '127.0.0.1', port: 0 }) };
  }

  /** One reader on one case, in its own Python process (the gateways share this event loop: asynchronously). */
  async readWith(c: Record<string, string | null>): Promise<Record<string, number | string | string[]>> {
    const file = join(this.dir, `case-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(file, JSON.stringify(c));
    const { stdout } = await run('python3', ['test/readers/window_files.py', file], {
      encoding: 'utf8',
      // DuckDB with its httpfs extension from PyPI (scripts/test-deps.sh installs it there).
      env: { ...process.env, PYTHONPATH: '.local/duckdb-httpfs', RUST_BACKTRACE: '0' },
    });
    const out = JSON.parse(stdout) as Record<string, number | string | string[]>;
    expect(out, JSON.stringify(c)).not.toHaveProperty('error');
    return out;
  }
}

/** A counter of the app's metrics (its first value). */
export async function metric(app: FastifyInstance, name: string): Promise<number> {
  return (await app.metrics.registry.getSingleMetric(name)?.get())?.values[0]?.value ?? 0;
}

/** Waits until `done` holds, checking every few milliseconds; fails after a minute. */
export async function until(done: () => boolean | Promise<boolean>): Promise<void> {
  for (const deadline = Date.now() + 60_000; !(await done());) {
    if (Date.now() > deadline) throw new Error('waited a minute in vain');
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** The bytes of `suffix` files the gateway has sent (every range of every response). */
async function sentBytes(app: FastifyInstance, suffix: string): Promise<number> {
  const metric = await app.metrics.registry.getSingleMetric('topicgate_file_bytes_sent_total')?.get();
  return metric?.values.find((v) => v.labels.suffix === suffix)?.value ?? 0;
}

/** The responses of a status the file routes have sent (206: a range). */
export async function responses(app: FastifyInstance, status: string): Promise<number> {
  const metric = await app.metrics.registry.getSingleMetric('topicgate_http_request_duration_seconds')?.get();
  const count = metric?.values.find(
    (v) =>
      String((v as { metricName?: string }).metricName).endsWith('_count') &&
      String(v.labels.route).endsWith('.:suffix') &&
      v.labels.status === status,
  );
  return count?.value ?? 0;
}

/** What `read` gave, the bytes of `suffix` files the gateway sent meanwhile, and in how many range responses. */
export async function counted<T>(app: FastifyInstance, suffix: string, read: () => Promise<T>) {
  const [before, ranges] = [await sentBytes(app, suffix), await responses(app, '206')];
  const out = await read();
  return { out, bytes: (await sentBytes(app, suffix)) - before, ranges: (await responses(app, '206')) - ranges };
}
