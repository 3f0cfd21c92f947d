/**
 * A bulk read (`limit=all`, API.md "Bulk reads"): every row of a closed window as adjacent whole-millisecond
 * slices, `concurrency` of them in flight at once. In order, a slice's rows are written only after every row of
 * the slices before it; with `order=none`, batches are written as they arrive. Either way each slice holds at most
 * the one Trino page it has fetched: the next page is asked for only when its rows are taken, so the client's
 * reading speed paces every slice (bounded buffering, flat memory).
 */
import { compileQuery } from '../query/compile.js';
import { applySlice } from '../query/passes.js';
import type { BulkPlan, Plan } from '../query/plan.js';
import type { QueryOptions, TrinoPort, TrinoResult } from '../trino/trino-port.js';
import type { ResultStream } from '../trino/result-stream.js';

type Rows = readonly (readonly unknown[])[];

export async function bulkResult(
  trino: TrinoPort,
  plan: Plan & { bulk: BulkPlan },
  opts: QueryOptions,
): Promise<ResultStream> {
  const { bulk, tree } = plan;
  const count = bulk.bounds.length - 1;
  const start = (i: number): Promise<TrinoResult> => {
    const sliced = applySlice(tree, bulk.time, {
      fromMs: bulk.bounds[i],
      toMs: bulk.bounds[i + 1]!,
      limit: Infinity,
      first: false,
    });
    return trino.query(compileQuery(sliced), opts);
  };
  // Every slice query started, by slice: the first `concurrency` start now, each later one when a slice ends.
  const started: Promise<TrinoResult>[] = [];
  /** Starts the next slice's query; false when every slice has started. */
  const startNext = (): boolean => {
    if (started.length >= count) return false;
    const p = start(started.length);
    p.catch(() => undefined); // awaited where its rows are read; a failure surfaces there
    started.push(p);
    return true;
  };
  for (let k = 0; k < bulk.concurrency; k++) startNext();
  const first = await started[0]!.catch(async (err: unknown) => {
    // The other slices already started: none may keep running in Trino.
    await cancelAll();
    throw err;
  });

  async function cancelAll() {
    await Promise.all(
      started.map((p) =>
        p.then(
          (r) => r.cancel(),
          () => undefined,
        ),
      ),
    );
  }

  async function* inOrder(): AsyncGenerator<Rows> {
    for (let i = 0; i < count; i++) {
      const result = await started[i]!;
      yield* result.batches;
      startNext();
    }
  }

  async function* interleaved(): AsyncGenerator<Rows> {
    type Step = { i: number; it: AsyncIterator<Rows>; r: IteratorResult<Rows> };
    const live = new Map<number, Promise<Step>>();
    const pull = (i: number, it: AsyncIterator<Rows>) => {
      const p = it.next().then((r) => ({ i, it, r }));
      p.catch(() => undefined); // raced below; a failure surfaces there
      live.set(i, p);
    };
    const open = async (i: number) => pull(i, (await started[i]!).batches[Symbol.asyncIterator]());
    for (let i = 0; i < started.length; i++) await open(i);
    while (live.size > 0) {
      const { i, it, r } = await Promise.race(live.values());
      if (r.done) {
        live.delete(i);
        if (startNext()) await open(started.length - 1);
        continue;
      }
      pull(i, it);
      yield r.value;
    }
  }

  async function* batches(): AsyncGenerator<Rows> {
    let done = false;
    try {
      yield* bulk.ordered ? inOrder() : interleaved();
      done = true;
    } finally {
      // Stopped early (client gone, a failure): no slice may keep running in Trino.
      if (!done) await cancelAll();
    }
  }
  return { queryId: first.queryId, columns: first.columns, batches: batches() };
}
