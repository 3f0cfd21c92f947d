/**
 * The one planning entry: every read the gateway runs, whatever route asks for it (events, query, explain, schema
 * inference, cursor batches and cursor lag), is planned here, and every policy pass runs here in one fixed order:
 * key framing, the request's tree (planReadTree: names resolved, limit, time window, paging, and the caller's row
 * scope: its row-policy filter ANDed to the request's, page tokens bound to it), slicing, the post-decode split,
 * then the residual-scan guardrail, which judges the request's own filters only (a pushable row filter does not
 * let a residual-only request through). Routes parse and respond; they decide nothing. ReadPolicy.rows is required,
 * so no read path can plan without the caller's scope. The plan returned is frozen: exec asks it, never changes it.
 */
import { ApiError } from '../core/errors.js';
import { checkResidualScan, stepsNeedTimeBound } from './passes/residual-scan.js';
import type { PagePosition } from './tree/page-position.js';
import { TIME_COLUMN } from './tree/nodes.js';
import { bulkPlan, checkBulkRequest } from './passes/bulk-slicing.js';
import { planReadTree } from './plan-read-tree.js';
import { planLoad, type LoadRequest } from './plan-load.js';
import { selectiveFilter } from './passes/page-slicing.js';
import type { Plan } from './tree/plan.js';
import { planSql, type PlanSql } from './plan-sql.js';
import type { ReadRequest } from './tree/read-request.js';
import type { TopicModel } from './tree/topic-model.js';
import type { Caller, ReadAction, ReadPolicy, TrinoRun } from './tree/read-policy.js';
import { withPostDecode } from './passes/post-decode-split.js';
import { frameKeyFilters } from './passes/frame-key-filters.js';
import type { KeyFrames } from './tree/key-frames.js';
import { epochOfTrinoTimestamp, trinoTimestampText } from '../core/trino-timestamp.js';
import { parseInstant } from './request/time.js';

/** A cursor's position: all events before `ts` consumed, plus the first `skip` at `ts` (null: the beginning). */
export interface BatchPosition {
  ts: string | null;
  skip: number;
}

export type PlanRequest =
  /** Events or an aggregation, GET or POST; `token` decodes the page cursor for this query's hash. */
  (
    | {
        kind: 'read';
        topic: TopicModel;
        read: ReadRequest;
        token: ((h: string) => PagePosition) | null;
        /** Explain: a refusal by the guardrail is reported in the plan instead of thrown. */
        explain?: boolean;
        /** An Avro key's frames for the texts the filters name (blob/avro/key-framing.ts); absent: not framed. */
        keyFrames?: KeyFrames | null;
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
        keyFrames?: KeyFrames | null;
      }
    /** A load's window of whole broker milliseconds (plan-load.ts). */
    | LoadRequest
  ) & { caller?: Caller };

/** A finished plan: frozen, and it gives the SQL of its page, slices and summaries (plan-sql.ts). */
export interface PlannedRead extends Plan, PlanSql {
  /** Explain only: the refusal the guardrail would give this query. */
  readonly refused?: ApiError;
  /** How this read goes to Trino. */
  readonly run: TrinoRun;
  /**
   * Trino's rows go on as the text Trino sent (transcoded by the text encoders, read/open-page.ts): nothing the
   * planner put after Trino computes on their values. A post-decode stage filters, sorts or aggregates them.
   */
  readonly rowText: boolean;
}

/** Plans one read; throws the ApiError of the first pass that refuses it. */
export function plan(request: PlanRequest, policy: ReadPolicy, now = Date.now()): PlannedRead {
  const finish = (p: Plan & { refused?: ApiError }, action: ReadAction): PlannedRead =>
    Object.freeze({
      ...p,
      ...planSql(p, request.topic.time, policy.guardrail.complexPredicates),
      run: trinoRun(action, request.caller, policy),
      rowText: !p.postDecode,
    });
  switch (request.kind) {
    case 'read':
      return finish(planEvents(...framedKeys(request, policy), now), request.explain ? 'explain' : 'read');
    case 'sample':
      return finish(planSample(request, policy, now), 'infer');
    case 'batch':
      return finish(planBatch(...framedKeys(request, policy)), 'cursors');
    case 'load':
      return finish(planLoad(request, policy), 'loads');
  }
}

/**
 * Key framing, the first pass: the request's filters and the caller's row filter (a policy naming an Avro key must
 * match the stored frames too) compare the framed key bytes.
 */
function framedKeys<R extends { read: ReadRequest; keyFrames?: KeyFrames | null }>(
  r: R,
  policy: ReadPolicy,
): [R, ReadPolicy] {
  const frames = r.keyFrames;
  if (!frames) return [r, policy];
  return [
    { ...r, read: { ...r.read, where: frameKeyFilters(r.read.where, frames) } },
    { ...policy, rows: { ...policy.rows, filter: frameKeyFilters(policy.rows.filter, frames) } },
  ];
}

