/**
 * A page read in time slices: VAST pushes no TopN or LIMIT into the scan, so a page query bounded only
 * by the window's end reads (and sorts) every event from its anchor to that end, and paging N rows costs
 * O(N^2 / page). Here each query is bounded on both sides: the first slice starts at the anchor and is as wide as
 * the plan says (page-slicing.ts); when it runs out before the page is full, the next slice, wider by the plan's
 * growth or by what the last slice's yield says the missing rows need, asks for exactly the rows still missing.
 * Slices are adjacent whole milliseconds, so the concatenation is the same rows, in the same total order, as one
 * query over the whole rest of the window: ties and identical duplicates stay exact.
 */
import { bulkResult } from './bulk-result.js';
import type { PagePosition } from '../query/tree/page-position.js';
import type { SlicePlan } from '../query/tree/plan.js';
import type { PlannedRead } from '../query/planner.js';
import { epochOfTrinoTimestamp } from '../core/trino-timestamp.js';
import type { QueryOptions, TrinoPort } from '../trino/trino-port.js';
import type { ResultColumn, ResultStream } from '../core/result-stream.js';
import { batchLength, type RowBatch } from '../core/text-rows.js';
import { nextSliceWidth } from '../query/passes/page-slicing.js';

type Rows = RowBatch;

/** Pages the first slice of a held page asks for; the slices after it grow. */
export const HELD_PAGES = 10;

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

/** The first slice of a plan: from its start, `widen` times its planned width. */
function firstWindow(slices: SlicePlan, widen = 1): SliceWindow {
  const widthMs = Math.ceil(slices.widthMs * widen);
  return { fromMs: slices.fromMs, toMs: Math.min(slices.hi, slices.fromMs + widthMs), widthMs, first: true };
}

/** The slice after `w`, as wide as what `w` yielded says (nextSliceWidth); undefined at the window's end. */
function nextWindow(slices: SlicePlan, w: SliceWindow, got: number, missing: number): SliceWindow | undefined {
  if (w.toMs >= slices.hi) return undefined;
  const widthMs = nextSliceWidth(slices, { widthMs: w.widthMs, got, missing });
  return { fromMs: w.toMs, toMs: Math.min(slices.hi, w.toMs + widthMs), widthMs, first: false };
}

/**
 * Where a sliced read runs its queries. A result held for the next page (held-results.ts) runs its later slices
 * for the request that continues it, so that request sets its own port (its query slots), options (its signal) and
 * stats here.
 */
export interface PortRef {
  trino: TrinoPort;
  opts: QueryOptions;
  stats: SliceStats;
}

/**
 * How far a held result (held-results.ts) may be read: its first slice asks for a bounded number of rows (a first
 * slice denser than expected costs Trino a bounded top-N, not a sort of everything in it, and a reader who only
 * wants the first page waits for no more), and when it returns all it asked for it may hold more. The result stops
 * there, so its end is then not the window's end: a page continues it only while its rows up to that point are
 * enough to show whether a next page exists. The slices after it ask for every row they hold (a top-N of many rows
 * is slower in Trino than the sort of them): their width follows the density of the first.
 */
export interface Reach {
  /** Rows yielded so far. */
  yielded: number;
  /** The number of rows yielded beyond which the result's end may not be the window's end. */
  sure: number;
}

/** A result held past its page: how far it may be read. */
export interface HoldingResult extends ResultStream {
  reach: Reach;
}

/**
 * Runs `plan` (whose tree asks for limit + 1 rows) slice by slice and returns one result stream. The next slice is
 * started only when the consumer has taken every row of the previous one and still wants more. `holding`: the
 * result goes on past the page, for the next pages (held-results.ts): its first slice asks for HELD_PAGES pages
 * and is half as many times as wide, the slices after it ask for all their rows, up to the window's end (Reach).
 */
