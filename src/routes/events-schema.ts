/** TypeBox schemas of the read routes: the OpenAPI document is generated from these. */
import { Type } from '@sinclair/typebox';
import { ERROR_CATALOG, type ErrorCode } from '../errors.js';

export const EventsQuerystring = Type.Object(
  {
    select: Type.Optional(
      Type.String({
        description: 'Comma-separated columns and expanded fields; default all',
        examples: ['key,value,timestamp_broker'],
      }),
    ),
    order: Type.Optional(
      Type.String({
        description: '`col.asc|desc[.nullsfirst|.nullslast]`, comma-separated; default `timestamp_broker` ascending',
        examples: ['timestamp_broker.asc'],
      }),
    ),
    limit: Type.Optional(
      Type.String({ pattern: '^[0-9]+$', description: 'Rows per response (default 100)', examples: ['3'] }),
    ),
    cursor: Type.Optional(
      Type.String({
        maxLength: 2048,
        description:
          'Opaque page token from a previous response (`next` in JSON, `Link` / `Topicgate-Next-Cursor` in other formats). ' +
          'Send it back unchanged with the same query; a token that is altered or used with another query is a 400 `TG_BAD_CURSOR`.',
      }),
    ),
    // Not an enum: an unknown format is a 406 (API.md), not a validation error.
    format: Type.Optional(
      Type.String({
        description: 'json, ndjson, csv or arrow; overrides Accept (anything else: 406)',
        examples: ['json'],
      }),
    ),
    explain: Type.Optional(
      Type.Union([Type.Literal('true'), Type.Literal('false')], {
        description: "Return the SQL, the pushdown split and Trino's plan instead of rows",
      }),
    ),
    since: Type.Optional(
      Type.String({
        description: 'Inclusive start on timestamp_broker: ISO-8601 with zone, or -15m, -2h, -7d, now',
        examples: ['2026-11-01T00:00:00Z'],
      }),
    ),
    until: Type.Optional(
      Type.String({
        description: 'Exclusive end on timestamp_broker (same forms as since)',
        examples: ['2026-11-01T00:01:00Z'],
      }),
    ),
    or: Type.Optional(
      Type.String({
        description:
          'PostgREST boolean group: any of the filters holds, e.g. `(key.eq.order-1000002,key.is.null)`; groups nest: `(a.eq.1,and(b.gt.2,b.lt.5))`; `not.or=(...)` negates',
      }),
    ),
    and: Type.Optional(
      Type.String({
        description:
          'PostgREST boolean group: all of the filters hold, e.g. `(timestamp_producer.gte.2026-11-01T00:00:00Z,key.not.is.null)`; `not.and=(...)` negates',
      }),
    ),
  },
  {
    additionalProperties: Type.Union([Type.String(), Type.Array(Type.String())]),
    description:
      'Any other parameter is a filter on the column (or expanded field) of that name: `col=[not.]op.value` with op eq, neq, gt, gte, lt, lte, ' +
      '`in.(a,b,"c,d")`, like, ilike (`*` is the wildcard), `is.null|true|false`. Values of varbinary columns (`key`, `value`) are UTF-8 text ' +
      'or `\\x` + hex bytes; timestamps are ISO-8601. Repeat a parameter to AND two filters on one column. ' +
      'The columns of each topic are listed by `GET /v1/topics/{topic}` and on the page `/docs/topics`.',
    examples: [{ key: 'eq.order-1000002' }],
  },
);

const WhereLeaf = Type.Object(
  {
    field: Type.String({ description: 'A column or expanded field', examples: ['key'] }),
    op: Type.String({ description: 'eq, neq, gt, gte, lt, lte, in, like, ilike, is', examples: ['eq'] }),
    value: Type.Optional(
      Type.Unknown({
        description: 'The value: a list for `in`, null/true/false for `is`; varbinary values as in GET filters',
      }),
    ),
  },
  { additionalProperties: false, description: 'One filter: `{"field", "op", "value"}`' },
);

/** A filter tree (POST query `where`, cursor `filter`). */
export const Where = Type.Recursive(
  (Self) =>
    Type.Union([
      Type.Object({ and: Type.Array(Self, { maxItems: 100 }) }, { additionalProperties: false }),
      Type.Object({ or: Type.Array(Self, { maxItems: 100 }) }, { additionalProperties: false }),
      Type.Object({ not: Self }, { additionalProperties: false }),
      WhereLeaf,
    ]),
  {
    $id: 'Where',
    description: 'Filters: a leaf `{"field", "op", "value"}`, or `{"and": [...]}`, `{"or": [...]}`, `{"not": {...}}`',
  },
);

