/**
 * Settled windows (API.md "Caching settled windows"): a read whose window ends at or before now minus the topic's
 * settle time reads events that can no longer change, so the same request gives the same bytes and its response
 * may be cached. Decided on the window the plan resolved, after planning: a page token's pinned window, or the
 * request's own since/until. A window written relative to now (`until=-1h`, `since=-2h`, `until=now`, or no
 * `until`) names other events at every request, so such a first page is never settled, however old its end is.
 */
import { isRelativeTime } from './request/time.js';
import type { Plan } from './tree/plan.js';
import type { ReadRequest } from './tree/read-request.js';

export interface SettledQuestion {
  plan: Pick<Plan, 'position' | 'bulk'>;
  read: Pick<ReadRequest, 'since' | 'until' | 'unordered'>;
  /** A page token was presented: its window was pinned by the first page, whatever since/until say. */
  token: boolean;
  settleMs: number;
  now: number;
}

/**
 * True when the read's response is fixed: its window is absolute and ends at or before `now - settle` (`until` is
 * exclusive, so its last events are older than the settle time, as a cursor batch's are), and its rows come in
 * one order (`order=none` lets bulk slices interleave differently at every read).
 */
export function isSettledWindow(q: SettledQuestion): boolean {
  const { position, bulk } = q.plan;
  // No broker time (a plain table): nothing says when its rows stop changing.
  if (position.hi === undefined) return false;
  if (q.read.unordered || (bulk !== null && !bulk.ordered)) return false;
  if (!q.token && (q.read.until === undefined || isRelativeTime(q.read.until))) return false;
  if (!q.token && q.read.since !== undefined && isRelativeTime(q.read.since)) return false;
  return position.hi <= q.now - q.settleMs;
}
