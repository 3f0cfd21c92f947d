/**
 * A load's read (API.md "Loads run by Trino"): its window of whole broker milliseconds read whole and unordered, its
 * select with the broker and producer times, the caller's row scope; planned by the one planning entry (planner.ts).
 */
import { ApiError } from '../core/errors.js';
import { stepsNeedTimeBound } from './passes/residual-scan.js';
import { planReadTree } from './plan-read-tree.js';
import { TIME_COLUMN } from './tree/nodes.js';
import type { Plan } from './tree/plan.js';
import type { ReadPolicy } from './tree/read-policy.js';
import type { ReadRequest } from './tree/read-request.js';
import type { TopicModel } from './tree/topic-model.js';

/** A load's window [fromMs, untilMs) (fromMs null: from the beginning of the topic). */
export interface LoadRequest {
  kind: 'load';
  topic: TopicModel;
  read: ReadRequest;
  fromMs: number | null;
  untilMs: number;
}

/** The columns every load lands besides its select: the window is deleted and counted by the first. */
const LOAD_TIMES = [TIME_COLUMN, 'timestamp_producer'];

/**
 * A load's window. Filters that are all evaluated after the scan bound it to the widest window the guardrail
 * allows, as cursor batches are (a load catching up runs in bounded steps); from the very beginning they need a
 * start instant.
 */
export function planLoad(r: LoadRequest, policy: ReadPolicy): Plan {
  const { topic, fromMs } = r;
  if (!topic.time)
    throw new ApiError('TG_BAD_REQUEST', `topic ${topic.id} has no ${TIME_COLUMN}: loads need topic tables`);
  let hi = r.untilMs;
  const g = policy.guardrail;
  if (stepsNeedTimeBound(r.read.where, topic.source, g)) {
    if (fromMs === null) {
      throw new ApiError(
        'TG_TIME_BOUND_REQUIRED',
        'every filter of this load is evaluated after the scan: start it at an instant, not at earliest',
        { add: 'start', maxWindowMs: g.maxWindowMs },
      );
    }
    hi = Math.min(hi, fromMs + g.maxWindowMs);
  }
  const times = LOAD_TIMES.filter((c) => topic.columns.get(c)?.source.kind === 'table');
  const select = r.read.select ? [...new Set([...r.read.select, ...times])] : undefined;
  const iso = (ms: number) => new Date(ms).toISOString();
  return planReadTree(
    topic,
    {
      ...r.read,
      select,
      ...(fromMs === null ? {} : { since: iso(fromMs) }),
      until: iso(hi),
      limit: 'all',
      unordered: true,
    },
    { defaultLimit: 1, maxLimit: 1, rows: policy.rows, caps: policy.caps },
    null,
  );
}
