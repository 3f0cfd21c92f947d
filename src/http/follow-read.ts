/**
 * A follow from request to response (API.md "Following a topic"): negotiated as Server-Sent Events or NDJSON,
 * planned by the read entry (entry/plan-follow.ts: every refusal before the response starts), counted against
 * `limits.maxFollowers`, then streamed: the poll loop (read/follow/follow-loop.ts) in the follow's framing, with
 * keep-alives, until the client leaves (each poll's query cancelled then) or `until` is reached, or the caller's
 * credential, grant or row scope is lost (follow-access.ts): an error event naming why, and the end.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { quotaKey } from '../access/principal.js';
import { ApiError } from '../core/errors.js';
import { drainedOutput, encodedReadable } from '../encode/encoder-registry.js';
import { followPages, planFollow, type FollowOptions, type ResumedFrom } from '../entry/plan-follow.js';
import { followBody } from '../read/follow/follow-body.js';
import { followFraming, type FollowFormat, type FollowFraming } from '../read/follow/follow-frames.js';
import { followLoop } from '../read/follow/follow-loop.js';
import type { Followers } from '../read/follow/followers.js';
import { logFailure, toApiError } from '../trino/trino-errors.js';
import { FollowAccess } from './follow-access.js';
import { flushThenAbort } from './flush-then-abort.js';
import { callerOf, requestTrino } from './request-caller.js';

const CONTENT_TYPES = {
  sse: 'text/event-stream; charset=utf-8',
  ndjson: 'application/x-ndjson; charset=utf-8',
} as const satisfies Record<FollowFormat, string>;

/**
 * The framing of a follow: `format=ndjson`, else by `Accept` (`text/event-stream`, `application/x-ndjson`; none, or
 * any: events). Other formats hold a fixed set of rows: a 406.
 */
export function followFormatOf(format: string | undefined, accept: string | undefined): FollowFormat {
  const refused = (what: string, parameter: string) =>
    new ApiError('TG_NOT_ACCEPTABLE', `follow=true streams text/event-stream or NDJSON (format=ndjson), not ${what}`, {
      parameter,
    });
  if (format !== undefined) {
    if (format === 'ndjson') return 'ndjson';
    throw refused(`format=${JSON.stringify(format)}`, 'format');
  }
  const ranges = (accept ?? '').split(',').map((r) => r.split(';')[0]!.trim().toLowerCase());
  for (const range of ranges) {
    if (range === 'text/event-stream') return 'sse';
    if (range === 'application/x-ndjson') return 'ndjson';
  }
  if (ranges.some((r) => r === '' || r === '*/*' || r === 'text/*')) return 'sse';
  throw refused(`Accept: ${JSON.stringify(accept)}`, 'Accept');
}

/** The id a reconnection resumes after when `after=` is absent: `Last-Event-ID` (none: a new follow). */
function lastEventId(request: FastifyRequest): ResumedFrom | undefined {
  const header = request.headers['last-event-id'];
  return typeof header === 'string' && header !== '' ? { id: header, name: 'Last-Event-ID' } : undefined;
}

/** `framing`, counting the rows it writes in the request's audit line and the rows metric. */
function countedFraming(
  app: FastifyInstance,
  request: FastifyRequest,
  framing: FollowFraming,
  format: FollowFormat,
): FollowFraming {
  return {
    ...framing,
    rows: (item) => {
      request.audit.rows = (request.audit.rows ?? 0) + item.rows.length;
      app.metrics.rows.inc({ format: format === 'sse' ? 'sse' : 'ndjson' }, item.rows.length);
      return framing.rows(item);
    },
  };
}

/** What the body says of a failure (the error catalog, no internals); the follow's loop is let go of then. */
function errorBodyOf(request: FastifyRequest, gone: AbortController) {
  return (err: unknown) => {
    const e = toApiError(err);
    if (!gone.signal.aborted) logFailure(request.log, e, err);
    // The follow ends here: what its loop still runs (a poll's query, a pause) is let go of at once.
    gone.abort(e);
    return { code: e.code, message: e.message, status: e.status, ...(e.queryId ? { queryId: e.queryId } : {}) };
  };
}

/** Answers a follow: plans it (refusals as normal error responses), counts it, and streams it. */
export async function runFollow(
  app: FastifyInstance,
  request: FastifyRequest,
  reply: FastifyReply,
  followers: Followers,
  o: FollowOptions,
) {
  const format = followFormatOf(o.format, o.format === undefined ? request.headers.accept : undefined);
  const { config, memory: gateway } = app.tg;
  const call = { services: app.tg, caller: callerOf(request) };
  const { planner, ids } = await planFollow(call, o, lastEventId(request));
  const gone = new AbortController();
  const guard = new FollowAccess(app, request, o.topic, o.rows);
  // A credential already past its expiry (within the verifier's clock tolerance) is refused before the response.
  guard.checkExpiry();
  const leave = followers.enter(quotaKey(request.principal, request.ip), () => reply.raw.destroy());
  // What its polls hold in the gateway (look-ahead, decoded sorts) is given back when the follow ends.
  const memory = gateway.account();
  reply.raw.once('close', () => {
    leave();
    guard.close();
    memory.close();
    if (!reply.raw.writableFinished) gone.abort(new ApiError('TG_BAD_REQUEST', 'the client went away'));
  });
  let body: ReturnType<typeof encodedReadable> | undefined;
  const drained = drainedOutput(reply.raw, () => body);
  const items = followLoop({
    start: planner.start,
    poll: async (from, now, width) => {
      await guard.check();
      return planner.poll(from, now, width);
    },
    open: followPages(call, o, gone.signal, memory),
    trino: requestTrino(request),
    pollMs: config.followPollMs,
    drained,
    hiddenTime: planner.hiddenTime,
    signal: gone.signal,
    onBusy: (err) => request.log.info({ limit: err.details }, 'follow: a poll found no free query slot; next interval'),
  });
  const framing = followFraming(format, (p) => ids.seal(planner.hash, p), config.followPollMs, drained);
  const counted = countedFraming(app, request, framing, format);
  const onError = errorBodyOf(request, gone);
  const chunks = followBody(items, counted, { keepAliveMs: config.followKeepAliveMs, onError, guard });
  body = encodedReadable(flushThenAbort(chunks, reply.raw));
  body.on('error', (err) => request.log.debug({ err }, 'follow ended'));
  // A proxy must pass each event on as it comes (nginx buffers responses unless told not to).
  reply.header('Cache-Control', 'no-store').header('X-Accel-Buffering', 'no');
  return reply.type(CONTENT_TYPES[format]).send(body);
}
