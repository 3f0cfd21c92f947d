/** The served topics and what is in them (API.md "Topics"). */
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { TableInfo } from '../catalog/topic-catalog.js';
import { topicModel } from '../catalog/topic-model.js';
import { expansionOf, nativeExpansionOf } from '../blob/native-expansion.js';
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
  origin: Type.Union([Type.Literal('table'), Type.Literal('expansion')], {
    description:
      '`expansion`: computed at query time from JSON in `value` (config `expand`); filters on it are not pushed down',
  }),
  path: Type.Optional(
    Type.String({ description: 'JSON path of an expanded field', examples: ['$.customer.address.country'] }),
  ),
});

const NativeExpansionSchema = Type.Object(
  {
    name: Type.String({ description: 'Topic id of the native expansion table' }),
    found: Type.Boolean(),
    columns: Type.Array(Type.Object({ name: Type.String(), type: Type.String() })),
    joinable: Type.Boolean({ description: 'Whether its rows carry key and timestamp_broker' }),
    note: Type.String(),
  },
  { description: "A VAST blob-expansion table holding typed columns parsed from this topic's payloads" },
);

export const TopicDetail = Type.Composite([
  TopicSummary,
  Type.Object({
    catalog: Type.String(),
    columns: Type.Array(ColumnSchema),
    expansionTable: Type.Optional(NativeExpansionSchema),
    expansionOf: Type.Optional(
      Type.String({ description: 'For an expansion table: the topic whose payloads it holds' }),
    ),
  }),
]);

export const TopicParams = Type.Object({
  topic: Type.String({
    minLength: 1,
    maxLength: 512,
    description: 'Topic id from GET /v1/topics',
    examples: ['orders'],
  }),
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
      const native = nativeExpansionOf(t, tables, config.topics[t.id]);
      const of = t.kind === 'table' ? expansionOf(t, tables, config.topics) : null;
      return {
        ...summary(t),
        catalog: config.catalog,
        columns,
        ...(native ? { expansionTable: native } : {}),
        ...(of ? { expansionOf: of } : {}),
      };
    },
  );
}
