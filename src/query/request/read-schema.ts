/**
 * The two request forms of a read (API.md "Reading events", "Aggregation"): GET parameters and the POST body,
 * with the dedupe spec (the select, group and order specs are the tree's, tree/read-specs.ts) the planner reads
 * (request/parse-read-request.ts, plan-read-tree.ts), with the examples the OpenAPI test runs.
 */
import { Type, type Static } from 'typebox';
import { CAP_CEILINGS } from '../../config/access-schema.js';
import { COLUMN_CODECS } from '../../core/content-codings.js';
import { FOLLOW_PARAMS } from './follow-params.js';
import { Where } from './where-schema.js';
import { GroupSpec, OrderSpec, SelectSpec } from '../tree/read-specs.js';

/** `compression=` (API.md "Compression on the wire"): every read that takes `format` takes it. */
const CODEC =
  'With format=parquet: the column codec, default zstd (with another format: 400; those are compressed on the wire, by Accept-Encoding)';
export const CompressionParam = Type.Optional(Type.Enum(COLUMN_CODECS, { type: 'string', description: CODEC }));

export const DedupeSpec = Type.Object(
  {
    by: Type.Optional(
      Type.Array(Type.String(), {
        minItems: 1,
        maxItems: CAP_CEILINGS.dedupeColumns,
        description: 'Columns that identify an event (default `key`)',
      }),
    ),
    keep: Type.Optional(Type.Union([Type.Literal('latest'), Type.Literal('earliest')])),
  },
  {
    additionalProperties: false,
    description: 'Keep one event per key (or per listed columns): the latest or the earliest',
  },
);
export type DedupeSpec = Static<typeof DedupeSpec>;

export const EventsQuery = Type.Object(
  {
    select: Type.Optional(
      Type.String({
        description:
          'Comma-separated columns, expanded fields and JSON arrow paths, each optionally renamed `alias:column` (`country:value->customer->address->>country`); default all',
        examples: ['key,value,timestamp_broker'],
      }),
    ),
    order: Type.Optional(
      Type.String({
        description:
          '`col.asc|desc[.nullsfirst|.nullslast]`, comma-separated (a column, or a JSON arrow path such as `value->>status.desc`); default `timestamp_broker` ascending; `none` (with limit=all): no order promised',
        examples: ['timestamp_broker.asc'],
      }),
    ),
    limit: Type.Optional(
      Type.String({
        pattern: '^([0-9]+|all)$',
        description:
          'Rows per response (default 100); `all`: every row of the window in one streamed response (needs `until`)',
        examples: ['3'],
      }),
    ),
    parallel: Type.Optional(
      Type.String({
        pattern: '^[0-9]+$',
        description:
          'With limit=all: read the window as this many time slices at once, written in order (or interleaved with order=none)',
      }),
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
        description: 'json, ndjson, csv, arrow or parquet; overrides Accept (anything else: 406)',
        examples: ['json'],
      }),
    ),
    compression: CompressionParam,
    explain: Type.Optional(
      Type.Union([Type.Literal('true'), Type.Literal('false')], {
        description: "Return the SQL, the pushdown split and Trino's plan instead of rows",
      }),
    ),
    decode: Type.Optional(
      Type.Union([Type.Literal('true'), Type.Literal('false')], {
        description:
          'On a topic whose key or value is Avro or json-sr (Schema Registry payloads): `false` returns the stored bytes undecoded',
      }),
    ),
    ...FOLLOW_PARAMS,
    since: Type.Optional(
      Type.String({
        description:
          'Inclusive start on timestamp_broker: ISO-8601 (UTC when no zone is given), or -15m, -2h, -7d, now',
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
      'Any other parameter is a filter on the column (or expanded field, or JSON arrow path) of that name: `col=[not.]op.value` with op eq, neq, gt, gte, lt, lte, isdistinct, ' +
      '`in.(a,b,"c,d")`, like, ilike (`*`, `%` and `_` are wildcards), match, imatch (regular expressions), `is.null|not_null|true|false|unknown`, ' +
      'cs, cd, ov on arrays (`headers=cs.{trace}`), and `op(any).{a,b}` / `op(all).{a,b}`. A JSON arrow path filters a payload field without declaring it: ' +
      '`value->>status=eq.paid`, `value->customer->address->>country=in.(DE,FR)`, `value->items->0->>sku=eq.SKU-3` (evaluated after the scan: name `since`). ' +
      'Values of varbinary columns (`key`, `value`) are UTF-8 text or `\\x` + hex bytes; timestamps are ISO-8601 (UTC when no zone is given). ' +
      'Repeat a parameter to AND two filters on one column. ' +
      'The columns of each topic are listed by `GET /v1/topics/{topic}` and on the page `/docs/topics`.',
    examples: [{ key: 'eq.order-1000002' }],
  },
);
export type EventsQuery = Static<typeof EventsQuery>;

export const QueryBody = Type.Object(
  {
    select: Type.Optional(
      Type.Array(SelectSpec, {
        maxItems: CAP_CEILINGS.selectItems,
        description: 'Columns and aggregates; default all columns (at most `limits.maxSelectItems`, default 200)',
      }),
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
      Type.Array(GroupSpec, {
        maxItems: CAP_CEILINGS.groupByItems,
        description: 'Group keys and time buckets (at most `limits.maxGroupByItems`, default 20)',
      }),
    ),
    order: Type.Optional(
      Type.Union([Type.Array(OrderSpec, { maxItems: CAP_CEILINGS.orderItems }), Type.Literal('none')], {
        description:
          'Sort keys (at most `limits.maxOrderItems`, default 20); `none` (with limit `all`): no order promised, slices may interleave',
      }),
    ),
    limit: Type.Optional(
      Type.Union([Type.Integer({ minimum: 1 }), Type.Literal('all')], {
        description: 'Rows per response (default 100); `all`: every row of the window (needs `until`)',
      }),
    ),
    parallel: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 64, description: 'With limit `all`: time slices read at once' }),
    ),
    dedupe: Type.Optional(DedupeSpec),
    cursor: Type.Optional(
      Type.String({ maxLength: 2048, description: 'Opaque page token: `next` of the previous response' }),
    ),
    format: Type.Optional(Type.String({ description: 'json, ndjson, csv, arrow or parquet (anything else: 406)' })),
    explain: Type.Optional(
      Type.Boolean({ description: 'Return the SQL, the pushdown split and the plan instead of rows' }),
    ),
    decode: Type.Optional(
      Type.Boolean({ description: 'false: Avro / json-sr payloads as their stored bytes, undecoded' }),
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
export type QueryBody = Static<typeof QueryBody>;

/** The URL of a POST read may name the format too (the body's `format` wins). */
export const FormatQuery = Type.Object({
  format: Type.Optional(
    Type.String({ description: "json, ndjson, csv, arrow or parquet; overrides Accept (the body's `format` wins)" }),
  ),
  compression: CompressionParam,
});
export type FormatQuery = Static<typeof FormatQuery>;
