/**
 * The one planning entry (issue 9): every read the gateway runs, whatever route asks for it (events, query,
 * explain, schema inference, cursor batches and cursor lag), is planned here, and every policy pass runs here in
 * one fixed order: the request's tree (planRead: names resolved, limit, time window, paging, and the
 * caller's row scope (issue 10: its row-policy filter ANDed to the request's, page tokens bound to it), then the
 * residual-scan guardrail, which judges the request's own filters only (a pushable row filter does not let a
 * residual-only request through). Routes parse and respond; they decide nothing. ReadPolicy.rows is required, so
 * no read path can plan without the caller's scope.
 */
import { ApiError } from '../errors.js';
import type { Config } from '../config.js';
import { checkResidualScan, residualOnly, type GuardrailPolicy, type LimitPolicy, type RowScope } from './passes.js';
import type { PagePosition } from './paging.js';
import { TIME_COLUMN } from './nodes.js';
import { planRead, type BulkPlan, type Plan, type ReadRequest, type TopicModel } from './plan.js';
import { epochOfTrinoTimestamp, parseInstant, trinoTimestampText } from './time.js';

/** What a caller may read on one topic: every cap a request can hit, in one value built from the settings. */
export interface ReadPolicy extends LimitPolicy {
  /** The caller's row policies (issue 10): required, so no read path can plan without them. */
  rows: RowScope;
  /** Events in a cursor batch when the loader names no limit. */
  batchDefaultLimit: number;
  guardrail: GuardrailPolicy;
  /** Bulk reads: slices read at once when the request names none, and the most it may name. */
  parallel: { default: number; max: number };
  infer: { defaultSample: number; maxSample: number; defaultWindowMs: number; maxWindowMs: number };
}

/** A cursor's position: all events before `ts` consumed, plus the first `skip` at `ts` (null: the beginning). */
export interface BatchPosition {
  ts: string | null;
  skip: number;
}

export type PlanRequest =
  /** Events or an aggregation, GET or POST; `token` decodes the page cursor for this query's hash. */
  | {
      kind: 'read';
      topic: TopicModel;
      read: ReadRequest;
      token: ((h: string) => PagePosition) | null;
      /** Explain: a refusal by the guardrail is reported in the plan instead of thrown. */
      explain?: boolean;
    }
  /** Payloads sampled for schema inference: any `sample` events of the window, no order. */
  | { kind: 'sample'; topic: TopicModel; since?: string; until?: string; sample?: number }
  /**
   * A cursor batch after `from`, before `untilMs` (now minus settle). `limit` is what the loader asked for;
   * `pendingLimit` is the limit of an uncommitted batch being handed out again (already checked when issued).
   */
  | {
      kind: 'batch';
      topic: TopicModel;
      read: ReadRequest;
      from: BatchPosition;
      untilMs: number;
      limit?: number | 'all';
      pendingLimit?: number | 'all';
    };

export interface PlannedRead extends Plan {
  /** Explain only: the refusal the guardrail would give this query. */
  refused?: ApiError;
}

/**
 * The policy of a topic for one caller: the caps from the settings (per-topic settings override the gateway's)
 * and the caller's row scope.
 */
export function readPolicy(config: Config, topicId: string, rows: RowScope): ReadPolicy {
  const topic = config.topics[topicId];
  const maxLimit = topic?.maxLimit ?? config.maxLimit;
  return {
    rows,
    defaultLimit: Math.min(config.defaultLimit, maxLimit),
    maxLimit,
    batchDefaultLimit: Math.min(10_000, maxLimit),
    parallel: { default: topic?.parallel ?? 1, max: topic?.maxParallel ?? DEFAULT_MAX_PARALLEL },
    guardrail: {
      maxWindowMs: config.residualScanMaxWindowMs,
      allowFullScan: topic?.allowFullScan === true,
      complexPredicates: config.complexPushdown,
    },
    infer: {
      defaultSample: Math.min(1000, config.inferMaxSample),
      maxSample: config.inferMaxSample,
      defaultWindowMs: Math.min(86_400_000, config.inferMaxWindowMs),
      maxWindowMs: config.inferMaxWindowMs,
    },
  };
}

/** Plans one read; throws the ApiError of the first pass that refuses it. */
export function plan(request: PlanRequest, policy: ReadPolicy, now = Date.now()): PlannedRead {
  switch (request.kind) {
    case 'read':
      return planEvents(request, policy, now);
    case 'sample':
      return planSample(request, policy, now);
    case 'batch':
      return planBatch(request, policy);
  }
}

function planEvents(r: Extract<PlanRequest, { kind: 'read' }>, policy: ReadPolicy, now: number): PlannedRead {
  checkBulkRequest(r.read, r.token !== null);
  const planned = planRead(r.topic, r.read, policy, r.token, now);
  const p = r.read.limit === 'all' ? { ...planned, bulk: bulkPlan(r.topic, r.read, planned, policy) } : planned;
  const guard = () =>
    checkResidualScan(p.tree, p.userWhere, { lo: p.position.lo, hi: p.position.hi }, policy.guardrail);
  if (!r.explain) {
    guard();
    return p;
  }
  // Explain shows what a query costs, including one the guardrail would refuse (and says so).
  try {
    guard();
    return p;
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    return { ...p, refused: err };
  }
}

/** Slices of a bulk read when `parallel` is 1: enough that Trino sorts bounded parts, not the whole window. */
const SEQUENTIAL_SLICES = 16;
const DEFAULT_MAX_PARALLEL = 8;

