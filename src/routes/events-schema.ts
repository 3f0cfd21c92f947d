/** TypeBox schemas of the read routes: the OpenAPI document is generated from these. */
import { Type } from '@sinclair/typebox';
import { ERROR_CATALOG } from '../errors.js';

export const EventsQuerystring = Type.Object(
  {
    select: Type.Optional(Type.String({ description: 'Comma-separated columns and expanded fields; default all', examples: ['key,value,timestamp_broker'] })),
    order: Type.Optional(Type.String({ description: '`col.asc|desc[.nullsfirst|.nullslast]`, comma-separated', examples: ['timestamp_broker.desc'] })),
    limit: Type.Optional(Type.String({ pattern: '^[0-9]+$', description: 'Rows per response (default 100)', examples: ['10'] })),
    cursor: Type.Optional(Type.String({ maxLength: 2048, description: 'Opaque token from a previous response: the next page' })),
    // Not an enum: an unknown format is a 406 (API.md), not a validation error.
    format: Type.Optional(Type.String({ description: 'json, ndjson, csv or arrow; overrides Accept (anything else: 406)', examples: ['ndjson'] })),
    explain: Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')], { description: 'Return the SQL, the pushdown split and Trino\'s plan instead of rows' })),
    since: Type.Optional(Type.String({ description: 'Inclusive start on timestamp_broker: ISO-8601 with zone, or -15m, -2h, -7d, now', examples: ['2026-11-01T00:00:00Z'] })),
    until: Type.Optional(Type.String({ description: 'Exclusive end on timestamp_broker (same forms as since)', examples: ['2026-11-02T00:00:00Z'] })),
    or: Type.Optional(Type.String({ description: 'PostgREST boolean group, e.g. `(a.eq.1,b.lt.2)`' })),
    and: Type.Optional(Type.String({ description: 'PostgREST boolean group' })),
  },
  {
    additionalProperties: Type.Union([Type.String(), Type.Array(Type.String())]),
    description: 'Any other parameter is a filter on the column of that name: `col=[not.]op.value` with op eq, neq, gt, gte, lt, lte, in.(a,b,"c,d"), like, ilike (* wildcard), is.null|true|false',
  },
);

const WhereLeaf = Type.Object(
  {
    field: Type.String(),
    op: Type.String({ description: 'eq, neq, gt, gte, lt, lte, in, like, ilike, is' }),
    value: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: false },
);

const Where = Type.Recursive((Self) =>
  Type.Union([
    Type.Object({ and: Type.Array(Self, { maxItems: 100 }) }, { additionalProperties: false }),
    Type.Object({ or: Type.Array(Self, { maxItems: 100 }) }, { additionalProperties: false }),
    Type.Object({ not: Self }, { additionalProperties: false }),
    WhereLeaf,
  ]),
);

const AggregateFn = Type.Union(
  ['count', 'count_distinct', 'approx_distinct', 'sum', 'avg', 'min', 'max', 'approx_percentile', 'latest', 'earliest'].map((f) => Type.Literal(f)),
);

export const QueryBodySchema = Type.Object(
  {
    select: Type.Optional(
      Type.Array(
        Type.Union([
          Type.String(),
          Type.Object(
            { fn: AggregateFn, field: Type.Optional(Type.String()), as: Type.Optional(Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]{0,127}$' })), p: Type.Optional(Type.Number()) },
            { additionalProperties: false },
          ),
        ]),
        { maxItems: 200 },
      ),
    ),
    where: Type.Optional(Where),
    since: Type.Optional(Type.String()),
    until: Type.Optional(Type.String()),
    groupBy: Type.Optional(
      Type.Array(
        Type.Union([
          Type.String(),
          Type.Object({ bucket: Type.String({ examples: ['1h'] }), as: Type.Optional(Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]{0,127}$' })) }, { additionalProperties: false }),
        ]),
        { maxItems: 20 },
      ),
    ),
    order: Type.Optional(
      Type.Array(
        Type.Object(
          {
            field: Type.String(),
            dir: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')])),
            nulls: Type.Optional(Type.Union([Type.Literal('first'), Type.Literal('last')])),
          },
          { additionalProperties: false },
        ),
        { maxItems: 20 },
      ),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1 })),
    dedupe: Type.Optional(
      Type.Object(
        { by: Type.Optional(Type.Array(Type.String(), { minItems: 1 })), keep: Type.Optional(Type.Union([Type.Literal('latest'), Type.Literal('earliest')])) },
        { additionalProperties: false },
      ),
    ),
    cursor: Type.Optional(Type.String({ maxLength: 2048 })),
    format: Type.Optional(Type.String({ description: 'json, ndjson, csv or arrow (anything else: 406)' })),
    explain: Type.Optional(Type.Boolean()),
  },
  {
    additionalProperties: false,
    examples: [
      {
        select: [{ fn: 'count', as: 'n' }],
        since: '2026-11-01T00:00:00Z',
        until: '2026-11-02T00:00:00Z',
        groupBy: [{ bucket: '1h' }],
        order: [{ field: 'bucket', dir: 'asc' }],
      },
    ],
  },
);

export const ErrorSchema = Type.Object(
  {
    error: Type.Object({
      code: Type.Union(Object.keys(ERROR_CATALOG).map((c) => Type.Literal(c))),
      message: Type.String(),
      status: Type.Integer(),
      details: Type.Optional(Type.Unknown()),
      queryId: Type.Optional(Type.String()),
    }),
  },
);

/** Every error status the read routes can answer with, each described by the codes that use it. */
export const ErrorResponses = Object.fromEntries(
  [...new Set(Object.values(ERROR_CATALOG).map((e) => e.status))].map((status) => [
    status,
    {
      ...ErrorSchema,
      description: Object.entries(ERROR_CATALOG)
        .filter(([, e]) => e.status === status)
        .map(([code, e]) => `${code}: ${e.meaning}`)
        .join(' '),
    },
  ]),
);

export const ReadResponses = {
  200: {
    description:
      'Rows in the negotiated media type. JSON: `{"columns","rows","next","complete"}`; NDJSON and CSV: a complete body ends with an empty line, a cut one with an error line; Arrow: a complete stream ends with the end-of-stream marker. Next page: `next` (JSON), `Link: <...>; rel="next"` and `Topicgate-Next-Cursor` headers.',
    content: {
      'application/json': { schema: Type.Unknown() },
      'application/x-ndjson': { schema: Type.String() },
      'text/csv': { schema: Type.String() },
      'application/vnd.apache.arrow.stream': { schema: Type.String({ format: 'binary' }) },
    },
  },
};
