/**
 * A follow, planned (API.md "Following a topic"): what a follow cannot take, where it starts, and the plan of each
 * poll. A poll is the read of the request from the follower's position (an anchor on broker time and the rows to
 * skip there, as page tokens position pages: tree/page-position.ts) to the horizon, now minus the topic's settle
 * time (and `until`), at most the topic's rows per response (`maxLimit`), planned by the one planning entry: row
 * policies, caps and the guardrail apply to every poll as to a read. With filters that are all evaluated after the
 * scan, each poll's window is at most the guardrail's width, so a follower catching up reads its backlog in steps.
 */
import { ApiError } from '../../core/errors.js';
import { plan, type PlannedRead } from '../planner.js';
import { stepsNeedTimeBound } from '../passes/residual-scan.js';
import { ceilMs } from '../passes/paging.js';
import { TIME_COLUMN } from '../tree/nodes.js';
import type { KeyFrames } from '../tree/key-frames.js';
import type { PagePosition } from '../tree/page-position.js';
import type { Caller, ReadPolicy } from '../tree/read-policy.js';
import type { ReadRequest } from '../tree/read-request.js';
import type { TopicModel } from '../tree/topic-model.js';
import { epochOfTrinoTimestamp, trinoTimestampText } from '../../core/trino-timestamp.js';
import { parseInstant } from '../request/time.js';
import { badId, type FollowPoint, type OpenedId } from './follow-ids.js';

export interface FollowRequest {
  topic: TopicModel;
  read: ReadRequest;
  policy: ReadPolicy;
  keyFrames?: KeyFrames | null;
  caller?: Caller;
  /** The topic's settle time: events older than now minus it no longer change. */
  settleMs: number;
  /** Parameters of the GET that a follow cannot take, when given. */
  cursor?: string;
  explain?: boolean;
}

/** The next poll: its plan up to `hi` (exclusive, epoch ms), at most `limit` rows. */
export interface PollPlan {
  plan: PlannedRead;
  hi: number;
  limit: number;
}

/** A poll to run, `wait` (nothing after the position has settled yet) or `done` (the position reached `until`). */
export type Poll = PollPlan | 'wait' | 'done';

function refuse(parameter: string, why: string): ApiError {
  return new ApiError('TG_BAD_REQUEST', `follow=true ${why}`, { parameter, follow: true });
}

/** Refuses what cannot follow: a table without broker time, a limit, pages, explain, another order, a dedupe. */
export function checkFollowRequest(r: Pick<FollowRequest, 'topic' | 'read' | 'cursor' | 'explain'>): void {
  const { read } = r;
  if (!r.topic.time) throw refuse('follow', `needs ${TIME_COLUMN}: ${r.topic.id} is not a topic table`);
  if (read.limit !== undefined)
    throw refuse('limit', 'streams every event of the window and then new ones: it takes no limit');
  if (read.parallel !== undefined) throw refuse('parallel', 'reads in order, one poll at a time: no parallel');
  if (r.cursor !== undefined)
    throw refuse('cursor', 'resumes from an event id (Last-Event-ID or after=), not a cursor');
  if (r.explain) throw refuse('explain', 'streams events: explain the same read without follow');
  const order = read.order ?? [];
  const timeOrder =
    order.length === 0 ||
    (order.length === 1 && order[0]!.field === TIME_COLUMN && order[0]!.dir !== 'desc' && !order[0]!.nulls);
  if (read.unordered || !timeOrder)
    throw refuse('order', `streams events in ${TIME_COLUMN} order: order can only be ${TIME_COLUMN}.asc`);
  if (read.groupBy?.length || read.dedupe) throw refuse('select', 'streams events, not aggregates or a dedupe');
}

/** Plans a follow's polls; the constructor plans its start, so every refusal comes before the response starts. */
export class FollowPlanner {
  /** Where the follow starts: the resumed id's position, else `since` (pinned) or the topic's beginning. */
  readonly start: FollowPoint;
  /** The query's hash, which its event ids carry. */
  readonly hash: string;
  /** The broker time was added to the select (the request left it out): the response leaves it out too. */
  readonly hiddenTime: boolean;
  readonly untilMs: number | undefined;
  private readonly read: ReadRequest;
  private readonly sinceMs: number | undefined;
  private readonly limit: number;

