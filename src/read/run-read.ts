/**
 * A read from plan to response: compile, run on Trino (cancelled when the client goes away), cut to one page,
 * encode in the negotiated media type and stream with backpressure. Shared by the events and query routes.
 *
 * Long file: streamPlan is one sequence (leases, payload decoding, gateway stage, reading on, page cutting, headers,
 * completeness) whose steps share the response's state; each step's logic lives in its own module.
 */
import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../core/errors.js';
import {
  drainedOutput,
  encodedReadable,
  encoderRegistry,
  FORMATS,
  MEDIA_TYPES,
  negotiateMediaType,
  type MediaType,
} from '../encode/encoder-registry.js';
import { compileQuery, compileWhere } from '../query/sql/compile.js';
import { PageTokens } from '../query/passes/paging.js';
import type { ReadRequest, TopicModel } from '../query/plan.js';
import type { RowScope } from '../query/passes/passes.js';
import { plan, readPolicy, type Caller, type PlannedRead } from '../query/planner.js';
import { classifyPushdown } from '../query/passes/pushdown.js';
import { logFailure, toApiError } from '../trino/trino-errors.js';
import type { TrinoPort } from '../trino/trino-port.js';
import type { RequestTrino } from './query-lease.js';
import { flushThenAbort } from './flush-then-abort.js';
import { PageCutter } from './page-cutter.js';
import { pageRead } from './read-ahead.js';
import { openResult, withSliceWidth, type PortRef, type SliceStats } from './sliced-result.js';
import { preparePayloads } from '../blob/avro/payload-decoder.js';
import { frameKeyFilters, keyFraming } from '../query/passes/key-framing.js';
import { forDisplay, type GatewayStage } from '../query/passes/post-decode-split.js';
import { isDecoded } from '../query/request/decoded-column.js';
import { and, TIME_COLUMN } from '../query/tree/nodes.js';
import type { ResultStream } from '../core/result-stream.js';
import { flattenDecoded, gatewayRun } from './post-decode/post-decode-stage.js';

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
  /** The reader schema versions the request was planned with (registry/decoded-types.ts): decoded with the same. */
  readerVersions?: StreamOptions['readerVersions'];
  /** Builds the URL of the next page from its token (GET); absent for POST, where `next` is the token. */
  nextUrl?: (token: string) => string;
}

export function mediaTypeOf(request: FastifyRequest, format: string | undefined): MediaType {
  const media = negotiateMediaType(format, request.headers.accept);
  if (!media) {
    throw new ApiError(
      'TG_NOT_ACCEPTABLE',
      format !== undefined
        ? `format=${JSON.stringify(format)} is not one of ${FORMATS.join(', ')}`
        : `Accept: ${JSON.stringify(request.headers.accept)} names no media type this API produces (${MEDIA_TYPES.join(', ')})`,
      { parameter: format !== undefined ? 'format' : 'Accept' },
    );
  }
  return media;
}

/**
 * The caller's principal, once the access plugin (issue 10) has set `request.principal`; undefined until then, or
 * on a gateway without authentication. Read structurally so this file does not depend on that plugin.
 */
export function callerOf(request: FastifyRequest): Caller | undefined {
  return (request as { principal?: Caller | null }).principal ?? undefined;
}

/**
 * The request's own Trino port (the access plugin's, on every data route): its queries take the caller's query
 * slots and are cancelled when the client goes away. Read structurally, as callerOf; a route that reads without it
 * is a defect (its queries would escape the quotas), not something to paper over.
 */
export function requestTrino(request: FastifyRequest): RequestTrino {
  const trino = (request as { trino?: RequestTrino | null }).trino;
  if (!trino) throw new Error(`route ${request.routeOptions.url} reads through Trino but is not a data route`);
  return trino;
}

/** Plans a read with this topic's policy (the one planning entry runs every pass). */
export function planFor(app: FastifyInstance, o: ReadOptions, caller: Caller | undefined): PlannedRead {
  const tokens = new PageTokens(app.tg.keyring);
  const cursor = o.cursor;
  return plan(
    {
      kind: 'read',
      topic: o.topic,
      read: o.req,
      token: cursor !== undefined ? (h) => tokens.decode(cursor, h) : null,
      explain: o.explain === true,
      caller,
    },
    readPolicy(app.tg.config, o.topic.id, o.rows),
  );
}

