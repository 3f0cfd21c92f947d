/**
 * Read sessions (API.md "Read sessions"): `POST /v1/topics/{topic}/sessions` plans the `limit=all` read of its body
 * (every check a `/query` read has), counts its rows per time bucket in one query, and cuts the window into streams
 * of about equal rows (query/passes/session-split.ts); each stream URL carries its signed description
 * (sessions/stream-token.ts). `GET .../streams/{index}?token=` reads one stream as the `limit=all` read of its
 * range, through the same read path as `/query`: any instance with the same cursor secret serves it.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { accessCallOf, rowScope } from '../access/authorize.js';
import { sessionStreamRead } from '../entry/session-stream-read.js';
import { ApiError, type ErrorCode } from '../core/errors.js';
import { predicateColumns } from '../query/passes/post-decode-split.js';
import { isDecoded } from '../query/request/decoded-column.js';
import { readRequestOfSession } from '../query/request/parse-read-request.js';
import { resolver } from '../query/request/resolver.js';
import { SessionBody, type SessionRead } from '../query/request/session-schema.js';
import { planColumns } from '../read/open-page.js';
import { checkStreamCount, sessionRanges } from '../sessions/session-ranges.js';
import { makeSession } from '../sessions/session-streams.js';
import { bindStream, checkStreamCaller, presignedPrincipal, sessionExpiry } from '../sessions/stream-principal.js';
import { StreamTokens, type StreamBody } from '../sessions/stream-token.js';
import { BODY_ERRORS, errorResponses } from './error-schema.js';
import { READ_ERRORS } from './events.js';
import { ReadResponses } from './read-response-schema.js';
import { topicFor, withDecodedFields } from '../http/request-topic.js';
import { SessionCreated, StreamFileParams, StreamFileQuery, StreamParams, StreamQuery } from './sessions-schema.js';
import { FileResponses } from './event-files-schema.js';
import type { FileSuffix } from '../http/window-file.js';
import { TopicParams } from './topics-schema.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** A stream read: its description, opened and bound to the caller before the request takes a query slot. */
    sessionStream: StreamBody | null;
  }
}

type App = Parameters<FastifyPluginAsyncTypebox>[0];

/** A session reads as `/query` does, but takes no page cursor and answers in JSON. */
const SESSION_ERRORS = READ_ERRORS.filter((c) => c !== 'TG_BAD_CURSOR' && c !== 'TG_NOT_ACCEPTABLE');

/** A stream reads as `/query` does, in any format, from its signed URL: altered (400) or expired (410). */
const STREAM_ERRORS: ErrorCode[] = [
  ...READ_ERRORS.filter((c) => c !== 'TG_BAD_CURSOR'),
  'TG_BAD_SESSION',
  'TG_SESSION_EXPIRED',
];

/** A stream's file reads as a stream does, and adds a window's file's refusals. */
const STREAM_FILE_ERRORS: ErrorCode[] = [
  ...STREAM_ERRORS.filter((c) => c !== 'TG_NOT_ACCEPTABLE'),
  'TG_WINDOW_NOT_SETTLED',
  'TG_RANGE_NOT_SATISFIABLE',
];

/** What a session reads besides its window, as its streams' tokens carry it. */
function sessionRead(body: SessionBody): SessionRead {
  const { select, where, order, decode } = body;
  return { select, where, order, decode };
}

/** A stream with its URLs as files: the same path and token, the file's suffix after the index. */
function withFiles<T extends { url: string }>(stream: T): T & { files: Record<FileSuffix, string> } {
  const [path = '', query = ''] = stream.url.split('?');
  const file = (suffix: FileSuffix) => `${path}.${suffix}?${query}`;
  return {
    ...stream,
    files: { parquet: file('parquet'), arrow: file('arrow'), csv: file('csv'), ndjson: file('ndjson') },
  };
}

