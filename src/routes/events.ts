/** Reading events (API.md "Reading events", "Aggregation", "Explain"): GET with PostgREST filters, POST with a body. */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { ErrorCode } from '../core/errors.js';
import { topicModel } from '../read/topic-catalog.js';
import { readRequestFromBody, readRequestFromQuery } from '../query/request/read-request.js';
import { resolver } from '../query/request/resolver.js';
import type { TopicModel } from '../query/tree/topic-model.js';
import { decodedTypes } from '../blob/avro/decoded-types.js';
import {
  ACCESS_ERRORS,
  BODY_ERRORS,
  FILTER_ERRORS,
  PATH_ERRORS,
  TRINO_ERRORS,
  errorResponses,
} from './error-schema.js';
import { authorize, rowScope } from '../access/authorize.js';
import { EventsQuery, FormatQuery, QueryBody } from '../query/request/read-schema.js';
import { ReadResponses } from './read-response-schema.js';
import { TopicParams } from './topics-schema.js';

/**
 * What a read can fail with: the topic, its filters and plan (read-request.ts, plan.ts: times, the page cursor,
 * limit above the maximum), the guardrail (passes.ts), the media type (server/negotiate-media.ts), and Trino.
 */
const READ_ERRORS = [
  ...PATH_ERRORS,
  ...ACCESS_ERRORS,
  'TG_TOPIC_NOT_FOUND',
  ...FILTER_ERRORS,
  'TG_BAD_TIME',
  'TG_BAD_CURSOR',
  'TG_TIME_BOUND_REQUIRED',
  'TG_NOT_ACCEPTABLE',
  ...TRINO_ERRORS,
  // Avro / json-sr payloads: reader and writer schemas come from the registry (registry/payload-decoder.ts).
  'TG_SCHEMA_REGISTRY',
] as const satisfies readonly ErrorCode[];

/** The topic, if the caller may `read` it (or `explain` on it): 404 when it may not see it, 403 without the action. */
async function topicFor(app: FastifyInstance, request: FastifyRequest, id: string, explain: boolean) {
  authorize(request, id, explain ? 'explain' : 'read');
  return topicModel(await app.tg.catalog.get(id), app.tg.config);
}

/**
 * The topic with the types of its decoded Avro key / value, so a request can name their fields (`value.amount`);
 * `decode=false` names none. The reader versions are pinned for the response.
 */
async function withDecodedFields(app: FastifyInstance, topic: TopicModel, decode: boolean) {
  const found = decode ? await decodedTypes(topic.id, app.tg.config.topics[topic.id], app.tg.registry) : null;
  return found ? { topic: { ...topic, decoded: found.types }, readerVersions: found.versions } : { topic };
}

/** The same URL with `cursor` set to the next page's token. */
function nextUrlOf(request: FastifyRequest) {
  return (token: string) => {
    const url = new URL(request.url, 'http://x');
    url.searchParams.set('cursor', token);
    return `${url.pathname}${url.search}`;
  };
}

type App = Parameters<FastifyPluginAsyncTypebox>[0];

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
          'Rows come in `timestamp_broker` order unless `order` says otherwise; follow `next` for the next page.',
        params: TopicParams,
        querystring: EventsQuery,
        response: { ...ReadResponses, ...errorResponses(READ_ERRORS) },
      },
    },
    async (request, reply) => {
      const q = request.query;
      const decode = q.decode !== 'false';
      const model = await topicFor(app, request, request.params.topic, q.explain === 'true');
      const { topic, readerVersions } = await withDecodedFields(app, model, decode);
      const req = readRequestFromQuery(q, resolver(topic));
      return reply.sendRead({
        topic,
        req,
        readerVersions,
        rows: rowScope(request, topic),
        cursor: q.cursor,
        format: q.format,
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
