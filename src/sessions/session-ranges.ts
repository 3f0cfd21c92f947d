/**
 * A session's window cut into streams, for any entrance that makes sessions (the HTTP route, Flight SQL's
 * partitioned FlightInfo): the stream count checked against `limits.maxSessionStreams`, the rows counted per time
 * bucket in one query (query/passes/session-split.ts), and the cuts put where the counts reach each stream's share.
 */
import type { Config } from '../config/config.js';
import { ApiError } from '../core/errors.js';
import { epochOfTrinoTimestamp } from '../core/trino-timestamp.js';
import { countBucketMs, defaultStreams, splitWindow, type StreamRange } from '../query/passes/session-split.js';
import type { PlannedRead } from '../query/planner.js';
import type { TrinoPort } from '../trino/trino-port.js';

/** The streams a request may ask for: at most `limits.maxSessionStreams`, named when exceeded; returns that max. */
export function checkStreamCount(config: Pick<Config, 'limits'>, streams: number | undefined): number {
  const max = config.limits.maxSessionStreams;
  if (streams !== undefined && streams > max) {
    throw new ApiError(
      'TG_TOO_EXPENSIVE',
      `streams ${streams} is above the maximum ${max} (limits.maxSessionStreams)`,
      { parameter: 'streams', max, limit: 'limits.maxSessionStreams' },
    );
  }
  return max;
}

/** How to cut: counted (by the rows per bucket) or not (equal widths), into `streams` or as many as the rows want. */
export interface RangeOptions {
  counted: boolean;
  streams: number | undefined;
  max: number;
  /** The caller's Trino port (the count query takes the caller's query slot) and its time-out. */
  trino: Pick<TrinoPort, 'all'>;
  timeoutMs: number;
}

/**
 * The window of a planned bulk read cut into streams: by the rows counted per time bucket in one query when
 * `counted`, else into equal widths (one stream unless the request asks for more).
 */
export async function sessionRanges(planned: PlannedRead, o: RangeOptions): Promise<StreamRange[]> {
  const { lo, hi } = planned.position;
  if (!planned.bulk || lo === undefined || hi === undefined)
    throw new ApiError('TG_BAD_REQUEST', 'this topic cannot be split by broker time', { parameter: 'topic' });
  const widthMs = countBucketMs(lo, hi);
  if (!o.counted) return splitWindow({ lo, hi }, widthMs, [], o.streams ?? 1);
  const result = await o.trino.all(planned.bucketCountSql(widthMs), { ...planned.run, timeoutMs: o.timeoutMs });
  const counts = result.rows.map(([b, n]) => ({ startMs: epochOfTrinoTimestamp(String(b)), rows: Number(n) }));
  const total = counts.reduce((a, c) => a + c.rows, 0);
  return splitWindow({ lo, hi }, widthMs, counts, o.streams ?? defaultStreams(total, o.max));
}
