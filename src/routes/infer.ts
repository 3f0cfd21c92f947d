/** Schema inference for blob expansion (API.md "Blob expansion"): sample payloads, propose typed columns. */
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import { inferRead } from '../read/infer-read.js';
import { TopicParams } from './topics.js';
import { errorResponses, TRINO_ERRORS } from './events-schema.js';

const InferQuery = Type.Object({
  since: Type.Optional(
    Type.String({
      description: 'Start of the sampled window (default: until minus 1 day)',
      examples: ['2026-11-01T00:00:00Z'],
    }),
  ),
  until: Type.Optional(
    Type.String({ description: 'End of the sampled window (default: now)', examples: ['2026-11-02T00:00:00Z'] }),
  ),
  sample: Type.Optional(
    Type.Integer({ minimum: 1, description: 'Events to sample (default 1000; capped by TOPICGATE_INFER_MAX_SAMPLE)' }),
  ),
});

export default async function inferRoutes(app: FastifyInstance): Promise<void> {
  app.get<{ Params: Static<typeof TopicParams>; Querystring: Static<typeof InferQuery> }>(
    '/topics/:topic/schema/infer',
    {
      schema: {
        tags: ['topics'],
        summary: 'Infer typed fields from the JSON payloads of sampled events',
        description:
          'Returns each field path with its inferred Trino type and how often it was present, a ready `expand` block for the config file, and the VAST blob-expansion `arrow_schema` list for the same fields (nested names joined with `__`). Payloads that are not UTF-8 or not JSON objects are counted, not fatal.',
        params: TopicParams,
        querystring: InferQuery,
        response: {
          200: Type.Object({
            topic: Type.String(),
            window: Type.Object({ since: Type.String(), until: Type.String() }),
            sampled: Type.Integer(),
            json: Type.Integer({ description: 'Sampled payloads that were JSON objects' }),
            malformed: Type.Object({ notUtf8: Type.Integer(), notJson: Type.Integer(), notObject: Type.Integer() }),
            fields: Type.Array(
              Type.Object({
                name: Type.String(),
                path: Type.String(),
                type: Type.String({ description: 'Fits every sampled value (widened on conflicts)' }),
                proposed: Type.String({
                  description:
                    'Type in the proposed expand block (a minority under 2% of another type does not widen it: those values read as NULL)',
                }),
                types: Type.Record(Type.String(), Type.Integer()),
                seen: Type.Integer(),
                presence: Type.Number(),
              }),
            ),
            expand: Type.Record(Type.String(), Type.Object({ path: Type.String(), type: Type.String() })),
            arrow_schema: Type.Array(
              Type.Object({
                name: Type.String(),
                field: Type.Object({ column_type: Type.String(), value_type: Type.Optional(Type.String()) }),
              }),
            ),
          }),
          ...errorResponses([
            'TG_BAD_REQUEST',
            'TG_BAD_TIME',
            'TG_TOPIC_NOT_FOUND',
            'TG_TOO_EXPENSIVE',
            ...TRINO_ERRORS,
          ]),
        },
      },
    },
    async (request) => inferRead(app, request.params.topic, request.query),
  );
}
