/** The served topics and what is in them (API.md "Topics"). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { TableInfo } from '../query/tree/topic-model.js';
import { topicModel } from '../read/topic-catalog.js';
import { expansionOf, nativeExpansionOf } from '../blob/json/native-expansion.js';
import { AUTH_ERRORS, PATH_ERRORS, TRINO_ERRORS, errorResponses } from './error-schema.js';
import { authorizeVisible } from '../access/authorize.js';
import { payloadInfo } from '../blob/avro/payload-info.js';
import { TopicDetail, TopicList, TopicParams, type TopicSummary } from './topics-schema.js';

function summary(t: TableInfo): TopicSummary {
  return { name: t.id, schema: t.schema, table: t.table, kind: t.kind };
}

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
    async (request) => ({
      topics: app.access.grants
        .visibleTopics(request.principal, [...(await app.tg.catalog.tables()).values()])
        .map(summary),
    }),
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
    async (request) => {
      authorizeVisible(request, request.params.topic);
      const t = await app.tg.catalog.get(request.params.topic);
      const tables = await app.tg.catalog.tables();
      const { config } = app.tg;
      const model = topicModel(t, config);
      const columns = [...model.columns.values()].map((c) =>
        c.source.kind === 'json'
          ? {
              name: c.name,
              type: c.type,
              origin: 'expansion' as const,
              path: config.topics[t.id]!.expand![c.name]!.path,
            }
          : { name: c.name, type: c.type, origin: 'table' as const },
      );
      // The other table of a topic is named only to a caller who may see it.
      const sees = (id: string) => app.access.grants.sees(request.principal, id);
      const found = nativeExpansionOf(t, tables, config.topics[t.id]);
      const native = found && sees(found.name) ? found : null;
      const parent = t.kind === 'table' ? expansionOf(t, tables, config.topics) : null;
      const of = parent !== null && sees(parent) ? parent : null;
      const payloads = t.kind === 'topic' ? await payloadInfo(t.id, config.topics[t.id], app.tg.registry) : undefined;
      return {
        ...summary(t),
        catalog: config.catalog,
        columns,
        ...(native ? { expansionTable: native } : {}),
        ...(of ? { expansionOf: of } : {}),
        ...(payloads ? { payloads } : {}),
      };
    },
  );
}

const topicRoutes: FastifyPluginAsyncTypebox = async (app) => {
  topicListRoute(app);
  topicDetailRoute(app);
};

export default topicRoutes;