/** `limit=all`, `parallel` and `order=none` go together as API.md "Bulk reads" says; anything else is refused. */
function checkBulkRequest(read: ReadRequest, paged: boolean): void {
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

function bulkPlan(topic: TopicModel, read: ReadRequest, p: Plan, policy: ReadPolicy): BulkPlan | null {
  const parallel = read.parallel ?? policy.parallel.default;
  if (!Number.isInteger(parallel) || parallel < 1)
    throw new ApiError('TG_BAD_VALUE', `parallel must be a positive integer, not ${JSON.stringify(read.parallel)}`, {
      parameter: 'parallel',
    });
  if (parallel > policy.parallel.max) {
    throw new ApiError('TG_TOO_EXPENSIVE', `parallel ${parallel} is above the maximum ${policy.parallel.max}`, {
      parameter: 'parallel',
      max: policy.parallel.max,
    });
  }
  const { lo, hi } = p.position;
  const [o, ...more] = p.tree.order;
  const byTime = !o || (more.length === 0 && o.name === TIME_COLUMN && o.dir === 'asc');
  const sliceable = topic.time !== null && lo !== undefined && hi !== undefined && !p.tree.dedupe && byTime;
  const aggregate = p.tree.groupBy.length > 0 || p.tree.select.some((s) => s.kind === 'aggregate');
  if (!sliceable || aggregate) {
    if (parallel > 1) {
      throw new ApiError(
        'TG_BAD_REQUEST',
        'parallel needs since and until, rows in timestamp_broker order (or order=none), and no aggregation or dedupe',
        { parameter: 'parallel' },
      );
    }
    return null;
  }
  const count = Math.min(hi - lo, parallel === 1 ? SEQUENTIAL_SLICES : 4 * parallel);
  // Whole milliseconds: rows that tie on broker time never straddle two slices.
  const bounds = Array.from({ length: count + 1 }, (_, i) => lo + Math.floor(((hi - lo) * i) / count));
  return { time: topic.time!, bounds, concurrency: parallel, ordered: !read.unordered };
}

function planSample(r: Extract<PlanRequest, { kind: 'sample' }>, policy: ReadPolicy, now: number): PlannedRead {
  const { topic } = r;
  if (!topic.time || topic.source.topicKind !== 'topic') {
    throw new ApiError('TG_BAD_REQUEST', `${topic.id} is not a topic table: it has no JSON payload to infer from`);
  }
  const { infer } = policy;
  const until = r.until !== undefined ? parseInstant(r.until, 'until', now).epochMs : now;
  const since = r.since !== undefined ? parseInstant(r.since, 'since', now).epochMs : until - infer.defaultWindowMs;
  if (until <= since) throw new ApiError('TG_BAD_TIME', 'until must be after since', { parameter: 'until' });
  if (until - since > infer.maxWindowMs) {
    throw new ApiError(
      'TG_TOO_EXPENSIVE',
      `the window is wider than ${infer.maxWindowMs / 3_600_000}h: narrow since/until`,
      { parameter: 'since', maxWindowMs: infer.maxWindowMs },
    );
  }
  const sample = r.sample ?? infer.defaultSample;
  if (sample > infer.maxSample) {
    throw new ApiError('TG_TOO_EXPENSIVE', `sample ${sample} is above the maximum ${infer.maxSample}`, {
      parameter: 'sample',
      max: infer.maxSample,
    });
  }
  const iso = (ms: number) => new Date(ms).toISOString();
  const p = planRead(
    topic,
    { select: ['value'], where: null, since: iso(since), until: iso(until), limit: sample },
    // The sample is drawn from the caller's rows only.
    { defaultLimit: sample, maxLimit: sample, rows: policy.rows },
    null,
    now,
  );
  // Any `sample` events of the window: no order, so the storage can stop early (LIMIT is passed down).
  return { ...p, tree: { ...p.tree, order: [], totalOrder: false } };
}

/**
 * A cursor batch. Its window is [from, until): with filters that are all evaluated after the scan (JSON fields),
 * the guardrail bounds each batch to the widest window allowed, so a loader catching up reads the backlog in
 * bounded steps instead of being refused; a cursor at the very beginning has no lower bound, so such a filter
 * needs a start instant (refused here, naming it).
 */
function planBatch(r: Extract<PlanRequest, { kind: 'batch' }>, policy: ReadPolicy): PlannedRead {
  const { topic, from } = r;
  if (!topic.time)
    throw new ApiError('TG_BAD_REQUEST', `topic ${topic.id} has no ${TIME_COLUMN}: cursors need topic tables`);
  const limit = r.pendingLimit ?? r.limit ?? policy.batchDefaultLimit;
  const limits =
    typeof r.pendingLimit === 'number' ? { ...policy, maxLimit: Math.max(r.pendingLimit, policy.maxLimit) } : policy;
  let hi = r.untilMs;
  const lo = from.ts === null ? undefined : epochOfTrinoTimestamp(from.ts);
  const g = policy.guardrail;
  if (r.read.where && !g.allowFullScan && topic.source.topicKind === 'topic' && residualOnly(r.read.where, g)) {
    if (lo === undefined) {
      throw new ApiError(
        'TG_TIME_BOUND_REQUIRED',
        'every filter of this cursor is evaluated after the scan: start it at an instant (or seek to one), not at earliest',
        { add: 'start', maxWindowMs: g.maxWindowMs },
      );
    }
    hi = Math.min(hi, lo + g.maxWindowMs);
  }
  const position: PagePosition = { h: '', m: 'anchor', s: from.skip, hi };
  if (from.ts !== null) position.a = from.ts;
  const select = r.read.select ? [...new Set([TIME_COLUMN, ...r.read.select])] : undefined;
  return planRead(topic, { ...r.read, select, limit }, limits, () => position);
}

/** The exclusive upper bound a batch plan reads to, as Trino timestamp text. */
export function batchUntil(p: Plan): string {
  return trinoTimestampText(p.position.hi!);
}