const AggregateFn = Type.Union(
  [
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
  ].map((f) => Type.Literal(f)),
);

const ALIAS = '^[A-Za-z_][A-Za-z0-9_]{0,127}$';

export const QueryBodySchema = Type.Object(
  {
    select: Type.Optional(
      Type.Array(
        Type.Union([
          Type.String({ description: 'A column or expanded field (a group key when aggregating)' }),
          Type.Object(
            {
              fn: AggregateFn,
              field: Type.Optional(Type.String({ description: 'The column aggregated (not for count)' })),
              as: Type.Optional(Type.String({ pattern: ALIAS, description: 'Name of the result column' })),
              p: Type.Optional(Type.Number({ description: 'Percentile for approx_percentile, 0 to 1' })),
            },
            {
              additionalProperties: false,
              description: 'An aggregate: `latest` / `earliest` take the value at the newest / oldest timestamp_broker',
            },
          ),
        ]),
        { maxItems: 200, description: 'Columns and aggregates; default all columns' },
      ),
    ),
    where: Type.Optional(Where),
    since: Type.Optional(
      Type.String({
        description: 'Inclusive start on timestamp_broker, as in GET',
        examples: ['2026-11-01T00:00:00Z'],
      }),
    ),
    until: Type.Optional(
      Type.String({ description: 'Exclusive end on timestamp_broker, as in GET', examples: ['2026-11-02T00:00:00Z'] }),
    ),
    groupBy: Type.Optional(
      Type.Array(
        Type.Union([
          Type.String({ description: 'A column or expanded field' }),
          Type.Object(
            {
              bucket: Type.String({
                description: 'Time bucket of timestamp_broker (UTC, epoch-aligned): `<n>ms|s|m|h|d`',
                examples: ['1h'],
              }),
              as: Type.Optional(
                Type.String({ pattern: ALIAS, description: 'Name of the bucket column (default `bucket`)' }),
              ),
            },
            { additionalProperties: false },
          ),
        ]),
        { maxItems: 20 },
      ),
    ),
    order: Type.Optional(
      Type.Array(
        Type.Object(
          {
            field: Type.String({ description: 'A column, expanded field or aggregate alias' }),
            dir: Type.Optional(Type.Union([Type.Literal('asc'), Type.Literal('desc')])),
            nulls: Type.Optional(Type.Union([Type.Literal('first'), Type.Literal('last')])),
          },
          { additionalProperties: false },
        ),
        { maxItems: 20 },
      ),
    ),
    limit: Type.Optional(Type.Integer({ minimum: 1, description: 'Rows per response (default 100)' })),
    dedupe: Type.Optional(
      Type.Object(
        {
          by: Type.Optional(
            Type.Array(Type.String(), { minItems: 1, description: 'Columns that identify an event (default `key`)' }),
          ),
          keep: Type.Optional(Type.Union([Type.Literal('latest'), Type.Literal('earliest')])),
        },
        {
          additionalProperties: false,
          description: 'Keep one event per key (or per listed columns): the latest or the earliest',
        },
      ),
    ),
    cursor: Type.Optional(
      Type.String({ maxLength: 2048, description: 'Opaque page token: `next` of the previous response' }),
    ),
    format: Type.Optional(Type.String({ description: 'json, ndjson, csv or arrow (anything else: 406)' })),
    explain: Type.Optional(
      Type.Boolean({ description: 'Return the SQL, the pushdown split and the plan instead of rows' }),
    ),
  },
  {
    additionalProperties: false,
    // Each runs against the demo topics (test/integration/openapi.test.ts executes every example).
    examples: [
      {
        select: [{ fn: 'count', as: 'n' }],
        since: '2026-11-01T00:00:00Z',
        until: '2026-11-02T00:00:00Z',
        groupBy: [{ bucket: '1h' }],
        order: [{ field: 'bucket', dir: 'asc' }],
      },
      {
        where: { and: [{ field: 'key', op: 'in', value: ['order-1000001', 'order-1000002'] }] },
        since: '2026-11-01T00:00:00Z',
        until: '2026-11-01T01:00:00Z',
        select: ['key', { fn: 'count', as: 'n' }, { fn: 'latest', field: 'value', as: 'last_value' }],
        groupBy: ['key'],
      },
      {
        select: ['key', 'value', 'timestamp_broker'],
        where: {
          or: [
            { field: 'key', op: 'like', value: 'order-100000*' },
            { field: 'key', op: 'is', value: null },
          ],
        },
        since: '2026-11-01T00:00:00Z',
        until: '2026-11-01T01:00:00Z',
        dedupe: { keep: 'latest' },
        limit: 5,
      },
    ],
  },
);