function createRoute(app: App, tokens: StreamTokens): void {
  app.post(
    '/topics/:topic/sessions',
    {
      config: { data: true },
      schema: {
        tags: ['sessions'],
        summary: 'Create a read session: one bulk read as many streams',
        description:
          'Plans the `limit=all` read of the body over `since`..`until` (both required, pinned now), counts its rows per time bucket in one Trino query, and splits the window at whole milliseconds into streams of about equal rows. Read the streams concurrently, from any gateway instance, in any format; together they are exactly the rows of that read, each once, and with order `time` in index order they are its order.',
        params: TopicParams,
        body: SessionBody,
        response: { 201: SessionCreated, ...errorResponses([...SESSION_ERRORS, ...BODY_ERRORS]) },
      },
    },
    async (request, reply) => {
      const body = request.body;
      const max = checkStreamCount(app.tg.config, body.streams);
      // A file is in time order (its row groups' statistics on timestamp_broker are what range readers skip by).
      if (body.files === true && body.order === 'none')
        throw new ApiError('TG_BAD_REQUEST', 'files: a file is in time order; a session with order none has no files', {
          parameter: 'files',
        });
      const decode = body.decode !== false;
      const model = await topicFor(app, request, request.params.topic);
      const { topic, readerVersions = {} } = await withDecodedFields(app, model, decode);
      const read = sessionRead(body);
      const rows = rowScope(request, topic);
      const req = readRequestOfSession(read, body, resolver(topic));
      const planned = await request.planRead({ topic, req, rows, decode, readerVersions });
      // The count runs in Trino, before decoding: a row policy on a decoded field is not in it. Its counts (and
      // where they put the cuts) would tell of rows the caller may not read, so such a scope is cut into equal
      // widths, uncounted, and its streams show no estimatedRows.
      const counted = !predicateColumns(rows.filter).some(isDecoded);
      const ranges = await sessionRanges(planned, {
        counted,
        streams: body.streams,
        max,
        trino: request.trino,
        timeoutMs: app.tg.config.queryTimeoutMs,
      });
      const access = { grants: app.access.grants, policies: app.access.rowPolicies };
      const binding = bindStream(request.principal, rows, access, topic, body.presign === true);
      const expiry = sessionExpiry(request.principal, app.tg.config.sessionTtlMs, Date.now());
      const parts = { topic: topic.id, read, binding, readerVersions, counted };
      const session = makeSession(
        tokens,
        { ...parts, expiresMs: expiry.x, credentialExpiresMs: expiry.credential },
        ranges,
      );
      const { config, registry } = app.tg;
      const columns = await planColumns({ config, registry }, planned, { topic: topic.id, decode, readerVersions });
      const streams = body.files === true ? session.streams.map(withFiles) : session.streams;
      return reply.status(201).send({ ...session, streams, columns: [...columns] });
    },
  );
}

/** The read of the stream the request opened (openStream), for its caller (entry/session-stream-read.ts). */
function streamReadOf(app: FastifyInstance, request: FastifyRequest) {
  return sessionStreamRead({ ...accessCallOf(request), services: app.tg }, request.sessionStream!);
}

/**
 * Before the request takes a query slot (a route hook runs after the app's authentication, before its query
 * lease): the token opened (400, 410), matched to the path, and the caller bound to it. Without credentials only a
 * presigned stream is read, as the principal it carries; with them, only by the principal that made it.
 */
function openStream(app: FastifyInstance, tokens: StreamTokens) {
  return async (request: FastifyRequest<{ Params: StreamParams }>): Promise<void> => {
    // A stream is never revalidated: every read is checked again (noStore), never a 304 on a tag seen before.
    delete request.headers['if-none-match'];
    const s = tokens.open((request.query as { token?: unknown }).token);
    const { topic, session, index } = request.params;
    if (s.t !== topic || s.i !== session || String(s.n) !== index) {
      throw new ApiError('TG_BAD_SESSION', 'token: it describes another stream than this path names', {
        parameter: 'token',
      });
    }
    const { authenticator } = app.access;
    const bare = authenticator.enabled && request.principal.via === 'anonymous';
    if (bare && !s.s) await authenticator.authenticate(request.headers); // throws the 401 a bare request gets
    if (bare) request.principal = presignedPrincipal(s, app.tg.config);
    else checkStreamCaller(s, request.principal);
    request.sessionStream = s;
  };
}

