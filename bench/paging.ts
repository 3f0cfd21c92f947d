/**
 * Paging vs one response: a window of about 10^6 rows read at 10,000 rows per page (following
 * the `Link: rel="next"` header) and in one response (`limit=all` once the gateway has it, else one page as large
 * as the window), timed from the first request to the last byte, with the rows Trino read for each page from its
 * query statistics. Each run has its own Trino user, so its queries are found afterwards (bench/trino-stats.ts);
 * the queries of a page are those Trino created while that page was being read.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGateway } from './gateway.js';
import { queriesOf, runUser, type QueryStat } from './trino-stats.js';
import type { Window } from './window.js';

export const PAGE_ROWS = 10_000;

export interface PageRead {
  rows: number;
  seconds: number;
  queries: QueryStat[];
  rowsRead: number;
}

export interface PagingRun {
  catalog: string;
  pages: PageRead[];
  single: PageRead;
}

/** Reads one NDJSON response; counts rows, checks the completeness mark, returns the `next` link if any. */
async function readPage(url: string): Promise<{ rows: number; next?: string }> {
  const res = await fetch(url);
  const body = await res.text();
  if (!res.ok) throw new Error(`GET ${url}: HTTP ${res.status} ${body.slice(0, 300)}`);
  if (body !== '\n' && !body.endsWith('\n\n')) throw new Error(`incomplete NDJSON page from ${url}`);
  const rows = body.split('\n').length - 2;
  const link = /<([^>]+)>;\s*rel="next"/.exec(res.headers.get('link') ?? '')?.[1];
  return { rows, ...(link ? { next: new URL(link, url).href } : {}) };
}

export interface Span {
  fromMs: number;
  toMs: number;
  rows: number;
}

const SKEW_MS = 5;

/** Gives each query to the span (read one after another) during which Trino created it. */
export function assign(queries: QueryStat[], spans: Span[]): PageRead[] {
  const owner = (q: QueryStat) => {
    let k = -1;
    for (let i = 0; i < spans.length; i++) if (spans[i]!.fromMs <= q.createdMs + SKEW_MS) k = i;
    return k >= 0 && q.createdMs <= spans[k]!.toMs + SKEW_MS ? k : -1;
  };
  const by = spans.map(() => [] as QueryStat[]);
  for (const q of queries) {
    const k = owner(q);
    if (k >= 0) by[k]!.push(q);
  }
  return spans.map((s, i) => ({
    rows: s.rows,
    seconds: (s.toMs - s.fromMs) / 1000,
    queries: by[i]!,
    rowsRead: by[i]!.reduce((n, q) => n + q.rowsRead, 0),
  }));
}

/**
 * Pages through the window, then reads it in one response, on a fresh gateway serving `catalog`.`schema`.
 * `tableText` is how the topic's table appears in the gateway's SQL (to tell its reads from metadata look-ups).
 */
export async function pagingRun(
  trinoUrl: string,
  catalog: string,
  schema: string,
  topic: string,
  w: Window,
  limitAll: boolean,
  log: (msg: string) => void,
  /** Trino session properties for the topic (`topics.<t>.session` in a config file written for this run). */
  session?: Record<string, string>,
): Promise<PagingRun> {
  const user = runUser(`paging-${catalog}`);
  const config = join(tmpdir(), `${user}.json`);
  if (session) writeFileSync(config, JSON.stringify({ topics: { [topic]: { session } } }));
  const gw = await startGateway({
    ...(session ? { TOPICGATE_CONFIG: config } : {}),
    TOPICGATE_TRINO_URL: trinoUrl,
    TOPICGATE_TRINO_USER: user,
    TOPICGATE_CATALOG: catalog,
    TOPICGATE_SCHEMAS: schema,
    TOPICGATE_MAX_LIMIT: '2000000',
    TOPICGATE_STATE_URL: 'sqlite::memory:',
    TOPICGATE_HOST: '127.0.0.1',
    TOPICGATE_PORT: '0',
    TOPICGATE_LOG_LEVEL: 'info',
  });
  const spans: Span[] = [];
  let single: Span;
  try {
    const q = new URLSearchParams({ since: w.since, until: w.until, format: 'ndjson' });
    let url: string | undefined = `${gw.url}/v1/topics/${encodeURIComponent(topic)}/events?${q}&limit=${PAGE_ROWS}`;
    while (url) {
      const fromMs = Date.now();
      const page: { rows: number; next?: string } = await readPage(url);
      spans.push({ fromMs, toMs: Date.now(), rows: page.rows });
      if (spans.length % 20 === 0) log(`${catalog} paging: page ${spans.length}, ${page.rows} rows`);
      url = page.next;
    }
    await new Promise((r) => setTimeout(r, 1000)); // cancelled page queries settle before the next span
    const fromMs = Date.now();
    const whole = await readPage(
      `${gw.url}/v1/topics/${encodeURIComponent(topic)}/events?${q}&limit=${limitAll ? 'all' : w.rows}`,
    );
    single = { fromMs, toMs: Date.now(), rows: whole.rows };
  } finally {
    await gw.stop();
    rmSync(config, { force: true });
  }
  const total = spans.reduce((n, s) => n + s.rows, 0);
  if (total !== w.rows || single.rows !== w.rows)
    throw new Error(`${catalog}: paging read ${total} rows, one response ${single.rows}; the window holds ${w.rows}`);
  const queries = await queriesOf(trinoUrl, user, `"${schema}"`);
  const reads = assign(queries, [...spans, single]);
  const label = session
    ? `${catalog} (${Object.entries(session)
        .map(([k, v]) => `${k}=${v}`)
        .join(', ')})`
    : catalog;
  return { catalog: label, pages: reads.slice(0, -1), single: reads.at(-1)! };
}
