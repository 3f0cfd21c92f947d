/**
 * The raw SQL cost of a paging run under other session properties: every query a run's pages sent is run again,
 * in the same order, through the project's Trino port, each read to its end, with `session` set. It exists because
 * Trino's PostgreSQL connector pushes TopN/LIMIT into PostgreSQL, which VAST does not: replayed with
 * `vastpg.topn_pushdown_enabled=false`, the PostgreSQL catalog reads what VAST would (range predicates pushed,
 * TopN not). The gateway cannot send that property until per-topic `topics.<t>.session` lands.
 */
import { HttpTrino } from '../src/trino/http-trino.js';
import { assign, type PageRead, type PagingRun, type Span } from './paging.js';
import { queriesOf, runUser } from './trino-stats.js';
import { batchLength } from '../src/core/text-rows.js';

async function runTimed(c: HttpTrino, sqls: string[], opts: { user: string; session: Record<string, string> }) {
  const fromMs = Date.now();
  let rows = 0;
  for (const sql of sqls) {
    const r = await c.query(sql, { ...opts, timeoutMs: 600_000 });
    for await (const batch of r.batches) rows += batchLength(batch);
  }
  return { fromMs, toMs: Date.now(), rows };
}

export async function replay(
  trinoUrl: string,
  run: PagingRun,
  session: Record<string, string>,
  tableText: string,
  log: (msg: string) => void,
): Promise<PagingRun> {
  const user = runUser(`replay-${run.catalog}`);
  const c = new HttpTrino({ server: trinoUrl, user });
  const opts = { user, session };
  const spans: Span[] = [];
  for (const [i, page] of run.pages.entries()) {
    spans.push(
      await runTimed(
        c,
        page.queries.map((q) => q.sql),
        opts,
      ),
    );
    if ((i + 1) % 20 === 0) log(`${run.catalog} replay: page ${i + 1}`);
  }
  await new Promise((r) => setTimeout(r, 1000));
  spans.push(
    await runTimed(
      c,
      run.single.queries.map((q) => q.sql),
      opts,
    ),
  );
  const reads: PageRead[] = assign(await queriesOf(trinoUrl, user, tableText), spans);
  // A replayed page reads each query to its end, so it returns the page's rows plus each query's extra row.
  return {
    catalog: `${run.catalog} (replay, ${Object.entries(session)
      .map(([k, v]) => `${k}=${v}`)
      .join(', ')})`,
    pages: reads.slice(0, -1),
    single: reads.at(-1)!,
  };
}