export async function slicedResult(
  ref: PortRef,
  plan: PlannedRead & { slices: SlicePlan },
  holding = false,
): Promise<HoldingResult> {
  const { slices, tree } = plan;
  const wanted = tree.limit + 1;
  // The first slice's width is learnt for one page: held, it should hold half the pages it asks for, so that
  // only a slice twice as dense as the last page stops the walk's query there.
  const widen = holding ? HELD_PAGES / 2 : 1;
  // The planner makes slices only for a window that is not empty (fromMs < hi).
  if (slices.fromMs >= slices.hi) throw new Error('a sliced read needs a window');
  let window = firstWindow(slices, widen);
  let asked = holding ? HELD_PAGES * wanted : wanted;
  // The compiler asks for one row more than `limit`: the first slice asks for the page's limit + 1 rows (held: as
  // many for ten pages), a later one for the rows still missing (held: all of them).
  const run = (w: SliceWindow, rows: number) => {
    const { stats } = ref;
    stats.queries++;
    stats.widthMs = w.widthMs;
    stats.endMs = w.toMs;
    return ref.trino.query(plan.sliceSql({ ...w, limit: rows - 1 }), ref.opts);
  };
  const first = await run(window, asked);
  const columns: readonly ResultColumn[] = first.columns;
  const reach: Reach = { yielded: 0, sure: asked };

  async function* batches(): AsyncGenerator<Rows> {
    let result = first;
    for (;;) {
      const from = reach.yielded;
      // Ended early (a page full, a client gone), for-await ends the slice's result, which cancels its query.
      for await (const batch of result.batches) {
        reach.yielded += batchLength(batch);
        yield batch;
      }
      const got = reach.yielded - from;
      if (holding) {
        // A slice that returned every row it asked for may hold more: the result stops here.
        if (got >= asked) return void (reach.sure = reach.yielded);
        asked = Infinity;
      } else asked = wanted - reach.yielded;
      // The next slice aims at the page's missing rows (held: those of the page being read, if it is not full).
      const next = asked > 0 ? nextWindow(slices, window, got, Math.max(0, wanted - reach.yielded)) : undefined;
      if (!next) return void (reach.sure = Infinity);
      window = next;
      reach.sure = reach.yielded + asked;
      result = await run(next, asked);
    }
  }
  return { queryId: first.queryId, columns, batches: batches(), reach };
}

/** The plan's result: sliced when the plan says how, one query otherwise; `holding`: past a sliced page. */
export function openResult(ref: PortRef, plan: PlannedRead, holding = false): Promise<ResultStream> {
  if (plan.bulk) return bulkResult(ref.trino, { ...plan, bulk: plan.bulk }, ref.opts);
  if (plan.slices) return slicedResult(ref, { ...plan, slices: plan.slices }, holding);
  ref.stats.queries++;
  return ref.trino.query(plan.sql(), ref.opts);
}

/**
 * The next position with the width its first slice should have: the rows this page returned came from
 * [fromMs, next anchor], so about as many come from a slice of that width (a quarter more, for the variation).
 */
export function withSliceWidth(plan: PlannedRead, next: PagePosition | null, stats: SliceStats): PagePosition | null {
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
export async function summarizeBatch(trino: TrinoPort, plan: PlannedRead, opts: QueryOptions): Promise<BatchSummary> {
  const slices = plan.slices;
  if (!slices) {
    const { rows } = await trino.all(plan.summarySql(), opts);
    return { ...summaryRow(rows), endMs: plan.position.hi! };
  }
  const total: BatchSummary = { rows: 0, last: null, trailing: 0, endMs: slices.fromMs };
  for (let w = slices.fromMs < slices.hi ? firstWindow(slices) : undefined; w;) {
    const sql = plan.summarySql({ ...w, limit: plan.tree.limit - total.rows });
    const part = summaryRow((await trino.all(sql, opts)).rows);
    // Later slices hold only later times, so the last time and its count come from the last slice with rows.
    if (part.rows > 0) Object.assign(total, { last: part.last, trailing: part.trailing });
    total.rows += part.rows;
    total.endMs = w.toMs;
    const missing = plan.tree.limit - total.rows;
    w = missing > 0 ? nextWindow(slices, w, part.rows, missing) : undefined;
  }
  return total;
}

function summaryRow(rows: unknown[][]): Omit<BatchSummary, 'endMs'> {
  const [n, last, trailing] = rows[0] as [number, string | null, number];
  return { rows: Number(n), last, trailing: Number(trailing) };
}