  constructor(
    private readonly r: FollowRequest,
    resumed: OpenedId | null,
    now = Date.now(),
  ) {
    checkFollowRequest(r);
    const { read } = r;
    this.sinceMs = read.since === undefined ? undefined : ceilMs(parseInstant(read.since, 'since', now));
    this.untilMs = read.until === undefined ? undefined : ceilMs(parseInstant(read.until, 'until', now));
    if (this.sinceMs !== undefined && this.untilMs !== undefined && this.untilMs <= this.sinceMs)
      throw new ApiError('TG_BAD_TIME', 'until must be after since', { parameter: 'until' });
    this.limit = r.policy.maxLimit;
    // The position of the start of the window, pinned (a relative since names another instant at every request).
    const pinned = { ts: this.sinceMs === undefined ? null : trinoTimestampText(this.sinceMs), skip: 0 };
    this.start = resumed?.point ?? pinned;
    let p = this.validate(read, now);
    this.hiddenTime = p.timeIndex === null && read.select !== undefined;
    this.read = this.hiddenTime ? { ...read, select: [...read.select!, TIME_COLUMN] } : read;
    if (this.hiddenTime) p = this.validate(this.read, now);
    const time = p.timeIndex === null ? undefined : p.tree.select[p.timeIndex];
    if (time?.kind !== 'select-column' || time.column.name !== TIME_COLUMN)
      throw refuse('select', `positions events by ${TIME_COLUMN}: no other column may be named so`);
    if (p.postDecode)
      throw refuse(
        'select',
        'cannot select, filter or order on decoded fields (value.x), nor follow under a row policy on one (the ' +
          'gateway applies those after decoding, which its polls do not): follow the whole payload, or read the ' +
          'window with since and until',
      );
    this.hash = p.position.h;
    if (resumed && resumed.h !== this.hash)
      throw badId(resumed.from, 'belongs to another query (the filters, select, since or until changed)');
  }

  /**
   * The next poll from `from` at `now`. `width`: of its first time slice (read/sliced-result.ts), learnt from the
   * poll before when that one was full; `whole` after a poll that read all there was: the few events settled since
   * are read in one query. Absent (the first poll): the read's own first guess.
   */
  poll(from: FollowPoint, now: number, width?: number | 'whole'): Poll {
    const lo = this.lo(from);
    if (this.untilMs !== undefined && lo !== undefined && lo >= this.untilMs) return 'done';
    const hi = this.horizon(lo, now);
    if (lo !== undefined && lo >= hi) return 'wait';
    const w = width === 'whole' ? (lo === undefined ? undefined : hi - lo) : width;
    return { plan: this.planAt(this.read, from, { lo, hi, w }, now), hi, limit: this.limit };
  }

  /** The start planned over a window of at least one millisecond: every refusal of the request, and its hash. */
  private validate(read: ReadRequest, now: number): PlannedRead {
    const lo = this.lo(this.start);
    return this.planAt(read, this.start, { lo, hi: Math.max(this.horizon(lo, now), (lo ?? 0) + 1) }, now);
  }

  private lo(from: FollowPoint): number | undefined {
    return from.ts !== null ? epochOfTrinoTimestamp(from.ts) : this.sinceMs;
  }

  /** Now minus settle, no later than `until`, and no wider than the guardrail allows when it must bound the read. */
  private horizon(lo: number | undefined, now: number): number {
    let hi = now - this.r.settleMs;
    if (this.untilMs !== undefined) hi = Math.min(hi, this.untilMs);
    const { topic, read, policy } = this.r;
    const g = policy.guardrail;
    return stepsNeedTimeBound(read.where, topic.source, g) && lo !== undefined ? Math.min(hi, lo + g.maxWindowMs) : hi;
  }

  private planAt(read: ReadRequest, from: FollowPoint, window: { lo?: number; hi: number; w?: number }, now: number) {
    const { lo, hi, w } = window;
    const position = (h: string): PagePosition => {
      const p: PagePosition = { h, m: 'anchor', s: from.skip, hi };
      if (lo !== undefined) p.lo = lo;
      if (from.ts !== null) p.a = from.ts;
      if (w !== undefined) p.w = Math.max(1, w);
      return p;
    };
    const { topic, keyFrames, caller, policy } = this.r;
    return plan(
      { kind: 'read', topic, read: { ...read, limit: this.limit }, token: position, keyFrames, caller },
      policy,
      now,
    );
  }
}
