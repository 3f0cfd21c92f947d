/** The served topics and what is in them (API.md "Topics"): the read entry's answers (entry/topic-detail.ts). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { accessCallOf } from '../access/authorize.js';
import { topicDetail, visibleTopics } from '../entry/topic-detail.js';
import { AUTH_ERRORS, PATH_ERRORS, TRINO_ERRORS, errorResponses } from './error-schema.js';
import { TopicDetail, TopicList, TopicParams } from './topics-schema.js';

type App = Parameters<FastifyPluginAsyncTypebox>[0];

/** The served topics the caller may see. */
function topicListRoute(app: App): void {
  app.get(
    '/topics',
    {
      schema: {
        tags: ['topics'],
        summary: 'List the served topics',
        // The catalog is read from Trino (topic-catalog.ts).
        response: { 200: TopicList, ...errorResponses([...AUTH_ERRORS, ...TRINO_ERRORS]) },
      },
    },
    // Only the topics the caller may see (API.md "Access").
    async (request) => ({ topics: await visibleTopics({ ...accessCallOf(request), services: app.tg }) }),
  );
}

/** One topic: its columns, expansions and payloads. */
function topicDetailRoute(app: App): void {
  app.get(
    '/topics/:topic',
    {
      schema: {
        tags: ['topics'],
        summary: 'Describe a topic: its columns and their Trino types',
        params: TopicParams,
        response: {
          200: TopicDetail,
          ...errorResponses([
            ...PATH_ERRORS,
            ...AUTH_ERRORS,
            'TG_TOPIC_NOT_FOUND',
            ...TRINO_ERRORS,
            // A topic with Avro payloads: its reader schemas come from the registry.
            'TG_SCHEMA_REGISTRY',
          ]),
        },
      },
    },
    async (request) => topicDetail({ ...accessCallOf(request), services: app.tg }, request.params.topic),
  );
}

const topicRoutes: FastifyPluginAsyncTypebox = async (app) => {
  topicListRoute(app);
  topicDetailRoute(app);
};

export default topicRoutes;
