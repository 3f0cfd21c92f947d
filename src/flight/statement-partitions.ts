/**
 * Partitions of a bulk statement (API.md "Flight SQL", results): a statement that reads rows (no aggregate, no
 * GROUP BY, no ORDER BY but broker time's, no LIMIT) over a closed window is a read session by another name. Its
 * FlightInfo has one endpoint per read-session stream (sessions/: cut where the counted rows reach each stream's
 * share), each ticket the stream's sealed description (sessions/stream-token.ts, kind `s1`): self-contained, so any
 * instance sharing the keys serves it, bound to the principal that planned it and its row scope, and checked again
 * on every DoGet against the grants and row policies in force. The streams together are exactly the statement's
 * rows, each once; read in endpoint order, in its order.
 */
import { Value } from 'typebox/value';
import { ApiError } from '../core/errors.js';
import { planRead } from '../entry/plan-read.js';
import { readScopeOf } from '../entry/read-topic.js';
import { sessionStreamRead } from '../entry/session-stream-read.js';
import { isDecoded } from '../query/request/decoded-column.js';
import { readRequestOfSession } from '../query/request/parse-read-request.js';
import type { QueryBody } from '../query/request/read-schema.js';
import { resolver } from '../query/request/resolver.js';
import { SESSION_STREAMS_CEILING, SessionRead } from '../query/request/session-schema.js';
import { predicateColumns } from '../query/passes/post-decode-split.js';
import { checkStreamCount, sessionRanges } from '../sessions/session-ranges.js';
import { sealStreams } from '../sessions/session-streams.js';
import { bindStream, checkStreamCaller, sessionExpiry } from '../sessions/stream-principal.js';
import { StreamTokens } from '../sessions/stream-token.js';
import type { FlightCall } from './flight-call.js';
import type { FlightEndpoint } from './flight-messages.js';
import { packCommand } from './flight-sql-messages.js';
import type { PlannedStatement } from './statement-read.js';

/** The start of a partition's statement handle: a stream token's kind (a statement ticket's is `fs1.`). */
const STREAM_KIND = 's1.';

/** The session a statement's body reads, when it is a bulk read of rows over a closed window; else null. */
export function bulkReadOf(body: QueryBody): { read: SessionRead; since: string; until: string } | null {
  const { select, where, since, until, groupBy, order, limit, dedupe, cursor, decode } = body;
  if (since === undefined || until === undefined || (limit !== undefined && limit !== 'all')) return null;
  if ((groupBy?.length ?? 0) > 0 || order !== undefined || dedupe !== undefined || cursor !== undefined) return null;
  const read = { select, where, decode };
  // Aggregates and buckets are objects in /query's select; a session's select takes columns (strings) only.
  return Value.Check(SessionRead, read) ? { read, since, until } : null;
}

/** What a call's partitions are sealed with: the stream tokens under the gateway's keys. */
const streamTokens = (call: FlightCall) => new StreamTokens(call.services.keyring);

/**
 * The endpoints of a bulk statement, one per stream of its session (`streams`, or as many as its counted rows
 * want, at most `limits.maxSessionStreams`); null when the statement is not one (it is read through one ticket).
 */
export async function partitionEndpoints(
  call: FlightCall,
  s: PlannedStatement,
  streams: number | undefined,
): Promise<FlightEndpoint[] | null> {
  const bulk = s.probe ? null : bulkReadOf(s.body);
  if (!bulk) return null;
  const { config } = call.services;
  const max = checkStreamCount(config, streams);
  const { topic, readerVersions = {}, decode } = s;
  const req = readRequestOfSession(bulk.read, bulk, resolver(topic));
  const rows = readScopeOf(call, topic);
  const planned = await planRead(call, { topic, req, rows, decode, readerVersions });
  if (!planned.bulk || planned.position.lo === undefined || planned.position.hi === undefined) return null;
  // As the HTTP sessions route: a row policy on a decoded field is not in Trino's count, so its cuts would tell of
  // rows the caller may not read; such a scope is cut into equal widths.
  const counted = !predicateColumns(rows.filter).some(isDecoded);
  const timeoutMs = config.queryTimeoutMs;
  const ranges = await sessionRanges(planned, { counted, streams, max, trino: call.trino, timeoutMs });
  const access = { grants: call.access.grants, policies: call.access.rowPolicies };
  const binding = bindStream(call.principal, rows, access, topic, false);
  const expiry = sessionExpiry(call.principal, config.sessionTtlMs, Date.now());
  const parts = { topic: topic.id, read: bulk.read, binding, readerVersions, counted };
  const sealed = sealStreams(
    streamTokens(call),
    { ...parts, expiresMs: expiry.x, credentialExpiresMs: expiry.credential },
    ranges,
  );
  const expirationTime = { seconds: Math.floor(expiry.x / 1000), nanos: (expiry.x % 1000) * 1_000_000 };
  return sealed.tokens.map((token) => ({
    ticket: { ticket: packCommand('TicketStatementQuery', { statementHandle: Buffer.from(token) }) },
    location: [],
    expirationTime,
  }));
}

/** Whether a ticket's statement handle is a partition's (a stream token), not a whole statement's. */
export function isPartitionHandle(handle: Uint8Array): boolean {
  return Buffer.from(handle.subarray(0, STREAM_KIND.length)).toString('latin1') === STREAM_KIND;
}

/**
 * A partition planned for the call's caller: its token opened (altered: 400; expired: 410), the caller the
 * principal that planned it (403), its grant and row scope as they are now (403 when either changed), and its
 * range read as the statement's `limit=all` read of that range. Planned as any statement, so DoGet streams it alike.
 */
export async function planPartition(call: FlightCall, handle: Uint8Array): Promise<PlannedStatement> {
  const s = streamTokens(call).open(Buffer.from(handle).toString('latin1'));
  checkStreamCaller(s, call.principal);
  const { topic, req, rows, readerVersions, decode, window } = await sessionStreamRead(call, s);
  const plan = await planRead(call, { topic, req, rows, decode, readerVersions });
  if (!plan.bulk) throw new ApiError('TG_BAD_SESSION', 'this partition no longer reads as a bulk read: plan it again');
  const body = { ...s.q, ...window, limit: 'all' as const, order: undefined };
  return { sql: '', topic, body, plan, decode, readerVersions, probe: false, capped: false };
}

/** The call header that asks for a number of partitions (a read session's `streams`). */
export const STREAMS_HEADER = 'topicgate-streams';

/** The partitions the call asks for (`topicgate-streams: <n>`), or undefined for as many as the rows want. */
export function streamsAsked(call: Pick<FlightCall, 'metadata'>): number | undefined {
  const values = call.metadata.get(STREAMS_HEADER);
  if (values.length === 0) return undefined;
  const text = String(values[0]);
  const n = /^[1-9]\d{0,4}$/.test(text) ? Number(text) : Number.NaN;
  if (values.length > 1 || !(n <= SESSION_STREAMS_CEILING)) {
    throw new ApiError(
      'TG_BAD_REQUEST',
      `${STREAMS_HEADER}: a whole number of partitions, 1 to ${SESSION_STREAMS_CEILING}`,
      {
        parameter: STREAMS_HEADER,
      },
    );
  }
  return n;
}
