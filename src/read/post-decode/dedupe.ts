/**
 * Dedupe after decoding (query/passes/post-decode-split.ts): when a filter is evaluated on decoded rows, so is the
 * dedupe, after it, so no event the filter drops (another caller's, under a row policy) is ever ranked. Rows come in
 * Trino's total order (broker time, then every column), the order Trino's own dedupe ranks by: `earliest` keeps the
 * first row of a key, `latest` the last. One row per key is held (counted against the stage's caps, rows and
 * bytes, and given back once the rows kept have gone on, in their order).
 */
import type { ResultStream } from '../../core/result-stream.js';
import { rowValues } from '../../core/text-rows.js';
import { retainedBytes } from '../retained-bytes.js';
import type { ColumnNode } from '../../query/tree/nodes.js';
import type { PostDecodeStage } from '../../query/tree/plan.js';
import type { Held } from './aggregate.js';
import type { Reading } from './evaluate.js';

type Row = readonly unknown[];
const BATCH = 1024;

/** One text per key: values of any type (bigints, bytes) written apart. */
const identity = (values: readonly unknown[]) =>
  JSON.stringify(values, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));

/** The rows `test` keeps, one per key of `dedupe`. */
export function dedupedRows(
  result: ResultStream,
  test: ((row: Row) => boolean | null) | undefined,
  read: (c: ColumnNode) => Reading,
  dedupe: NonNullable<PostDecodeStage['dedupe']>,
  held: Held,
): ResultStream {
  const keys = dedupe.by.map((c) => read(c).get);
  async function* batches() {
    try {
      const kept = new Map<string, { at: number; row: Row; bytes: number }>();
      let at = 0;
      for await (const batch of result.batches) {
        for (const row of rowValues(batch)) {
          at++;
          if (test && test(row) !== true) continue;
          const id = identity(keys.map((k) => k(row)));
          const had = kept.get(id);
          if (had && dedupe.keep === 'earliest') continue;
          const bytes = retainedBytes(row);
          // A key's later row replaces its earlier one: only what it holds beyond it is more.
          held.add(had ? 0 : 1, had ? Math.max(0, bytes - had.bytes) : bytes + retainedBytes(id));
          kept.set(id, { at, row, bytes: Math.max(bytes, had?.bytes ?? 0) });
        }
      }
      const rows = [...kept.values()].sort((a, b) => a.at - b.at).map((k) => k.row);
      for (let i = 0; i < rows.length; i += BATCH) yield rows.slice(i, i + BATCH);
    } finally {
      held.release();
    }
  }
  return { queryId: result.queryId, columns: result.columns, batches: batches() };
}
