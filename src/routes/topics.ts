/** The served topics and what is in them (API.md "Topics"). */
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { TableInfo } from '../catalog/topic-catalog.js';
import { TRINO_ERRORS, errorResponses } from './events-schema.js';

export const TopicSummary = Type.Object({
  name: Type.String({ description: 'The topic id used in URLs', examples: ['orders'] }),
  schema: Type.String({ examples: ['demo|kafka_topics'] }),
  table: Type.String({ description: 'The Trino table behind the topic' }),
  kind: Type.Union([Type.Literal('topic'), Type.Literal('table')], {
    description: '`topic`: the topic-table layout (key, value, timestamp_broker, ...); `table`: any other table',
  }),
});

export const ColumnSchema = Type.Object({
  name: Type.String(),
  type: Type.String({ description: 'Trino type', examples: ['varbinary', 'timestamp(3)'] }),
  origin: Type.Union([Type.Literal('table'), Type.Literal('expansion')]),
});

export const TopicDetail = Type.Composite([
  TopicSummary,
  Type.Object({ catalog: Type.String(), columns: Type.Array(ColumnSchema) }),
]);

export const TopicParams = Type.Object({
  topic: Type.String({ minLength: 1, maxLength: 512, description: 'Topic id from GET /v1/topics', examples: ['orders'] }),
});

function summary(t: TableInfo) {
  return { name: t.id, schema: t.schema, table: t.table, kind: t.kind };
}

export default async function topicRoutes(app: FastifyInstance): Promise<void> {
  app.get(
    '/topics',
    {
      schema: {
        tags: ['topics'],
        summary: 'List the served topics',
        response: { 200: Type.Object({ topics: Type.Array(TopicSummary) }), ...errorResponses(TRINO_ERRORS) },
      },
    },
    async () => ({ topics: [...(await app.tg.catalog.tables()).values()].map(summary) }),
  );

  app.get<{ Params: { topic: string } }>(
    '/topics/:topic',
    {
      schema: {
        tags: ['topics'],
        summary: 'Describe a topic: its columns and their Trino types',
        params: TopicParams,
        response: { 200: TopicDetail, ...errorResponses(['TG_BAD_REQUEST', 'TG_TOPIC_NOT_FOUND', ...TRINO_ERRORS]) },
      },
    },
    async (request) => {
      const t = await app.tg.catalog.get(request.params.topic);
      return {
        ...summary(t),
        catalog: app.tg.config.catalog,
        columns: t.columns.map((c) => ({ name: c.name, type: c.type, origin: 'table' as const })),
      };
    },
  );
}