export const ErrorSchema = Type.Object(
  {
    error: Type.Object({
      code: Type.Union(
        Object.keys(ERROR_CATALOG).map((c) => Type.Literal(c)),
        { description: 'Stable code from the error catalog (see the document description)' },
      ),
      message: Type.String({ description: 'What went wrong, naming the culprit; 5xx messages carry no internals' }),
      status: Type.Integer({ description: 'The HTTP status, repeated' }),
      details: Type.Optional(
        Type.Unknown({ description: 'Machine-readable specifics, e.g. the offending parameter or column' }),
      ),
      queryId: Type.Optional(Type.String({ description: 'The Trino query id, when Trino was involved' })),
    }),
  },
  {
    examples: [
      {
        error: {
          code: 'TG_UNKNOWN_COLUMN',
          message: 'orders has no column "nope"',
          status: 400,
          details: { column: 'nope', available: ['key', 'value', 'timestamp_broker', 'timestamp_producer', 'headers'] },
        },
      },
    ],
  },
);

type ErrorStatus = (typeof ERROR_CATALOG)[ErrorCode]['status'];

/** The error responses for `codes`: one per HTTP status, whose description lists each code with its meaning. */
export function errorResponses(codes: readonly ErrorCode[]) {
  const statuses = [...new Set(codes.map((c) => ERROR_CATALOG[c].status))].sort((a, b) => a - b);
  return Object.fromEntries(
    statuses.map((status) => [
      status,
      {
        ...ErrorSchema,
        description: codes
          .filter((c) => ERROR_CATALOG[c].status === status)
          .map((c) => `- \`${c}\`: ${ERROR_CATALOG[c].meaning}`)
          .join('\n'),
      },
    ]),
  ) as Record<ErrorStatus, typeof ErrorSchema & { description: string }>;
}

/** What any read of Trino can fail with (trino-errors.ts maps Trino's error types onto these). */
export const TRINO_ERRORS = [
  'TG_BAD_VALUE',
  'TG_TOO_EXPENSIVE',
  'TG_TOO_MANY_REQUESTS',
  'TG_INTERNAL',
  'TG_TRINO_FAILED',
  'TG_TRINO_UNAVAILABLE',
  'TG_TIMEOUT',
] as const satisfies readonly ErrorCode[];

/** Every error status the read and cursor routes can answer with, each described by the codes that use it. */
export const ErrorResponses = errorResponses(Object.keys(ERROR_CATALOG) as ErrorCode[]);

const QUERY_ID_HEADER = {
  type: 'string',
  description: 'The Trino query id (also in Arrow schema metadata `topicgate.query_id`)',
};

const RowsBody = Type.Object(
  {
    columns: Type.Array(Type.Object({ name: Type.String(), type: Type.String({ description: 'Trino type' }) }), {
      description: 'The result columns in order, with their Trino types',
    }),
    rows: Type.Array(Type.Record(Type.String(), Type.Unknown()), {
      description: 'One object per row, keyed by column name; values follow the text representation rules',
    }),
    next: Type.Union([Type.String(), Type.Null()], {
      description:
        'GET: URL of the next page; POST: the opaque cursor token to send as `cursor`; null on the last page',
    }),
    complete: Type.Boolean({
      description: '`true` only when the body holds the whole page; `false` with `error` when it was cut',
    }),
    error: Type.Optional(
      Type.Object(
        { code: Type.String(), message: Type.String(), status: Type.Optional(Type.Integer()) },
        { description: 'Present when the result failed after the body had started (`complete` is false)' },
      ),
    ),
  },
  { description: 'Rows (a cursor batch adds `batch`, `batchRows`, `from`, `to`)' },
);

const ExplainBody = Type.Object(
  {
    sql: Type.String({ description: 'The SQL sent to Trino' }),
    pushdown: Type.Object({
      pushed: Type.Array(Type.String(), { description: 'Predicates the storage evaluates' }),
      residual: Type.Array(Type.String(), { description: 'Predicates Trino evaluates after the scan' }),
    }),
    filters: Type.Union([Type.String(), Type.Null()], { description: "The request's own filters as SQL" }),
    plan: Type.String({ description: "Trino's EXPLAIN text" }),
    refused: Type.Optional(
      Type.Object(
        { code: Type.String(), message: Type.String() },
        { description: 'Present when running this query would be refused (e.g. TG_TIME_BOUND_REQUIRED), and why' },
      ),
    ),
  },
  { description: 'With explain: the query plan instead of rows' },
);

