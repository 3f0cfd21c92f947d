/**
 * A follower's poll loop (API.md "Following a topic"): from its position, each poll reads what has settled since
 * (query/follow/follow-plan.ts plans it), passes the rows on with the position right after each, and moves the
 * position to the poll's horizon once it has read all there was; a full poll is followed at once by the next, any
 * other after the poll interval. Each poll runs on a fork of the request's Trino port, so it holds one of the
 * caller's query slots only while it runs, and its query is cancelled when the client goes away (the request's
 * signal) or stops taking the rows (the generator is closed). No poll starts while the client has not taken what
 * was written before it (`drained`): a slow client is never read ahead of.
 */
import { ApiError } from '../../core/errors.js';
import type { ResultColumn } from '../../core/result-stream.js';
import { rowValues, type Row } from '../../core/text-rows.js';
import type { FollowPoint } from '../../query/follow/follow-ids.js';
import type { Poll, PollPlan } from '../../query/follow/follow-plan.js';
import type { PlannedRead } from '../../query/planner.js';
import { trinoTimestampText } from '../../core/trino-timestamp.js';
import { TIME_COLUMN } from '../../query/tree/nodes.js';
import type { PagePosition } from '../../query/tree/page-position.js';
import type { Page } from '../open-page.js';
import type { RequestTrino } from '../request-trino.js';

/** What the loop hands on: rows with the position after each, or a position reached without rows. */
export type FollowItem =
  | { kind: 'rows'; columns: readonly ResultColumn[]; rows: readonly Row[]; points: readonly FollowPoint[] }
  | { kind: 'horizon'; point: FollowPoint };

export interface FollowLoopOptions {
  start: FollowPoint;
  /** The next poll (query/follow/follow-plan.ts FollowPlanner.poll), once the caller may still follow. */
  poll(from: FollowPoint, now: number, width?: number | 'whole'): Poll | Promise<Poll>;
  /** Opens a poll's page (read/open-page.ts) on `trino`, the poll's own port. */
  open(plan: PlannedRead, trino: RequestTrino): Promise<Page>;
  /** The request's port: each poll runs on a fork of it. */
  trino: RequestTrino;
  pollMs: number;
  /** The response has sent everything written so far (nothing queued in the process). */
  drained(): boolean;
  /** The broker time was added to the select for the positions: it is left out of the rows handed on. */
  hiddenTime: boolean;
  /** Aborted when the client goes away. */
  signal: AbortSignal;
  now?: () => number;
  /** A poll found the caller's query slots all taken (429): it is tried again at the next interval. */
  onBusy?(err: ApiError): void;
}

/** What a poll left: the position after it, and how the next one reads. */
interface PollEnd {
  at: FollowPoint;
  /** The poll stopped at its row limit: more has settled, so the next poll runs at once. */
  full: boolean;
  width?: number | 'whole';
}

/** The follower's items, from `start` until the client leaves (or `until` is reached). */
export async function* followLoop(o: FollowLoopOptions): AsyncGenerator<FollowItem, void, undefined> {
  const now = o.now ?? Date.now;
  let at = o.start;
  let width: number | 'whole' | undefined;
  yield { kind: 'horizon', point: at };
  while (!o.signal.aborted) {
    while (!o.drained() && !o.signal.aborted) await pause(o.pollMs, o.signal);
    if (o.signal.aborted) return;
    const poll = await o.poll(at, now(), width);
    if (poll === 'done') return;
    let full = false;
    if (poll !== 'wait') {
      const end = yield* readPoll(o, poll, at);
      full = end.full;
      width = end.width ?? width;
      if (!samePoint(end.at, at) && !full && end.width === 'whole') yield { kind: 'horizon', point: end.at };
      at = end.at;
    }
    if (!full) await pause(o.pollMs, o.signal);
  }
}

/** One poll: its rows as items, and where it leaves the follower. */
async function* readPoll(o: FollowLoopOptions, poll: PollPlan, from: FollowPoint): AsyncGenerator<FollowItem, PollEnd> {
  const lease = o.trino.fork();
  let at = from;
  // The page's end says whether it stopped at its limit (a next page) and how wide its next slice should be.
  const ended: { next?: PagePosition | null } = {};
  try {
    const page = await o.open(poll.plan, lease);
    const shown = page.body((end) => void (ended.next = end.next()));
    const t = shown.columns.map((c) => c.name).lastIndexOf(TIME_COLUMN);
    const columns = o.hiddenTime ? shown.columns.filter((_, i) => i !== t) : shown.columns;
    for await (const batch of shown.batches) {
      const rows = rowValues(batch);
      if (rows.length === 0) continue;
      const points: FollowPoint[] = new Array(rows.length);
      for (let i = 0; i < rows.length; i++) {
        const ts = rows[i]![t] as string;
        at = ts === at.ts ? { ts, skip: at.skip + 1 } : { ts, skip: 1 };
        points[i] = at;
      }
      yield { kind: 'rows', columns, rows: o.hiddenTime ? rows.map((r) => r.filter((_, i) => i !== t)) : rows, points };
    }
  } catch (err) {
    // The caller's other queries hold every slot: this poll waits for the next interval, the follower stays.
    if (!(err instanceof ApiError && err.code === 'TG_TOO_MANY_REQUESTS') || o.signal.aborted) throw err;
    o.onBusy?.(err);
    return { at, full: false };
  } finally {
    lease.end();
  }
  if (ended.next) return { at, full: true, width: ended.next.w };
  // Everything before the horizon is read: the position moves there, past the events of no one's interest.
  return { at: { ts: trinoTimestampText(poll.hi), skip: 0 }, full: false, width: 'whole' };
}

function samePoint(a: FollowPoint, b: FollowPoint): boolean {
  return a.ts === b.ts && a.skip === b.skip;
}

/** Resolves after `ms`, or at once when `signal` aborts. */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
