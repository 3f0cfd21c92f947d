/**
 * The rate chart's series: the aggregation's rows (one per non-empty bucket, `bucket` as ISO-8601 and `n`) spread
 * over every bucket of the window, empty ones as 0, so the chart and its table show gaps as gaps.
 */
export interface RateSeries {
  /** Bucket starts, ms since the epoch. */
  starts: number[];
  counts: number[];
  total: number;
}

/** A bucket's start: epoch-aligned, as the API's `{"bucket": ...}` groups. */
export function bucketStart(ms: number, bucketMs: number): number {
  return Math.floor(ms / bucketMs) * bucketMs;
}

export function rateSeries(
  rows: readonly { bucket: string; n: number }[],
  window: { from: number; to: number },
  bucketMs: number,
): RateSeries {
  const byStart = new Map<number, number>();
  for (const r of rows) byStart.set(Date.parse(r.bucket), Number(r.n));
  const starts: number[] = [];
  const counts: number[] = [];
  let total = 0;
  for (let t = bucketStart(window.from, bucketMs); t < window.to; t += bucketMs) {
    const n = byStart.get(t) ?? 0;
    starts.push(t);
    counts.push(n);
    total += n;
  }
  return { starts, counts, total };
}