export async function explainRead(app: FastifyInstance, trino: TrinoPort, p: PlannedRead) {
  const sql = compileQuery(p.tree);
  const { rows } = await trino.all(`EXPLAIN ${sql}`, { ...p.run, timeoutMs: app.tg.config.queryTimeoutMs });
  const body = {
    sql,
    // Trino's filters and the gateway's (decoded fields), each labelled where it is evaluated.
    pushdown: classifyPushdown(and(p.tree.where, p.gateway?.where), {
      complexPredicates: app.tg.config.complexPushdown,
    }),
    filters: compileWhere(forDisplay(p.userWhere)),
    plan: String(rows[0]?.[0] ?? ''),
  };
  return p.refused ? { ...body, refused: { code: p.refused.code, message: p.refused.message } } : body;
}

export async function runRead(app: FastifyInstance, request: FastifyRequest, reply: FastifyReply, o: ReadOptions) {
  const media = mediaTypeOf(request, o.format);
  // An Avro key: filters on it compare framed bytes, one per key schema version (registry/key-framing.ts).
  const framing =
    o.decode === false ? null : await keyFraming(o.topic.id, app.tg.config.topics[o.topic.id]?.key, app.tg.registry);
  // The caller's row policy is framed the same way: a policy naming the key must match the stored frames too.
  if (framing) {
    const rows = { ...o.rows, filter: frameKeyFilters(o.rows.filter, framing) };
    o = { ...o, rows, req: { ...o.req, where: frameKeyFilters(o.req.where, framing) } };
  }
  const planned = planFor(app, o, callerOf(request));
  if (o.explain) {
    const body = await explainRead(app, requestTrino(request), planned);
    return reply.type('application/json; charset=utf-8').send(body);
  }
  return streamPlan(app, request, reply, planned, media, {
    nextUrl: o.nextUrl,
    paged: true,
    token: o.cursor,
    topic: o.topic.id,
    decode: o.decode !== false,
    readerVersions: o.readerVersions,
  });
}

export interface StreamOptions {
  /** Page links (events) or none (a cursor batch is one unit). */
  paged: boolean;
  /** The page token the request presented, accepted by its plan: a query held for it is read on from. */
  token?: string;
  nextUrl?: (token: string) => string;
  /** Extra members of the JSON body, written only on success. */
  meta?: Record<string, unknown>;
  /** The topic read: its Avro / json-sr payloads are decoded unless `decode` is false. */
  topic: string;
  decode: boolean;
  readerVersions?: Partial<Record<'key' | 'value', number>>;
}

