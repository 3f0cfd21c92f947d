/** Reading events (API.md "Reading events", "Aggregation", "Explain"): GET with PostgREST filters, POST with a body. */
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ErrorCode } from '../core/errors.js';
import { readRequestFromBody, readRequestFromQuery } from '../query/request/parse-read-request.js';
import { resolver } from '../query/request/resolver.js';
import {
  ACCESS_ERRORS,
  BODY_ERRORS,
  FILTER_ERRORS,
  PATH_ERRORS,
  TRINO_ERRORS,
  errorResponses,
} from './error-schema.js';
import { rowScope } from '../access/authorize.js';
import { topicFor, withDecodedFields } from '../http/request-topic.js';
import { EventsQuery, FormatQuery, QueryBody } from '../query/request/read-schema.js';
import { ReadResponses } from './read-response-schema.js';
import { CachedReadResponses } from './read-cache-schema.js';
import { TopicParams } from './topics-schema.js';
import { FollowContent, FollowHeaders } from './follow-schema.js';
import { ApiError } from '../core/errors.js';

/**
 * What a read can fail with: the topic, its filters and plan (request/parse-read-request.ts, plan-read-tree.ts: times, the page cursor,
 * limit above the maximum), the guardrail (passes/residual-scan.ts), the media type (http/negotiate-media.ts), and Trino. A
 * follow adds none: its refusals, event ids and `limits.maxFollowers` use the same codes (query/follow/).
 */
export const READ_ERRORS = [
  ...PATH_ERRORS,
  ...ACCESS_ERRORS,
  'TG_TOPIC_NOT_FOUND',
  ...FILTER_ERRORS,
  'TG_BAD_TIME',
  'TG_BAD_CURSOR',
  'TG_TIME_BOUND_REQUIRED',
  'TG_NOT_ACCEPTABLE',
  ...TRINO_ERRORS,
  // Avro / json-sr payloads: reader and writer schemas come from the registry (blob/avro/payload-decoder.ts).
  'TG_SCHEMA_REGISTRY',
] as const satisfies readonly ErrorCode[];

/** The same URL with `cursor` set to the next page's token. */
function nextUrlOf(request: FastifyRequest) {
  return (token: string) => {
    const url = new URL(request.url, 'http://x');
    url.searchParams.set('cursor', token);
    return `${url.pathname}${url.search}`;
  };
}

type App = Parameters<FastifyPluginAsyncTypebox>[0];

/** A GET read's responses, and a follow's Server-Sent Events beside its media types. */
const EVENTS_RESPONSES = {
  ...CachedReadResponses,
  200: { ...CachedReadResponses[200], content: { ...CachedReadResponses[200].content, ...FollowContent } },
};

/** GET: events in PostgREST grammar. */
function eventsRoute(app: App): void {
  app.get(
    '/topics/:topic/events',
    {
      config: { data: true },
      schema: {
        tags: ['events'],
        summary: 'Read events, filtered and paged',
        description:
          'Filters use PostgREST grammar: any column (or expanded field) as a parameter, `col=op.value`. ' +
          'Rows come in `timestamp_broker` order unless `order` says otherwise; follow `next` for the next page. ' +
          "A settled window (an absolute `until` at least the topic's `settle` ago) is cacheable: `ETag`, and a 304 " +
          'for `If-None-Match`. `follow=true` streams the window and then new events as they settle, until the ' +
          'client leaves (`curl -N`, or an EventSource), resuming after `Last-Event-ID`.',
        params: TopicParams,
        querystring: EventsQuery,
        headers: FollowHeaders,
        response: { ...EVENTS_RESPONSES, ...errorResponses(READ_ERRORS) },
      },
    },
    async (request, reply) => {
      const q = request.query;
      const decode = q.decode !== 'false';
      const model = await topicFor(app, request, request.params.topic, q.explain === 'true');
      const { topic, readerVersions } = await withDecodedFields(app, model, decode);
      const req = readRequestFromQuery(q, resolver(topic));
      const rows = rowScope(request, topic);
      if (q.follow === 'true') {
        const { after, cursor, format } = q;
        const explain = q.explain === 'true';
        return reply.sendFollow({ topic, req, rows, after, cursor, explain, format, decode, readerVersions });
      }
      if (q.after !== undefined)
        throw new ApiError('TG_BAD_REQUEST', 'after resumes a follow: add follow=true', { parameter: 'after' });
      return reply.sendRead({
        topic,
        req,
        readerVersions,
        rows,
        cursor: q.cursor,
        format: q.format,
        compression: q.compression,
        explain: q.explain === 'true',
        decode,
        nextUrl: nextUrlOf(request),
      });
    },
  );
}

/** POST: the same as a JSON body, with aggregates and dedupe. */
function queryRoute(app: App): void {
  app.post(
    '/topics/:topic/query',
    {
      config: { data: true },
      schema: {
        tags: ['events'],
        summary: 'Query events: filters, aggregation, time buckets, dedupe',
        description:
          'The JSON body has the meaning of the GET parameters, plus `groupBy`, aggregates in `select`, and `dedupe`. `next` is a cursor token to send back as `cursor`.',
        params: TopicParams,
        querystring: FormatQuery,
        body: QueryBody,
        response: { ...ReadResponses, ...errorResponses([...READ_ERRORS, ...BODY_ERRORS]) },
      },
    },
    async (request, reply) => {
      const body = request.body;
      const model = await topicFor(app, request, request.params.topic, body.explain === true);
      const { topic, readerVersions } = await withDecodedFields(app, model, body.decode !== false);
      return reply.sendRead({
        topic,
        readerVersions,
        req: readRequestFromBody(body, resolver(topic)),
        rows: rowScope(request, topic),
        cursor: body.cursor,
        format: body.format ?? request.query.format,
        compression: request.query.compression,
        explain: body.explain === true,
        decode: body.decode !== false,
      });
    },
  );
}

const eventRoutes: FastifyPluginAsyncTypebox = async (app) => {
  eventsRoute(app);
  queryRoute(app);
};

export default eventRoutes;
