/** Bulk reads (API.md "Bulk reads"): which requests may be one, and the slices a closed window is read in. */
import { ApiError } from '../../core/errors.js';
import { TIME_COLUMN } from '../tree/nodes.js';
import type { BulkPlan, Plan } from '../tree/plan.js';
import type { ReadRequest } from '../tree/read-request.js';
import type { TopicModel } from '../tree/topic-model.js';
import type { ParallelPolicy } from '../tree/read-policy.js';

/** The most slices a bulk read may run at once when the topic's config names no maxParallel. */
export const DEFAULT_MAX_PARALLEL = 8;

/** `limit=all`, `parallel` and `order=none` go together as API.md "Bulk reads" says; anything else is refused. */
export function checkBulkRequest(read: ReadRequest, paged: boolean): void {
  const bad = (message: string, parameter: string) => new ApiError('TG_BAD_REQUEST', message, { parameter });
  if (read.limit !== 'all') {
    if (read.parallel !== undefined) throw bad('parallel applies to limit=all reads only', 'parallel');
    if (read.unordered) throw bad('order=none applies to limit=all reads only', 'order');
    return;
  }
  if (read.until === undefined)
    throw bad('limit=all reads a closed window: add until= (and since=) so the rows are fixed', 'until');
  if (paged) throw bad('limit=all returns the whole window in one response: it takes no cursor', 'cursor');
}

/** The slices of a bulk read (`limit=all`) over a closed window; null when the read cannot be sliced. */
export function bulkPlan(
  topic: TopicModel,
  read: ReadRequest,
  p: Plan,
  policy: { parallel: ParallelPolicy },
): BulkPlan | null {
  const parallel = read.parallel ?? policy.parallel.default;
  if (!Number.isInteger(parallel) || parallel < 1)
    throw new ApiError('TG_BAD_VALUE', `parallel must be a positive integer, not ${JSON.stringify(read.parallel)}`, {
      parameter: 'parallel',
    });
  if (parallel > policy.parallel.max) {
    // Each slice is a Trino query holding one of the caller's query slots: the cap says which limit it comes from.
    const from = policy.parallel.maxFrom ?? 'maxParallel';
    throw new ApiError(
      'TG_TOO_EXPENSIVE',
      `parallel ${parallel} is above the maximum ${policy.parallel.max} (${from}); each slice is one Trino query`,
      { parameter: 'parallel', max: policy.parallel.max, limit: from },
    );
  }
  const { lo, hi } = p.position;
  const [o, ...more] = p.tree.order;
  const byTime = !o || (more.length === 0 && o.name === TIME_COLUMN && o.dir === 'asc');
  const sliceable = topic.time !== null && lo !== undefined && hi !== undefined && !p.tree.dedupe && byTime;
  const aggregate = p.tree.groupBy.length > 0 || p.tree.select.some((s) => s.kind === 'aggregate');
  if (!sliceable || aggregate) {
    // The topic's default does not refuse a read it cannot apply to: that read runs as one query.
    if (read.parallel !== undefined && read.parallel > 1) {
      throw new ApiError(
        'TG_BAD_REQUEST',
        'parallel needs since and until, rows in timestamp_broker order (or order=none), and no aggregation or dedupe',
        { parameter: 'parallel' },
      );
    }
    return null;
  }
  // N adjacent slices for parallel=N (API.md): on a catalog that cannot take the range (Trino's memory connector)
  // every slice scans the whole table, so more slices than asked would only multiply the reads.
  const count = Math.min(hi - lo, parallel);
  // Whole milliseconds: rows that tie on broker time never straddle two slices.
  const bounds = Array.from({ length: count + 1 }, (_, i) => lo + Math.floor(((hi - lo) * i) / count));
  return { time: topic.time!, bounds, concurrency: parallel, ordered: !read.unordered };
}