/** Runs a planned read and streams it in the media type, cancelling Trino if the client goes away. */
export async function streamPlan(
  app: FastifyInstance,
  request: FastifyRequest,
  reply: FastifyReply,
  plan: PlannedRead,
  media: MediaType,
  o: StreamOptions,
) {
  const { config } = app.tg;
  const trino = requestTrino(request);
  // A bulk read's slices run at once: it holds a query slot for each before the first starts.
  if (plan.bulk) await trino.hold(Math.min(plan.bulk.concurrency, plan.bulk.bounds.length - 1));
  const tokens = new PageTokens(app.tg.keyring);
  const abort = new AbortController();
  // The client went away before the response finished: cancel the Trino query.
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) abort.abort();
  });
  // Reader schemas are fetched before the query starts: a registry failure is a plain 502, no query to cancel.
  const text = encoderRegistry[media].format !== 'arrow' && encoderRegistry[media].format !== 'parquet';
  const payloads = o.decode
    ? await preparePayloads(o.topic, config.topics[o.topic], app.tg.registry, {
        hexBytes: text,
        versions: o.readerVersions,
      })
    : null;
  const slices: SliceStats = { queries: 0, widthMs: 0, endMs: 0 };
  const pageLimit = plan.gateway?.limit ?? plan.tree.limit;
  const port: PortRef = {
    trino,
    opts: { ...plan.run, signal: abort.signal, timeoutMs: config.queryTimeoutMs },
    stats: slices,
  };
  // Pages read on (read-ahead.ts): a plain sliced page's query goes on past the page and is held for the next one
  // (under its token and the caller), which reads on from it instead of starting a query of its own.
  const page = await pageRead(
    app.tg.held,
    trino,
    port,
    {
      // A plain page read in time slices: no gateway stage, not a bulk read.
      eligible: o.paged && Boolean(plan.slices) && !plan.gateway && !plan.bulk,
      limit: pageLimit,
      token: o.token,
      caller: callerOf(request)?.name ?? '',
      signal: abort.signal,
    },
    (readOn) => openResult(port, plan, readOn),
  ).catch((err: unknown) => {
    app.metrics.trinoQueries.inc({ outcome: 'failed' });
    throw err;
  });
  const { result } = page;
  reply.header('X-Trino-Query-Id', result.queryId);
  const entry = encoderRegistry[media];
  // Decoded Avro fields named: the gateway filters, sorts or groups the decoded rows (read/gateway/).
  if (plan.gateway && !payloads) throw new Error('a gateway stage needs decoded payloads: a planner defect');
  const gateway = plan.gateway && payloads ? gatewayOf(plan.gateway, payloads.wrap(page.source), plan) : null;
  const cutter = gateway
    ? new PageCutter(gateway.run.source, pageLimit, gateway.timeIndex, gateway.run.keep)
    : new PageCutter(page.source, plan.tree.limit, plan.timeIndex, undefined, page.readOn, page.first);
  // Errors in the first page still get a proper status; non-JSON formats read ahead to make Link exact (with a
  // filter in the gateway, up to the page's end: its position is known only then).
  // A bulk read (limit=all) is one response: no next page to link.
  const paged = o.paged && pageLimit !== Infinity;
  const lookahead = gateway?.run.keep ? pageLimit + 1 : Math.max(1, config.prefetchRows);
  await cutter.prefetch(entry.format === 'json' || !paged ? 1 : lookahead);
  let headerToken: string | undefined;
  if (paged && entry.format !== 'json') {
    const next = withSliceWidth(
      plan,
      cutter.settled ? cutter.next(plan.position) : cutter.presumedNext(plan.position),
      slices,
    );
    if (next) {
      // Only a settled page may name its next one when the gateway filters (presumedNext is null then).
      headerToken = tokens.encode(next);
      reply.header('Topicgate-Next-Cursor', headerToken);
      if (o.nextUrl) reply.header('Link', `<${o.nextUrl(headerToken)}>; rel="next"`);
    }
  }
  let body: Readable | undefined;
  const options = {
    next: null as string | null,
    meta: o.meta,
    onError: (err: unknown) => {
      const e = toApiError(err);
      // A client that went away is not a failure to log (its query is cancelled, as it should be).
      if (!abort.signal.aborted) logFailure(request.log, e, err);
      return { code: e.code, message: e.message, status: e.status };
    },
    drained: drainedOutput(reply.raw, () => body),
  };
  let finished = false;
  const view = cutter.view(() => {
    finished = true;
    request.audit.rows = cutter.rows;
    app.metrics.rows.inc({ format: entry.format }, cutter.rows);
    if (!page.continued) app.metrics.trinoQueries.inc({ outcome: 'ok' });
    if (!paged) return;
    const next = withSliceWidth(plan, cutter.next(plan.position), slices);
    const token = next ? tokens.encode(next) : null;
    options.next = token && o.nextUrl ? o.nextUrl(token) : token;
    // The rest of the result, held for the next page: only under the token the client was given.
    const rest = cutter.rest();
    if (rest) page.handOn(token && (headerToken === undefined || headerToken === token) ? token : null, rest);
  });
  const shown = gateway
    ? entry.format === 'csv'
      ? flattenDecoded(gateway.run.project(view), gateway.decodedOutputs)
      : gateway.run.project(view)
    : payloads
      ? payloads.wrap(view, { flatten: entry.format === 'csv' })
      : view;
  const encoded = entry.encode(shown, options);
  body = encodedReadable(flushThenAbort(encoded, reply.raw));
  body.once('close', () => {
    if (finished) return;
    request.audit.rows = cutter.rows;
    app.metrics.rows.inc({ format: entry.format }, cutter.rows);
    app.metrics.trinoQueries.inc({ outcome: abort.signal.aborted ? 'cancelled' : 'failed' });
  });
  body.on('error', (err) => request.log.warn({ err }, 'response stream failed'));
  return reply.type(entry.contentType).send(body);
}

/**
 * The gateway stage over the decoded result: its run, the broker time's index in the decoded rows (anchored pages),
 * and the outputs that come from decoding (CSV flattens their records).
 */
function gatewayOf(stage: GatewayStage, decoded: ResultStream, plan: PlannedRead) {
  const payloadColumns = new Set(
    ['key', 'value'].filter((n) => decoded.columns.some((c) => c.name === `${n}_schema_id`)),
  );
  const run = gatewayRun(stage, decoded, payloadColumns);
  const timeIndex = plan.timeIndex === null ? null : decoded.columns.findIndex((c) => c.name === TIME_COLUMN);
  const decodedOutputs = new Set(
    stage.select.flatMap((s) =>
      s.kind === 'select-column' && (isDecoded(s.column) || payloadColumns.has(s.column.name)) ? [s.as] : [],
    ),
  );
  return { run, timeIndex, decodedOutputs };
}
