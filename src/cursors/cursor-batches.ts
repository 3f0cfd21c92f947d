/**
 * A cursor batch as a read: its plan (the cursor's filter and select, the caller's row scope, the key framing of an
 * Avro key) and, for a new batch, its summary in Trino: how many rows it holds and where it ends.
 */
import { keyFrames, type KeyFraming } from '../blob/avro/key-framing.js';
import type { Config } from '../config/config.js';
import { batchUntil, plan, type PlannedRead } from '../query/planner.js';
import { readPolicy } from '../query/policy-from-settings.js';
import { whereFromJson } from '../query/request/parse-read-request.js';
import { resolver } from '../query/request/resolver.js';
import type { Where } from '../query/request/where-schema.js';
import type { Caller, RowScope } from '../query/tree/read-policy.js';
import type { TopicModel } from '../query/tree/topic-model.js';
import { summarizeBatch } from '../read/sliced-result.js';
import type { TrinoPort } from '../trino/trino-port.js';
import type { Position } from './cursor-store.js';
import { epochOfTrinoTimestamp } from '../core/trino-timestamp.js';

export interface CursorDefinition {
  topic: string;
  start: string;
  filter?: Where;
  select?: string[];
  settle: string;
}

/** A cursor's topic: its model, and its Avro key's framing (null when the key is not Avro). */
export interface CursorTopic {
  model: TopicModel;
  framing: KeyFraming | null;
}

/** The batch a cursor handed out and not yet committed, kept with the cursor. */
export interface PendingBatch {
  generation: number;
  token: string;
  id: string;
  from: Position;
  to: Position;
  /** Upper bound (exclusive) of the batch, Trino timestamp text. */
  until: string;
  rows: number;
  /** The batch's limit; `all`: every settled event after the position. */
  limit: number | 'all';
}

/** The limit a loader asked for, and the limit of an uncommitted batch handed out again. */
export interface BatchLimit {
  asked?: number | 'all';
  pending?: number | 'all';
}

/** What a batch's plan reads: the cursor's topic and definition, for a caller. */
export interface BatchRead {
  topic: CursorTopic;
  def: CursorDefinition;
  limit: BatchLimit;
  rows: RowScope;
  caller?: Caller;
}

/** The plan of a batch from `from` to at most `untilMs` (the planning entry may end it earlier). */
export function planBatchRead(config: Config, r: BatchRead, from: Position, untilMs: number): PlannedRead {
  const { model, framing } = r.topic;
  const read = {
    select: r.def.select,
    where: r.def.filter ? whereFromJson(r.def.filter, resolver(model)) : null,
  };
  // The caller's row policy too: a policy naming an Avro key must compare the stored frames.
  const frames = framing && keyFrames(framing, [read.where, r.rows.filter]);
  return plan(
    {
      kind: 'batch',
      topic: model,
      read,
      from,
      untilMs,
      limit: r.limit.asked,
      pendingLimit: r.limit.pending,
      keyFrames: frames,
      caller: r.caller,
    },
    readPolicy(config, model.id, r.rows),
  );
}

/**
 * A new batch from `from`, summarised in Trino slice by slice: its plan (ended where the slice that completed it
 * ends, so its read is bounded there too), its rows, and the position after it. `planTo` plans it up to an instant.
 */
export async function newBatch(
  planTo: (untilMs: number) => PlannedRead,
  trino: TrinoPort,
  timeoutMs: number,
  from: Position,
  settledMs: number,
): Promise<{ plan: PlannedRead; rows: number; to: Position }> {
  let plan = planTo(settledMs);
  const untilMs = plan.position.hi!;
  if (from.ts !== null && epochOfTrinoTimestamp(from.ts) >= untilMs) return { plan, rows: 0, to: from };
  const summary = await summarizeBatch(trino, plan, { ...plan.run, timeoutMs });
  const { rows, last, trailing } = summary;
  if (summary.endMs < untilMs) plan = planTo(summary.endMs);
  if (rows > 0 && last !== null) {
    const to = last === from.ts ? { ts: last, skip: from.skip + rows } : { ts: last, skip: trailing };
    return { plan, rows, to };
  }
  // A batch the guardrail ended early with nothing in it still moves the cursor past its window.
  const end = Math.min(untilMs, summary.endMs);
  return { plan, rows, to: rows === 0 && end < settledMs ? { ts: batchUntil(plan), skip: 0 } : from };
}

/** Events after `position` up to `settled` (the lag plan's count), and how far behind the position is. */
export async function countLag(
  plan: PlannedRead,
  position: Position,
  settled: number,
  trino: TrinoPort,
  timeoutMs: number,
): Promise<{ events: number; ms: number | null; countedUntil?: string }> {
  const { rows } = await trino.all(plan.countSql(), { ...plan.run, timeoutMs });
  const events = Math.max(0, Number(rows[0]?.[0] ?? 0) - position.skip);
  const lag = {
    events,
    ms: position.ts === null ? null : Math.max(0, Date.now() - epochOfTrinoTimestamp(position.ts)),
  };
  // The guardrail bounded the count (filters all evaluated after the scan): say where it stopped.
  const hi = plan.position.hi!;
  return hi < settled ? { ...lag, countedUntil: new Date(hi).toISOString() } : lag;
}
