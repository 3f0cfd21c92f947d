/** Named cursors for scheduled batch loaders (API.md "Cursors for scheduled batch loaders"): bodies and views. */
import { Type, type Static } from 'typebox';
import { Where } from '../query/request/where-schema.js';
import { CompressionParam } from '../query/request/read-schema.js';
import { CAP_CEILINGS } from '../config/access-schema.js';

export const CursorParams = Type.Object({
  name: Type.String({
    pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$',
    description: 'Cursor name: letters, digits, . _ -',
    examples: ['orders-loader'],
  }),
});
export type CursorParams = Static<typeof CursorParams>;

export const PositionSchema = Type.Object({
  timestamp: Type.Union([Type.String(), Type.Null()], {
    description: 'Broker time of the position (null: the beginning)',
  }),
  skip: Type.Integer({ description: 'Events at that exact time already consumed (ties are exact)' }),
});
export type PositionSchema = Static<typeof PositionSchema>;

export const CursorBody = Type.Object(
  {
    topic: Type.String({ examples: ['orders'] }),
    start: Type.Optional(
      Type.String({ description: 'earliest, latest, or an ISO-8601 instant', examples: ['earliest'] }),
    ),
    filter: Type.Optional(Where),
    select: Type.Optional(Type.Array(Type.String(), { maxItems: CAP_CEILINGS.selectItems })),
    // A duration read by query/request/time.ts parseDuration (the one parser), so no pattern here.
    settle: Type.Optional(
      Type.String({ description: 'Events newer than now minus this are not read yet', examples: ['30s'] }),
    ),
  },
  { additionalProperties: false },
);
export type CursorBody = Static<typeof CursorBody>;

export const CursorView = Type.Object({
  name: Type.String(),
  definition: Type.Unknown(),
  position: PositionSchema,
  generation: Type.Integer(),
  createdAt: Type.String(),
  updatedAt: Type.String(),
  lag: Type.Optional(
    Type.Object({
      events: Type.Integer(),
      ms: Type.Union([Type.Integer(), Type.Null()]),
      countedUntil: Type.Optional(
        Type.String({
          description:
            'Present when the count stopped short of now minus settle: every filter is evaluated after the scan, so the guardrail bounds it (events counted up to here)',
        }),
      ),
    }),
  ),
});
export type CursorView = Static<typeof CursorView>;

export const BatchQuery = Type.Object({
  limit: Type.Optional(
    Type.Union([Type.Integer({ minimum: 1 }), Type.Literal('all')], {
      description:
        'Most events in the batch (default 10000, or TOPICGATE_MAX_LIMIT when lower; more than the maximum is a 422); `all`: every settled event after the position',
    }),
  ),
  format: Type.Optional(Type.String({ description: 'json, ndjson, csv, arrow or parquet; overrides Accept' })),
  compression: CompressionParam,
});
export type BatchQuery = Static<typeof BatchQuery>;

export const CommitBody = Type.Object(
  { batch: Type.String({ minLength: 1, maxLength: 4096 }) },
  { additionalProperties: false },
);
export type CommitBody = Static<typeof CommitBody>;

export const CommitResult = Type.Object({
  committed: Type.Boolean({ description: 'false: it was already committed' }),
  rows: Type.Integer(),
  position: PositionSchema,
});
export type CommitResult = Static<typeof CommitResult>;

export const SeekBody = Type.Object({ to: Type.String({ examples: ['earliest'] }) }, { additionalProperties: false });
export type SeekBody = Static<typeof SeekBody>;

export const SeekResult = Type.Object({ position: PositionSchema });
export type SeekResult = Static<typeof SeekResult>;

export const HistoryQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000, description: 'Most batches listed (default 100)' })),
});
export type HistoryQuery = Static<typeof HistoryQuery>;

export const History = Type.Object({
  batches: Type.Array(
    Type.Object({
      batch: Type.String(),
      from: PositionSchema,
      to: PositionSchema,
      rows: Type.Integer(),
      committedAt: Type.String(),
    }),
  ),
});
export type History = Static<typeof History>;