const ORDERS_JSON =
  '{"columns":[{"name":"key","type":"varbinary"},{"name":"value","type":"varbinary"},{"name":"timestamp_broker","type":"timestamp(3)"}],"rows":[\n' +
  '{"key":"order-1000002","value":{"order_id":1000002,"status":"refunded","amount":317.75,"currency":"EUR","customer":{"id":"c4","name":"مريم","address":{"city":"São Paulo","country":"BR"}},"items":[{"sku":"SKU-4","qty":2,"price":9.99},{"sku":"SKU-4","qty":1,"price":19.50}],"created_at":"2026-10-31T23:59:56.000Z","trace_id":9007199254740997},"timestamp_broker":"2026-11-01T00:00:00.000Z"},\n' +
  '{"key":"order-1000002","value":"\\\\xc3287b2262726f6b656e223a35","timestamp_broker":"2026-11-01T00:00:00.000Z"}\n' +
  '],"next":null,"complete":true}';

/** The 200 of a read: rows in four media types, with the completeness rule of each (src/encode/*-encoder.ts). */
export const ReadResponses = {
  200: {
    description: [
      'Rows in the negotiated media type (`format` parameter, else `Accept`; anything else is a 406). Text formats follow the text representation rules in the document description.',
      '',
      'Telling a complete response from a cut one (an error after the first byte never looks like success):',
      '- **JSON**: `"complete": true`; a cut body still parses and ends with `"complete": false, "error": {...}`.',
      '- **NDJSON**: a complete body ends with one extra empty line (`\\n\\n`; an empty result is `\\n`); a cut one ends with a line `{"error": {...}}`.',
      '- **CSV**: a complete body ends with one extra empty line (`\\r\\n\\r\\n`); a cut one ends with a line `#error {...}`. An empty unquoted field is NULL, `""` the empty string.',
      '- **Arrow**: a complete stream ends with the end-of-stream marker (`0xFFFFFFFF 0x00000000`); a cut one is aborted without it.',
      '',
      'Any other ending (connection lost) is incomplete. The next page: `next` in JSON; `Link: <...>; rel="next"` and `Topicgate-Next-Cursor` headers in the other formats.',
    ].join('\n'),
    headers: {
      'X-Trino-Query-Id': QUERY_ID_HEADER,
      Link: {
        type: 'string',
        description: 'Non-JSON formats: `<url>; rel="next"`, the next page (absent on the last page)',
      },
      'Topicgate-Next-Cursor': { type: 'string', description: 'Non-JSON formats: the opaque token of the next page' },
    },
    content: {
      'application/json': {
        schema: Type.Union([RowsBody, ExplainBody], { examples: [JSON.parse(ORDERS_JSON)] }),
      },
      'application/x-ndjson': {
        schema: Type.String({
          description: 'One JSON object per row per line; then an empty line (complete) or an error line (cut)',
          examples: [
            '{"key":"order-1000002","value":{"order_id":1000002,"status":"refunded","amount":317.75,"trace_id":9007199254740997},"timestamp_broker":"2026-11-01T00:00:00.000Z"}\n' +
              '{"key":"order-1000002","value":"\\\\xc3287b2262726f6b656e223a35","timestamp_broker":"2026-11-01T00:00:00.000Z"}\n\n',
          ],
        }),
      },
      'text/csv': {
        schema: Type.String({
          description:
            'RFC 4180 with a header row and CRLF line ends; then an empty line (complete) or `#error {...}` (cut)',
          examples: [
            'key,value,timestamp_broker\r\n' +
              'order-1000002,"{""order_id"":1000002,""status"":""refunded"",""trace_id"":9007199254740997}",2026-11-01T00:00:00.000Z\r\n' +
              'order-1000002,\\xc3287b2262726f6b656e223a35,2026-11-01T00:00:00.000Z\r\n\r\n',
          ],
        }),
      },
      'application/vnd.apache.arrow.stream': {
        schema: Type.String({
          format: 'binary',
          description:
            'Arrow IPC stream: one record batch per Trino page; varbinary as Binary, bigint as Int64, decimal as Decimal128, timestamps as Timestamp(UTC); field metadata `trino.type`',
        }),
      },
    },
  },
};