/**
 * The Trino side of a read: the action and the topic's tags beside the connection's own `topicgate` tag, the
 * topic's session properties, and the caller as the Trino user when impersonating (Trino's impersonation and
 * table rules then decide; a denial comes back as 403 TG_FORBIDDEN).
 */
function trinoRun(action: ReadAction, caller: Caller | undefined, policy: ReadPolicy): TrinoRun {
  const run: TrinoRun = {
    clientTags: [...new Set([action, ...policy.trino.clientTags])],
    session: policy.trino.session,
  };
  if (policy.trino.impersonate && caller) run.user = trinoUser(caller, policy.trino.reservedUsers);
  return run;
}

/**
 * The caller as Trino's X-Trino-User (docs/trino.md, "Production Trino"): an API key's principal as
 * configured, a bearer token's principal claim, `anonymous` on an open gateway. A token's claim is refused when it
 * names a Trino user that belongs to something else (an API key's principal, `anonymous`, the gateway's own user):
 * a claim its holder may edit must never take another's Trino identity. Trino reads the header as sent (no
 * decoding), so only printable ASCII without leading or trailing blanks can name the same user there; anything
 * else is refused, never altered.
 */
function trinoUser(caller: Caller, reserved: ReadonlySet<string>): string {
  const { name } = caller;
  if (caller.via === 'jwt' && reserved.has(name)) {
    throw new ApiError(
      'TG_FORBIDDEN',
      `the principal ${JSON.stringify(name)} of this bearer token is the Trino user of another principal: it cannot be impersonated`,
      { principal: name },
    );
  }
  if (!/^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(name)) {
    throw new ApiError('TG_FORBIDDEN', `the principal ${JSON.stringify(name)} cannot be sent to Trino as a user`, {
      principal: name,
    });
  }
  return name;
}

function planEvents(
  r: Extract<PlanRequest, { kind: 'read' }>,
  policy: ReadPolicy,
  now: number,
): Plan & { refused?: ApiError } {
  checkBulkRequest(r.read, r.token !== null);
  const planned = planReadTree(r.topic, r.read, policy, r.token, now);
  const bulk = r.read.limit === 'all' ? { ...planned, bulk: bulkPlan(r.topic, r.read, planned, policy) } : planned;
  // Decoded Avro fields: Trino reads the events, the post-decode stage filters, sorts or aggregates them.
  const p = withPostDecode(bulk, policy.postDecodeMaxRows);
  const window = { lo: p.position.lo, hi: p.position.hi };
  const guard = () => checkResidualScan(p.tree, p.userWhere, window, policy.guardrail, p.postDecode?.mode === 'gather');
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

function planSample(r: Extract<PlanRequest, { kind: 'sample' }>, policy: ReadPolicy, now: number): Plan {
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
  const p = planReadTree(
    topic,
    // Any `sample` events of the window: no order, so the storage can stop early (LIMIT is passed down).
    { select: ['value'], where: null, since: iso(since), until: iso(until), limit: sample, unordered: true },
    // The sample is drawn from the caller's rows only.
    { defaultLimit: sample, maxLimit: sample, rows: policy.rows },
    null,
    now,
  );
  return p;
}

/**
 * A cursor batch. Its window is [from, until): with filters that are all evaluated after the scan (JSON fields),
 * the guardrail bounds each batch to the widest window allowed, so a loader catching up reads the backlog in
 * bounded steps instead of being refused; a cursor at the very beginning has no lower bound, so such a filter
 * needs a start instant (refused here, naming it).
 */
function planBatch(r: Extract<PlanRequest, { kind: 'batch' }>, policy: ReadPolicy): Plan {
  const { topic, from } = r;
  if (!topic.time)
    throw new ApiError('TG_BAD_REQUEST', `topic ${topic.id} has no ${TIME_COLUMN}: cursors need topic tables`);
  const limit = r.pendingLimit ?? r.limit ?? policy.batchDefaultLimit;
  const limits =
    typeof r.pendingLimit === 'number' ? { ...policy, maxLimit: Math.max(r.pendingLimit, policy.maxLimit) } : policy;
  let hi = r.untilMs;
  const lo = from.ts === null ? undefined : epochOfTrinoTimestamp(from.ts);
  const g = policy.guardrail;
  if (stepsNeedTimeBound(r.read.where, topic.source, g)) {
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
  const p = planReadTree(topic, { ...r.read, select, limit }, limits, () => position);
  // A batch has no page before it to learn a width from, and is often an empty stretch of a backlog: wide first
  // slices that grow fast find its rows (or its end) in a few queries. A selective filter reads it in one.
  if (!p.slices || selectiveFilter(p.userWhere)) return p;
  const widthMs = Math.max(1, Math.ceil((p.slices.hi - p.slices.fromMs) / BATCH_FIRST_SLICE_SHARE));
  return { ...p, slices: { ...p.slices, widthMs, growth: 4 } };
}

const BATCH_FIRST_SLICE_SHARE = 8;

/** The exclusive upper bound a batch plan reads to, as Trino timestamp text. */
export function batchUntil(p: Plan): string {
  return trinoTimestampText(p.position.hi!);
}
