/**
 * Where the explorer's first chart spends its time, from three sides on one clock (this machine's epoch ms, in ms
 * from the page's navigation start): the browser's (pageBreakdown: the shell, the assets, the page's marks, each API
 * call), the gateway's (each request's time from its arrival to its response's end, as fastify counts it) and
 * Trino's (each query the gateway ran for the page: queued, planning, and the whole, from system.runtime.queries).
 * Written to test-artifacts/explore-timings.json; nothing here asserts a time.
 */
import { loadavg } from 'node:os';
import type { FastifyInstance } from 'fastify';
import type { Page } from 'playwright-core';
import { sql } from '../helpers.js';
import { type PageBreakdown, type TimedRequest, pageBreakdown } from './explore-helpers.js';

/** The Trino user of the measured gateway: its queries are told apart from other tests' in system.runtime.queries. */
export const TIMING_TRINO_USER = 'topicgate-explore-timing';

interface TrinoQuery {
  query: string;
  startMs: number;
  endMs: number;
  queuedMs: number;
  planningMs: number;
}

export interface FirstChartBreakdown extends PageBreakdown {
  server: (TimedRequest & { status: number })[];
  trino: TrinoQuery[];
  /** The machine's load average (1, 5, 15 minutes) when measured. */
  loadAverage: number[];
}

/** The gateway's requests (epoch ms of arrival and end), recorded from when this is called. */
export function serverClock(app: FastifyInstance): { path: string; start: number; end: number; status: number }[] {
  const seen: { path: string; start: number; end: number; status: number }[] = [];
  app.addHook('onResponse', async (request, reply) => {
    const end = Date.now();
    seen.push({ path: request.url, start: end - reply.elapsedTime, end, status: reply.statusCode });
  });
  return seen;
}

/** Trino's queries of TIMING_TRINO_USER created in [from, to] (epoch ms). */
async function trinoQueries(from: number, to: number): Promise<TrinoQuery[]> {
  const rows = (await sql(
    `SELECT substr(query, 1, 80), to_unixtime(created) * 1000, to_unixtime("end") * 1000, queued_time_ms, planning_time_ms
     FROM system.runtime.queries WHERE "user" = '${TIMING_TRINO_USER}'
     AND created >= from_unixtime(${from / 1000}) AND created <= from_unixtime(${to / 1000}) ORDER BY created`,
  )) as [string, number, number | null, number, number][];
  return rows.map(([query, created, end, queued, planning]) => ({
    query,
    startMs: Math.round(created - from),
    endMs: end === null ? -1 : Math.round(end - from),
    queuedMs: Number(queued),
    planningMs: Number(planning),
  }));
}

/** The page's first chart, from the browser's, the gateway's and Trino's side. */
export async function firstChartBreakdown(
  page: Page,
  server: readonly { path: string; start: number; end: number; status: number }[],
): Promise<FirstChartBreakdown> {
  const b = await pageBreakdown(page);
  const until = b.origin + b.firstChartMs;
  return {
    ...b,
    server: server
      .filter((r) => r.start >= b.origin - 1 && r.start <= until)
      .map((r) => ({
        path: r.path,
        startMs: Math.round(r.start - b.origin),
        endMs: Math.round(r.end - b.origin),
        status: r.status,
      })),
    trino: await trinoQueries(b.origin, until),
    loadAverage: loadavg().map((l) => Math.round(l * 100) / 100),
  };
}
