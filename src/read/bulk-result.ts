/**
 * A bulk read (`limit=all`, API.md "Bulk reads"): every row of a closed window as adjacent whole-millisecond
 * slices, `concurrency` of them in flight at once. In order, a slice's rows are written only after every row of
 * the slices before it; with `order=none`, batches are written as they arrive. Either way each slice holds at most
 * the one Trino page it has fetched: the next page is asked for only when its rows are taken, so the client's
 * reading speed paces every slice (bounded buffering, flat memory).
 */
import type { BulkPlan } from '../query/tree/plan.js';
import type { PlannedRead } from '../query/planner.js';
import type { QueryOptions, TrinoPort, TrinoResult } from '../trino/trino-port.js';
import type { ResultStream } from '../core/result-stream.js';
import type { RowBatch } from '../core/text-rows.js';

type Rows = RowBatch;

/** A started slice: its query, its rows, and (in order) its first batch, asked for as soon as it starts. */
interface Slice {
  result: Promise<TrinoResult>;
  rows: Promise<AsyncIterator<Rows>>;
  head?: Promise<IteratorResult<Rows>>;
}

/** The slices of one bulk read: which have started, which have ended, and their rows in the response's order. */
class BulkSlices {
  readonly slices: Slice[] = [];
  private ended = 0;
  private newestHasRows = false;
  private readonly count: number;

  constructor(
    private readonly bulk: BulkPlan,
    private readonly start: (i: number) => Promise<TrinoResult>,
  ) {
    this.count = bulk.bounds.length - 1;
  }

  /**
   * Starts the next slice's query while fewer than `concurrency` are unfinished; false when none may start.
   * Unordered, every free slot starts one at once. In order, a slice starts only once the one before it has its
   * first rows: Trino sorts a slice before its first row, and slices started together would share the cores
   * until all are sorted, delaying the first one's rows by the others' work. Started one after the other, the
   * next slice is scanned and sorted while the one before it is being written.
   */
  startNext(): boolean {
    const { slices, bulk } = this;
    if (slices.length >= this.count || slices.length - this.ended >= bulk.concurrency) return false;
    if (bulk.ordered && slices.length > 0 && !this.newestHasRows) return false;
    const result = this.start(slices.length);
    const rows = result.then((r) => r.batches[Symbol.asyncIterator]());
    rows.catch(() => undefined); // awaited where its rows are read; a failure surfaces there
    const slice: Slice = { result, rows };
    slices.push(slice);
    this.newestHasRows = false;
    if (bulk.ordered) {
      slice.head = rows.then((it) => it.next());
      slice.head.then(
        () => {
          // This is the newest slice: the next one waits for its rows.
          this.newestHasRows = true;
          this.startNext();
        },
        () => undefined, // surfaces where the slice is read
      );
    }
    return true;
  }

  async cancelAll(): Promise<void> {
    await Promise.all(
      this.slices.map(({ result }) =>
        result.then(
          (r) => r.cancel(),
          () => undefined,
        ),
      ),
    );
  }

  async *inOrder(): AsyncGenerator<Rows> {
    for (let i = 0; i < this.count; i++) {
      const it = await this.slices[i]!.rows;
      let r = await this.slices[i]!.head!;
      try {
        for (; !r.done; r = await it.next()) yield r.value;
      } finally {
        // Stopped inside the slice: its result ends as a for-await would end it, which cancels its query.
        if (!r.done) await it.return?.();
      }
      this.ended++;
      this.startNext();
    }
  }

  async *interleaved(): AsyncGenerator<Rows> {
    type Step = { i: number; it: AsyncIterator<Rows>; r: IteratorResult<Rows> };
    const live = new Map<number, Promise<Step>>();
    const pull = (i: number, it: AsyncIterator<Rows>) => {
      const p = it.next().then((r) => ({ i, it, r }));
      p.catch(() => undefined); // raced below; a failure surfaces there
      live.set(i, p);
    };
    const open = async (i: number) => pull(i, await this.slices[i]!.rows);
    for (let i = 0; i < this.slices.length; i++) await open(i);
    while (live.size > 0) {
      const { i, it, r } = await Promise.race(live.values());
      if (r.done) {
        live.delete(i);
        this.ended++;
        if (this.startNext()) await open(this.slices.length - 1);
        continue;
      }
      pull(i, it);
      yield r.value;
    }
  }

  async *batches(): AsyncGenerator<Rows> {
    let done = false;
    try {
      yield* this.bulk.ordered ? this.inOrder() : this.interleaved();
      done = true;
    } finally {
      // Stopped early (client gone, a failure): no slice may keep running in Trino.
      if (!done) await this.cancelAll();
    }
  }
}

/** Starts a bulk read's first slices and returns its rows as one result stream. */
export async function bulkResult(
  trino: TrinoPort,
  plan: PlannedRead & { bulk: BulkPlan },
  opts: QueryOptions,
): Promise<ResultStream> {
  const bulk = new BulkSlices(plan.bulk, (i) => trino.query(plan.bulkSliceSql(i), opts));
  if (plan.bulk.ordered) bulk.startNext();
  else while (bulk.startNext());
  const first = await bulk.slices[0]!.result.catch(async (err: unknown) => {
    // The other slices already started: none may keep running in Trino.
    await bulk.cancelAll();
    throw err;
  });
  return { queryId: first.queryId, columns: first.columns, batches: bulk.batches() };
}
