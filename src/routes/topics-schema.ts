/** The served topics and what is in them (API.md "Topics"), and the `{topic}` path parameter of every topic route. */
import { PayloadsSchema } from '../blob/avro/payload-info.js';
import { Type, type Static } from 'typebox';

export const TopicParams = Type.Object({
  topic: Type.String({
    minLength: 1,
    maxLength: 512,
    description: 'Topic id from GET /v1/topics',
    examples: ['orders'],
  }),
});
export type TopicParams = Static<typeof TopicParams>;

export const TopicSummary = Type.Object({
  name: Type.String({ description: 'The topic id used in URLs', examples: ['orders'] }),
  schema: Type.String({ examples: ['demo|kafka_topics'] }),
  table: Type.String({ description: 'The Trino table behind the topic' }),
  kind: Type.Union([Type.Literal('topic'), Type.Literal('table')], {
    description: '`topic`: the topic-table layout (key, value, timestamp_broker, ...); `table`: any other table',
  }),
});
export type TopicSummary = Static<typeof TopicSummary>;

export const TopicList = Type.Object({ topics: Type.Array(TopicSummary) });
export type TopicList = Static<typeof TopicList>;

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
export type ColumnSchema = Static<typeof ColumnSchema>;

export const NativeExpansionSchema = Type.Object(
  {
    name: Type.String({ description: 'Topic id of the native expansion table' }),
    found: Type.Boolean(),
    columns: Type.Array(Type.Object({ name: Type.String(), type: Type.String() })),
    joinable: Type.Boolean({ description: 'Whether its rows carry key and timestamp_broker' }),
    note: Type.String(),
  },
  {
    description:
      "A VAST blob-expansion table holding typed columns parsed from this topic's payloads (shown only to a caller who " +
      'may see that table; the row policies of the topic apply to it too)',
  },
);
export type NativeExpansionSchema = Static<typeof NativeExpansionSchema>;

export const TopicDetail = Type.Object({
  ...TopicSummary.properties,
  catalog: Type.String(),
  columns: Type.Array(ColumnSchema),
  expansionTable: Type.Optional(NativeExpansionSchema),
  expansionOf: Type.Optional(
    Type.String({
      description: 'For an expansion table: the topic whose payloads it holds (shown only to a caller who may see it)',
    }),
  ),
  payloads: Type.Optional(PayloadsSchema),
});
export type TopicDetail = Static<typeof TopicDetail>;
