/** Loads run by Trino (API.md "Loads run by Trino: topic into table"): bodies and views. */
import { Type, type Static } from 'typebox';
import { Where } from '../query/request/where-schema.js';
import { CAP_CEILINGS } from '../config/access-schema.js';

export const LoadParams = Type.Object({
  name: Type.String({
    pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$',
    description: 'Load name: letters, digits, . _ -',
    examples: ['orders-lake'],
  }),
});
export type LoadParams = Static<typeof LoadParams>;

export const LoadBody = Type.Object(
  {
    topic: Type.String({ examples: ['orders'] }),
    select: Type.Optional(
      Type.Array(Type.String(), {
        maxItems: CAP_CEILINGS.selectItems,
        description:
          'Columns and expanded fields to land (expansions become typed columns); default all. timestamp_broker and timestamp_producer are always landed',
      }),
    ),
    where: Type.Optional(Where),
    target: Type.String({
      description:
        "`<catalog>.<schema>.<table>` in a schema loads.targets allows (default `lake.*`; never the topics' catalog), created on the first run from the select. It belongs to this load: a table another load holds, or one that exists and no load of this principal made, is 409 TG_LOAD_TARGET_TAKEN",
      examples: ['lake.landing.orders'],
    }),
    start: Type.Optional(
      Type.String({
        description: 'earliest, or an ISO-8601 instant: where the first window starts',
        examples: ['earliest'],
      }),
    ),
    // A duration read by query/request/time.ts parseDuration (the one parser), so no pattern here.
    settle: Type.Optional(
      Type.String({ description: 'Events newer than now minus this are not loaded yet', examples: ['30s'] }),
    ),
  },
  { additionalProperties: false },
);
export type LoadBody = Static<typeof LoadBody>;

const Instant = Type.Union([Type.String(), Type.Null()]);

export const RunView = Type.Object({
  run: Type.String({ description: 'Run id' }),
  window: Type.Object(
    { from: Instant, until: Type.String() },
    { description: 'Broker time [from, until) of whole milliseconds; from null: the beginning of the topic' },
  ),
  rows: Type.Union([Type.Integer(), Type.Null()], { description: 'Events inserted (null before the INSERT ended)' }),
  queryIds: Type.Array(Type.String(), { description: "Trino query ids of the run's statements" }),
  startedAt: Type.String(),
  finishedAt: Type.Union([Type.String(), Type.Null()]),
  durationMs: Type.Union([Type.Integer(), Type.Null()]),
  outcome: Type.Union([Type.Literal('running'), Type.Literal('committed'), Type.Literal('failed')]),
  error: Type.Union([Type.String(), Type.Null()]),
});
export type RunView = Static<typeof RunView>;

export const Lag = Type.Object({
  events: Type.Integer({ description: "Settled events after the position, with the load's filters" }),
  ms: Type.Union([Type.Integer(), Type.Null()], { description: 'Age of the position (null: nothing loaded yet)' }),
});

export const LoadView = Type.Object({
  name: Type.String(),
  definition: Type.Unknown(),
  position: Type.Union([Type.String(), Type.Null()], {
    description: 'Every event before this broker time is in the target (null: nothing loaded yet)',
  }),
  createdAt: Type.String(),
  updatedAt: Type.String(),
  lag: Type.Optional(Lag),
  runs: Type.Optional(Type.Array(RunView, { description: 'The last runs, newest first' })),
});
export type LoadView = Static<typeof LoadView>;

export const RunBody = Type.Object(
  {
    until: Type.Optional(
      Type.String({ description: 'End of the window at the latest (ISO-8601); never past now minus settle' }),
    ),
  },
  { additionalProperties: false },
);
export type RunBody = Static<typeof RunBody>;

export const RunResult = Type.Object({
  outcome: Type.Union([Type.Literal('committed'), Type.Literal('empty')], {
    description: 'empty: no settled millisecond after the position yet; nothing ran',
  }),
  run: Type.Union([RunView, Type.Null()]),
  window: Type.Object({ from: Instant, until: Instant }),
  rows: Type.Integer(),
  position: Instant,
  lag: Type.Optional(
    Type.Object(Lag.properties, {
      description: 'Absent when Trino could not count it once the run had committed (the run still landed whole)',
    }),
  ),
});
export type RunResult = Static<typeof RunResult>;

export const RunsQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'Most runs listed (default 100)' })),
});
export type RunsQuery = Static<typeof RunsQuery>;

export const Runs = Type.Object({ runs: Type.Array(RunView) });
export type Runs = Static<typeof Runs>;
