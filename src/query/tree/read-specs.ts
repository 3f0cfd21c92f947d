/**
 * What a read may select, group by and order by (API.md "Aggregation"): the specs a ReadRequest carries, as the
 * request schema (request/read-schema.ts) validates them and the planner reads them.
 */
import { Type, type Static } from 'typebox';

/** The aggregate functions of `select` (API.md "Aggregation"); nodes.ts AggregateFn is this list's union. */
export const AGGREGATE_FNS = [
  'count',
  'count_distinct',
  'approx_distinct',
  'sum',
  'avg',
  'min',
  'max',
  'approx_percentile',
  'latest',
  'earliest',
] as const;

const ALIAS = '^[A-Za-z_][A-Za-z0-9_]{0,127}$';

export const AggregateSpec = Type.Object(
  {
    fn: Type.Enum(AGGREGATE_FNS, { type: 'string' }),
    field: Type.Optional(
      Type.String({
        description:
          'The column aggregated (not for count); a JSON arrow path such as `value->>amount` is read as a number by sum, avg and approx_percentile',
      }),
    ),
    as: Type.Optional(Type.String({ pattern: ALIAS, description: 'Name of the result column' })),
    p: Type.Optional(Type.Number({ description: 'Percentile for approx_percentile, 0 to 1' })),
  },
  {
    additionalProperties: false,
    description: 'An aggregate: `latest` / `earliest` take the value at the newest / oldest timestamp_broker',
  },
);
export type AggregateSpec = Static<typeof AggregateSpec>;

export const SelectSpec = Type.Union([
  Type.String({
    description:
      'A column, expanded field or JSON arrow path (`value->>status`), optionally renamed `alias:column` (a group key when aggregating)',
  }),
  AggregateSpec,
]);
export type SelectSpec = Static<typeof SelectSpec>;

export const GroupSpec = Type.Union([
  Type.String({ description: 'A column, expanded field or JSON arrow path (`value->>status`)' }),
  Type.Object(
    {
      // A duration read by request/time.ts parseDuration (the one parser), so no pattern here.
      bucket: Type.String({
        description: 'Time bucket of timestamp_broker (UTC, epoch-aligned): `<n>ms|s|m|h|d`',
        examples: ['1h'],
      }),
      as: Type.Optional(Type.String({ pattern: ALIAS, description: 'Name of the bucket column (default `bucket`)' })),
    },
    { additionalProperties: false },
  ),
]);
export type GroupSpec = Static<typeof GroupSpec>;

export const OrderSpec = Type.Object(
  {
    field: Type.String({ description: 'A column, expanded field or aggregate alias' }),
    dir: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')])),
    nulls: Type.Optional(Type.Union([Type.Literal('first'), Type.Literal('last')])),
  },
  { additionalProperties: false },
);
export type OrderSpec = Static<typeof OrderSpec>;
