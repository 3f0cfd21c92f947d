/**
 * Conditions on broker time that are the body's window: `timestamp_broker >= t` is `since` (inclusive) and
 * `timestamp_broker < t` is `until` (exclusive), when they are conditions of the top-level AND and `t` is a time the
 * window takes at its precision (milliseconds; ISO-8601 or relative). The time guardrail, read sessions and bulk
 * partitions read the window, so the SQL bounds they need are found there. Anything else stays in `where`, which
 * means the same.
 */
import { ApiError } from '../../core/errors.js';
import { isRelativeTime, parseInstant } from '../request/time.js';
import type { Where } from '../request/where-schema.js';

const TIME = 'timestamp_broker';

export interface TimeBounds {
  where: Where | undefined;
  since?: string;
  until?: string;
}

/** True when the text is a time the window takes as it is: no digits finer than a millisecond. */
function windowTime(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  try {
    return parseInstant(value, 'since').subMs === '';
  } catch (err) {
    if (err instanceof ApiError) return false;
    throw err;
  }
}

/**
 * `where` with its top-level `>=` and `<` conditions on broker time moved to since and until (the first of each). An
 * until not after since stays a condition: the window would refuse it, where SQL reads no row.
 */
export function timeBounds(where: Where | undefined): TimeBounds {
  if (!where) return { where };
  const conjuncts = 'and' in where ? where.and : [where];
  const bound = (op: string) =>
    conjuncts.find((w) => 'field' in w && w.field === TIME && w.op === op && windowTime(w.value)) as
      { value: string } | undefined;
  const since = bound('gte');
  let until = bound('lt');
  if (since && until && !isRelativeTime(since.value) && !isRelativeTime(until.value)) {
    if (parseInstant(until.value, 'until').epochMs <= parseInstant(since.value, 'since').epochMs) until = undefined;
  }
  const kept = conjuncts.filter((w) => w !== since && w !== until);
  const out: TimeBounds = { where: kept.length === 0 ? undefined : kept.length === 1 ? kept[0] : { and: kept } };
  if (since) out.since = since.value;
  if (until) out.until = until.value;
  return out;
}
