/** Schema inference for blob expansion (API.md "Blob expansion"): sample payloads, propose typed columns. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { authorize, rowScope } from '../access/authorize.js';
import { inferRead } from '../read/infer-read.js';
import { ACCESS_ERRORS, PATH_ERRORS, TRINO_ERRORS, errorResponses } from './error-schema.js';
import { InferQuery, InferResult } from './infer-schema.js';
import { TopicParams } from './topics-schema.js';

const inferRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/topics/:topic/schema/infer',
    {
      config: { data: true },
      schema: {
        tags: ['topics'],
        summary: 'Infer typed fields from the JSON payloads of sampled events',
        description:
          'Returns each field path with its inferred Trino type and how often it was present, a ready `expand` block for the config file, and the VAST blob-expansion `arrow_schema` list for the same fields (nested names joined with `__`). Payloads that are not UTF-8 or not JSON objects are counted, not fatal.',
        params: TopicParams,
        querystring: InferQuery,
        response: {
          200: InferResult,
          // Not a topic table (400), the times, the window or sample above the caps (422), and Trino.
          ...errorResponses([
            ...PATH_ERRORS,
            ...ACCESS_ERRORS,
            'TG_TOPIC_NOT_FOUND',
            'TG_BAD_TIME',
            'TG_TOO_EXPENSIVE',
            ...TRINO_ERRORS,
            // A framed topic: the versions of the schema ids found come from the registry.
            'TG_SCHEMA_REGISTRY',
          ]),
        },
      },
    },
    async (request) => {
      authorize(request, request.params.topic, 'infer');
      return inferRead(
        app.tg,
        request.params.topic,
        request.query,
        request.principal,
        (topic) => rowScope(request, topic),
        request.trino,
      );
    },
  );
};

export default inferRoutes;
