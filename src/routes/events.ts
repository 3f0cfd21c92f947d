/** Reading events (API.md "Reading events", "Aggregation", "Explain"): GET with PostgREST filters, POST with a body. */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import { topicModel } from '../catalog/topic-model.js';
import { readRequestFromBody, readRequestFromQuery, type QueryBody } from '../query/read-request.js';
import { resolver } from '../query/plan.js';
import { runRead } from '../read/run-read.js';
import { TopicParams } from './topics.js';
import { ErrorResponses, EventsQuerystring, QueryBodySchema, ReadResponses } from './events-schema.js';

async function topicFor(app: FastifyInstance, id: string) {
  return topicModel(await app.tg.catalog.get(id), app.tg.config);
}

/** The same URL with `cursor` set to the next page's token. */
function nextUrlOf(request: FastifyRequest) {
  return (token: string) => {
    const url = new URL(request.url, 'http://x');
    url.searchParams.set('cursor', token);
    return `${url.pathname}${url.search}`;
  };
}

export default async function eventRoutes(app: FastifyInstance): Promise<void> {
  app.get<{ Params: Static<typeof TopicParams>; Querystring: Static<typeof EventsQuerystring> }>(
    '/topics/:topic/events',
    {
      schema: {
        tags: ['events'],
        summary: 'Read events, filtered and paged',
        description:
          'Filters use PostgREST grammar: any column (or expanded field) as a parameter, `col=op.value`. ' +
          'Rows come in `timestamp_broker` order unless `order` says otherwise; follow `next` for the next page.',
        params: TopicParams,
        querystring: EventsQuerystring,
        response: { ...ReadResponses, ...ErrorResponses },
      },
    },
    async (request, reply) => {
      const topic = await topicFor(app, request.params.topic);
      const q = request.query as Record<string, unknown>;
      const req = readRequestFromQuery(q, resolver(topic));
      return runRead(app, request, reply, {
        topic,
        req,
        cursor: q.cursor as string | undefined,
        format: q.format as string | undefined,
        explain: q.explain === 'true',
        nextUrl: nextUrlOf(request),
      });
    },
  );

  app.post<{ Params: Static<typeof TopicParams>; Body: Static<typeof QueryBodySchema> }>(
    '/topics/:topic/query',
    {
      schema: {
        tags: ['events'],
        summary: 'Query events: filters, aggregation, time buckets, dedupe',
        description:
          'The JSON body has the meaning of the GET parameters, plus `groupBy`, aggregates in `select`, and `dedupe`. `next` is a cursor token to send back as `cursor`.',
        params: TopicParams,
        body: QueryBodySchema,
        response: { ...ReadResponses, ...ErrorResponses },
      },
    },
    async (request, reply) => {
      const topic = await topicFor(app, request.params.topic);
      const body = request.body as QueryBody;
      return runRead(app, request, reply, {
        topic,
        req: readRequestFromBody(body, resolver(topic)),
        cursor: body.cursor,
        format: body.format ?? (request.query as { format?: string }).format,
        explain: body.explain === true,
      });
    },
  );
}
