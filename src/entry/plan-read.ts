/**
 * Planning a read for any entrance: the key frames computed, the read planned by the one planning entry with the
 * topic's policy (the caller's row scope, the limits, the guardrail), and explained when asked.
 */
import { keyFramesFor } from '../blob/avro/key-framing.js';
import type { ColumnCodec } from '../core/content-codings.js';
import { PageTokens } from '../query/page-tokens.js';
import { plan, type PlannedRead } from '../query/planner.js';
import { readPolicy } from '../query/policy-from-settings.js';
import type { KeyFrames } from '../query/tree/key-frames.js';
import type { RowScope } from '../query/tree/read-policy.js';
import type { ReadRequest } from '../query/tree/read-request.js';
import type { TopicModel } from '../query/tree/topic-model.js';
import type { ReadCall, ReadServices } from './read-call.js';

/** A read as an entrance asks for it: the topic, the request tree, the caller's row scope and how to answer. */
export interface ReadOptions {
  topic: TopicModel;
  req: ReadRequest;
  /** The caller's row scope (row policies; page tokens bound to the caller). */
  rows: RowScope;
  cursor?: string;
  format?: string;
  explain?: boolean;
  /** false: Avro / json-sr payloads are returned as their raw bytes (API.md `decode=false`). */
  decode?: boolean;
  /** The reader schema versions the request was planned with (blob/avro/decoded-types.ts): decoded with the same. */
  readerVersions?: Partial<Record<'key' | 'value', number>>;
  /** `compression=`: Parquet's column codec (a 400 with any other format). */
  compression?: ColumnCodec;
  /** Builds the link of the next page from its token; absent where `next` is the token itself. */
  nextUrl?: (token: string) => string;
}

/** What planning needs of a call: its services and its caller (no Trino: planning runs no query). */
export type PlanCall = Pick<ReadCall, 'services' | 'caller'>;

/** Plans a read with this topic's policy (the one planning entry runs every pass). */
function planFor(call: PlanCall, o: ReadOptions, keyFrames: KeyFrames | null): PlannedRead {
  const { config, keyring } = call.services;
  const tokens = new PageTokens(keyring);
  const cursor = o.cursor;
  return plan(
    {
      kind: 'read',
      topic: o.topic,
      read: o.req,
      token: cursor !== undefined ? (h) => tokens.decode(cursor, h) : null,
      explain: o.explain === true,
      keyFrames,
      caller: call.caller,
    },
    readPolicy(config, o.topic.id, o.rows),
  );
}

/** The frames of a read's Avro key: filters on it (the caller's row policy too) compare framed bytes, one per version. */
export function keyFramesOf(
  services: ReadServices,
  o: Pick<ReadOptions, 'topic' | 'req' | 'rows' | 'decode'>,
): Promise<KeyFrames | null> {
  if (o.decode === false) return Promise.resolve(null);
  const settings = services.config.topics[o.topic.id]?.key;
  return keyFramesFor(o.topic.id, settings, services.registry, [o.req.where, o.rows.filter]);
}

/** Plans a read for the call's caller, its Avro key's frames computed first. */
export async function planRead(call: PlanCall, o: ReadOptions): Promise<PlannedRead> {
  return planFor(call, o, await keyFramesOf(call.services, o));
}

/**
 * Explain: the plan's SQL and filters, and Trino's own plan for it (and the guardrail's refusal, if any). With a row
 * policy, the SQL shown and explained is the query without the policy's filter, and `rowPolicy` says one applies.
 */
export async function explainRead(call: ReadCall, p: PlannedRead) {
  const { sql, pushdown, filters, rowPolicy } = p.explain();
  const timeoutMs = call.services.config.queryTimeoutMs;
  const { rows } = await call.trino.all(`EXPLAIN ${sql}`, { ...p.run, timeoutMs });
  const body = { sql, pushdown, filters, plan: String(rows[0]?.[0] ?? ''), ...(rowPolicy ? { rowPolicy } : {}) };
  return p.refused ? { ...body, refused: { code: p.refused.code, message: p.refused.message } } : body;
}