/**
 * Every answer of a stream, its rows and its refusals alike, is `no-store`: a cache that kept one would serve it
 * after the session expired or its grant was revoked, checking neither (RFC 9111 5.2.2.5).
 */
async function noStore(_request: FastifyRequest, reply: FastifyReply): Promise<void> {
  reply.removeHeader('etag');
  reply.header('Cache-Control', 'private, no-store');
}

function streamRoute(app: App, tokens: StreamTokens): void {
  app.get(
    '/topics/:topic/sessions/:session/streams/:index',
    {
      config: { data: true, signed: true },
      preValidation: openStream(app, tokens),
      onSend: async (request, reply) => noStore(request, reply),
      schema: {
        tags: ['sessions'],
        summary: 'Read one stream of a read session, in any format',
        description:
          "The `limit=all` read of the session's request over this stream's time range, streamed as `/query` streams it (backpressure, completeness marks, lossless types). Its grants and row policies are checked again now: a revoked grant is a 403. Without `presign` it needs the credentials of the principal that made the session; with it the URL alone is enough until `expiresAt`. Each read is one Trino query against the quotas.",
        // The presigned URL alone (no credentials), or the credentials of the session's principal.
        security: [{}, { bearer: [] }, { apiKey: [] }],
        params: StreamParams,
        querystring: StreamQuery,
        response: { ...ReadResponses, ...errorResponses(STREAM_ERRORS) },
      },
    },
    async (request, reply) => {
      const { topic, req, rows, readerVersions, decode } = await streamReadOf(app, request);
      const { format, compression } = request.query;
      return reply.sendRead({ topic, req, rows, readerVersions, format, compression, decode });
    },
  );
}

/**
 * A stream as a file (API.md "Windows as files"): the stream's read, checked as a stream read is (its token, its
 * principal's grants and row scope now), answered by the file cache with Range. Its validators are kept (a range
 * reader checks its ranges against them); it is `no-store` as every stream answer is.
 */
function streamFileRoute(app: App, tokens: StreamTokens): void {
  app.route({
    method: ['GET', 'HEAD'],
    url: '/topics/:topic/sessions/:session/streams/:index.:suffix',
    exposeHeadRoute: false,
    config: { data: true, signed: true },
    preValidation: openStream(app, tokens),
    onSend: async (_request, reply) => void reply.header('Cache-Control', 'private, no-store'),
    schema: {
      tags: ['sessions'],
      summary: 'Read one stream of a read session as a file, by byte range',
      description:
        "The stream's rows as one file (`parquet`, `arrow`, `csv`, `ndjson`), made once into the file cache and served with `Range`, as `GET /v1/topics/{topic}/events.{suffix}` serves a window. The stream's window must be settled (409). Access is checked as for the stream: presigned, the URL alone reads it until `expiresAt`.",
      security: [{}, { bearer: [] }, { apiKey: [] }],
      params: StreamFileParams,
      querystring: StreamFileQuery,
      response: { ...FileResponses, ...errorResponses(STREAM_FILE_ERRORS) },
    },
    handler: async (request, reply) => {
      const { topic, req, rows, readerVersions, decode } = await streamReadOf(app, request);
      const { suffix } = request.params as StreamFileParams;
      const { compression } = request.query as StreamFileQuery;
      return reply.sendWindowFile({ suffix, topic, req, rows, readerVersions, decode, compression });
    },
  });
}

const sessionRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.decorateRequest('sessionStream', null);
  const tokens = new StreamTokens(app.tg.keyring);
  createRoute(app, tokens);
  streamRoute(app, tokens);
  streamFileRoute(app, tokens);
};

export default sessionRoutes;
