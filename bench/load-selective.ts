/**
 * The load test's selective read: the latest 100 events of one key over a month of 10^6 events, on `vastpg` (the
 * bench topic in PostgreSQL, bench/pg-copy.ts), with TopN pushdown off as VAST has none. A gateway of its own
 * serves that catalog; a probe counts the Trino queries one such read runs (from Trino's own query list, which no
 * machine noise changes) before the timed run.
 */
import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type { HttpTrino } from '../src/trino/http-trino.js';
import type { Route } from './load-mix.js';

/** The gateway's Trino user on `vastpg`: its queries are told apart from the demo gateway's. */
export const PG_USER = 'topicgate-load-pg';
const TABLE = '"vastpg"."bench_topics"."clicks"';
/** Rows the bench copy holds (bench/data.ts EXPECTED_ROWS.clicks). */
const BENCH_ROWS = 1_001_000;
/** The month the bench's 10^6 clicks lie in (they take its first 18.5 hours). */
const MONTH = 'since=2026-11-01T00:00:00Z&until=2026-12-01T00:00:00Z';

/** The latest `limit` events of each of 50 keys (200 events each in the month), in rotation. */
export function selectivePaths(limit = 100): string[] {
  const keys = Array.from({ length: 50 }, (_, i) => `u${(i * 97) % 5000}`);
  return keys.map((k) => `/v1/topics/clicks/events?key=eq.${k}&${MONTH}&order=timestamp_broker.desc&limit=${limit}`);
}

/** The route of the selective read, on the `vastpg` gateway at `base`. */
export function selectiveRoute(base: string, rotating: (paths: readonly string[]) => Route['requests']): Route {
  return { name: 'selective read (vastpg)', weight: 0.3, base, requests: rotating(selectivePaths()) };
}

/** Throws with how to load it when the bench copy on `vastpg` is not there. */
export async function checkPgData(checker: HttpTrino): Promise<void> {
  const n = await checker.all(`SELECT count(*) FROM ${TABLE}`).then(
    (r) => Number(r.rows[0]![0]),
    () => -1,
  );
  if (n !== BENCH_ROWS) {
    throw new Error(
      `${TABLE} holds ${n} rows, not ${BENCH_ROWS}: load it with npm run bench -- --no-race --paging-rows 1000000`,
    );
  }
}

/** Starts the gateway serving `vastpg.bench_topics` on `port`, its topic config written to `dir`. */
export function startPgGateway(
  dir: string,
  port: number,
  trino: string,
  start: (env: Record<string, string>) => Promise<ChildProcess>,
): Promise<ChildProcess> {
  const config = join(dir, 'topics-pg.yaml');
  // PostgreSQL would take the ORDER BY ... LIMIT into its scan; VAST does not, so the catalog is told not to.
  writeFileSync(config, stringify({ topics: { clicks: { session: { 'vastpg.topn_pushdown_enabled': 'false' } } } }));
  return start({
    TOPICGATE_PORT: String(port),
    TOPICGATE_TRINO_URL: trino,
    TOPICGATE_TRINO_USER: PG_USER,
    TOPICGATE_CATALOG: 'vastpg',
    TOPICGATE_SCHEMAS: 'bench_topics',
    TOPICGATE_CONFIG: config,
    TOPICGATE_STATE_URL: `sqlite:${join(dir, 'load-pg.db')}`,
  });
}

/** Where a probe's reads go and how their Trino queries are told apart: the gateway's user and the table. */
export interface ProbeTarget {
  base: string;
  paths: readonly string[];
  user: string;
  /** A LIKE pattern the queries' SQL matches (their table). */
  like: string;
}

/** The selective read's target. */
export const selectiveTarget = (base: string): ProbeTarget => ({
  base,
  paths: selectivePaths(),
  user: PG_USER,
  like: '%bench_topics%clicks%',
});

/** Ids of the Trino queries of `t` created since `from` (unaffected by older queries leaving Trino's list). */
async function queriesSince(checker: HttpTrino, t: ProbeTarget, from: Date): Promise<string[]> {
  const { rows } = await checker.all(
    `SELECT query_id FROM system.runtime.queries WHERE "user" = '${t.user}' AND query LIKE '${t.like}' ` +
      `AND query NOT LIKE '%information_schema%' AND created >= from_iso8601_timestamp('${from.toISOString()}')`,
  );
  return rows.map((r) => String(r[0]));
}

/** Rows the scans of query `id` read, from Trino's statistics of it. */
async function rowsRead(trino: string, user: string, id: string): Promise<number> {
  const res = await fetch(`${trino}/v1/query/${id}`, { headers: { 'X-Trino-User': user } });
  const info = (await res.json()) as { queryStats?: { processedInputPositions?: number } };
  return info.queryStats?.processedInputPositions ?? 0;
}

/** What one read costs alone: Trino queries per read (min and max), rows its scans read, its latency, ms. */
export interface SelectiveProbe {
  reads: number;
  queriesMin: number;
  queriesMax: number;
  rowsPerRead: number;
  /** The most rows Trino's scans read for one read (all its queries). */
  scannedMax: number;
  latencyMs: number[];
}

/** Runs `reads` reads of `t` one after another, counting each one's Trino queries. */
export async function probeReads(
  t: ProbeTarget,
  checker: HttpTrino,
  trino: string,
  reads = 10,
): Promise<SelectiveProbe> {
  const { base, paths } = t;
  const probe: SelectiveProbe = {
    reads,
    queriesMin: Infinity,
    queriesMax: 0,
    rowsPerRead: 0,
    scannedMax: 0,
    latencyMs: [],
  };
  for (let i = 0; i < reads; i++) {
    const from = new Date();
    const t0 = performance.now();
    const res = await fetch(base + paths[i % paths.length]!);
    const body = (await res.json()) as { rows?: unknown[] };
    probe.latencyMs.push(performance.now() - t0);
    if (!res.ok) throw new Error(`probe read: ${res.status} ${JSON.stringify(body)}`);
    probe.rowsPerRead = body.rows?.length ?? 0;
    const ids = await queriesSince(checker, t, from);
    probe.queriesMin = Math.min(probe.queriesMin, ids.length);
    probe.queriesMax = Math.max(probe.queriesMax, ids.length);
    const scanned = await Promise.all(ids.map((id) => rowsRead(trino, t.user, id)));
    probe.scannedMax = Math.max(
      probe.scannedMax,
      scanned.reduce((a, b) => a + b, 0),
    );
  }
  return probe;
}
