/** The one aggregation behind a rate chart or sparkline: `count` per time bucket over the window, with the filters. */
import { rateSeries, type RateSeries } from '../model/rate-series.js';
import { bucketFor, type TimeWindow } from '../model/time-window.js';
import { postJson, topicPath } from './api.js';

export interface Rate {
  series: RateSeries;
  bucket: { text: string; ms: number };
}

export async function loadRate(
  topic: string,
  window: TimeWindow,
  resolved: { from: number; to: number },
  where: unknown,
  opts: { maxBuckets?: number; signal?: AbortSignal } = {},
): Promise<Rate> {
  const bucket = bucketFor(resolved.to - resolved.from, opts.maxBuckets);
  const body = {
    // The bucket comes with its group key (`as`); select names the aggregate alone.
    select: [{ fn: 'count', as: 'n' }],
    groupBy: [{ bucket: bucket.text, as: 'bucket' }],
    order: [{ field: 'bucket', dir: 'asc' }],
    since: window.since,
    until: window.until,
    limit: 10_000,
    ...(where === undefined ? {} : { where }),
  };
  const res = await postJson<{ rows: { bucket: string; n: number }[] }>(topicPath(topic, '/query'), body, opts.signal);
  return { series: rateSeries(res.rows, resolved, bucket.ms), bucket };
}
