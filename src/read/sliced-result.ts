/**
 * A page read in time slices (issue 12): VAST pushes no TopN or LIMIT into the scan, so a page query bounded only
 * by the window's end reads (and sorts) every event from its anchor to that end, and paging N rows costs
 * O(N^2 / page). Here each query is bounded on both sides: the first slice starts at the anchor and is as wide as
 * the rows per millisecond seen so far suggest; when it runs out before the page is full, the next slice (twice as
 * wide) asks for exactly the rows still missing. Slices are adjacent whole milliseconds, so the concatenation is
 * the same rows, in the same total order, as one query over the whole rest of the window: ties and identical
 * duplicates stay exact.
 */
import { compileQuery, compileTailSummary } from '../query/compile.js';
import { bulkResult } from './bulk-result.js';
import { applySlice } from '../query/passes.js';
import type { ColumnNode } from '../query/nodes.js';
import type { PagePosition } from '../query/paging.js';
import type { Plan, SlicePlan } from '../query/plan.js';
import { epochOfTrinoTimestamp } from '../query/time.js';
import type { QueryOptions, TrinoPort } from '../trino/trino-port.js';
import type { ResultColumn, ResultStream } from '../trino/result-stream.js';

type Rows = readonly (readonly unknown[])[];

/** What a sliced read learnt: how wide the slices were, and how many queries it ran. */
export interface SliceStats {
  queries: number;
  /** Width of the last slice read, ms. */
  widthMs: number;
  /** End (exclusive, epoch ms) of the last slice read. */
  endMs: number;
}

/** One slice of a sliced read: [fromMs, toMs), the first one starting at the anchor (and skipping within it). */
interface SliceWindow {
  fromMs: number;
  toMs: number;
  widthMs: number;
  first: boolean;
}

/** The adjacent slices of a plan, each `growth` times wider than the one before, up to the window's end. */
function* sliceWindows(slices: SlicePlan): Generator<SliceWindow> {
  let widthMs = slices.widthMs;
  for (let fromMs = slices.fromMs, first = true; fromMs < slices.hi; first = false) {
    const toMs = Math.min(slices.hi, fromMs + widthMs);
    yield { fromMs, toMs, widthMs, first };
    fromMs = toMs;
    widthMs *= slices.growth;
  }
}

/**
 * Runs `plan` (whose tree asks for limit + 1 rows) slice by slice and returns one result stream. The next slice is
 * started only when the consumer has taken every row of the previous one and still wants more. `extra`: rows to
 * read past the page for the pages after it (read-ahead.ts).
 */
export async function slicedResult(
  trino: TrinoPort,
  plan: Plan & { slices: SlicePlan },
  opts: QueryOptions,
  stats: SliceStats,
  extra = 0,
): Promise<ResultStream> {
  const { slices, tree } = plan;
  const wanted = tree.limit + 1 + extra;
  // The first slice's width is learnt for one page: reading ahead, it is as many times wider as rows are asked for.
  const windows = sliceWindows(
    extra > 0 ? { ...slices, widthMs: Math.ceil((slices.widthMs * wanted) / (tree.limit + 1)) } : slices,
  );
  // The compiler asks for one row more than `limit`: the first slice asks for the page's limit + 1 rows, a later
  // one for the rows still missing.
  const run = (w: SliceWindow, rows: number) => {
    stats.queries++;
    stats.widthMs = w.widthMs;
    stats.endMs = w.toMs;
    return trino.query(compileQuery(applySlice(tree, slices.time, { ...w, limit: rows - 1 })), opts);
  };
  const firstWindow = windows.next();
  // The planner makes slices only for a window that is not empty (fromMs < hi).
  if (firstWindow.done) throw new Error('a sliced read needs a window');
  const first = await run(firstWindow.value, wanted);
  const columns: readonly ResultColumn[] = first.columns;

  async function* batches(): AsyncGenerator<Rows> {
    let seen = 0;
    let result = first;
    for (;;) {
      for await (const batch of result.batches) {
        seen += batch.length;
        yield batch;
      }
      const next = seen < wanted ? windows.next() : undefined;
      if (!next || next.done) return;
      result = await run(next.value, wanted - seen);
    }
  }
  return { queryId: first.queryId, columns, batches: batches() };
}

/** The plan's result: sliced when the plan says how, one query otherwise; `extra` rows past a sliced page. */
export function openResult(
  trino: TrinoPort,
  plan: Plan,
  opts: QueryOptions,
  stats: SliceStats,
  extra = 0,
): Promise<ResultStream> {
  if (plan.bulk) return bulkResult(trino, { ...plan, bulk: plan.bulk }, opts);
  if (plan.slices) return slicedResult(trino, { ...plan, slices: plan.slices }, opts, stats, extra);
  stats.queries++;
  return trino.query(compileQuery(plan.tree), opts);
}

/**
 * The next position with the width its first slice should have: the rows this page returned came from
 * [fromMs, next anchor], so about as many come from a slice of that width (a quarter more, for the variation).
 */
export function withSliceWidth(plan: Plan, next: PagePosition | null, stats: SliceStats): PagePosition | null {
  if (!next || !plan.slices || next.loose || next.a === undefined) return next;
  if (next.a === plan.position.a) return { ...next, w: Math.max(1, stats.widthMs) };
  const span = epochOfTrinoTimestamp(next.a) - plan.slices.fromMs + 1;
  return { ...next, w: Math.max(1, Math.ceil(span * 1.25)) };
}

/** What a batch holds, summarised before its rows are sent: count, last broker time, rows at that time. */
export interface BatchSummary {
  rows: number;
  last: string | null;
  trailing: number;
  /** The end (exclusive, epoch ms) of the last slice the batch reads: its rows all lie before it. */
  endMs: number;
}

/**
 * Summarises the first `limit` rows of a batch plan slice by slice (the same slices as its read), so a loader's
 * batch costs about its own rows even when the backlog behind it is long.
 */
export async function summarizeBatch(
  trino: TrinoPort,
  plan: Plan,
  time: ColumnNode,
  opts: QueryOptions,
): Promise<BatchSummary> {
  const slices = plan.slices;
  if (!slices) {
    const { rows } = await trino.all(compileTailSummary(plan.tree, time), opts);
    return { ...summaryRow(rows), endMs: plan.position.hi! };
  }
  const total: BatchSummary = { rows: 0, last: null, trailing: 0, endMs: slices.fromMs };
  for (const w of sliceWindows(slices)) {
    if (total.rows >= plan.tree.limit) break;
    const tree = applySlice(plan.tree, time, { ...w, limit: plan.tree.limit - total.rows });
    const part = summaryRow((await trino.all(compileTailSummary(tree, time), opts)).rows);
    // Later slices hold only later times, so the last time and its count come from the last slice with rows.
    if (part.rows > 0) Object.assign(total, { last: part.last, trailing: part.trailing });
    total.rows += part.rows;
    total.endMs = w.toMs;
  }
  return total;
}

function summaryRow(rows: unknown[][]): Omit<BatchSummary, 'endMs'> {
  const [n, last, trailing] = rows[0] as [number, string | null, number];
  return { rows: Number(n), last, trailing: Number(trailing) };
}
