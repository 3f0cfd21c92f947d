/**
 * What Trino did for a run: its queries are found by the run's own user in system.runtime.queries (cancelled ones
 * too: a page's query is cancelled once its extra row is seen), and each one's rows read come from its query info
 * (`GET /v1/query/{id}`, queryStats.processedInputPositions). Trino keeps finished queries listed for
 * query.min-expire-age (10 minutes in scripts/local-trino.ts), so this is read right after the run.
 */
import { HttpTrino } from '../src/trino/http-trino.js';

export interface QueryStat {
  id: string;
  state: string;
  /** Epoch ms of creation and end (Trino's clock: the same machine). */
  createdMs: number;
  endMs: number;
  /** Rows the query's scans produced (the connector's output: what it read from storage, after pushdown). */
  rowsRead: number;
  /** Rows the query returned to the client. */
  rowsOut: number;
  sql: string;
}

const DONE = new Set(['FINISHED', 'FAILED']);

/** A run user: letters, digits and dashes only (it is written into SQL as a literal below). */
export function runUser(kind: string): string {
  return `bench-${kind}-${Date.now().toString(36)}`;
}

/** Queries of `user` whose text names `tableText` (the gateway's metadata look-ups left out), oldest first. */
export async function queriesOf(trinoUrl: string, user: string, tableText: string): Promise<QueryStat[]> {
  if (!/^[A-Za-z0-9-]+$/.test(user)) throw new Error(`run user ${user}: letters, digits, dashes`);
  const c = new HttpTrino({ server: trinoUrl, user: 'topicgate-bench' });
  let ids: string[] = [];
  for (let attempt = 0; attempt < 60; attempt++) {
    const r = await c.all(`SELECT query_id, state, query FROM system.runtime.queries WHERE "user" = '${user}'`);
    // Reads only: not the gateway's metadata look-ups, nor its EXPLAIN (explain=true) queries.
    const mine = r.rows.filter((row) => String(row[2]).includes(tableText) && !/^\s*EXPLAIN/i.test(String(row[2])));
    ids = mine.map((row) => String(row[0]));
    if (mine.every((row) => DONE.has(String(row[1])))) break;
    await new Promise((res) => setTimeout(res, 500));
  }
  const stats = await Promise.all(ids.map((id) => queryStat(trinoUrl, id)));
  return stats.sort((a, b) => a.createdMs - b.createdMs);
}

async function queryStat(trinoUrl: string, id: string): Promise<QueryStat> {
  const res = await fetch(`${trinoUrl}/v1/query/${encodeURIComponent(id)}`, {
    headers: { 'X-Trino-User': 'topicgate-bench' },
  });
  if (!res.ok) throw new Error(`query info ${id}: HTTP ${res.status}`);
  const info = (await res.json()) as {
    state: string;
    query: string;
    queryStats: {
      createTime: string;
      endTime?: string;
      processedInputPositions: number;
      outputPositions: number;
    };
  };
  const q = info.queryStats;
  return {
    id,
    state: info.state,
    createdMs: Date.parse(q.createTime),
    endMs: q.endTime ? Date.parse(q.endTime) : Number.NaN,
    rowsRead: q.processedInputPositions,
    rowsOut: q.outputPositions,
    sql: info.query,
  };
}
