/** Read sessions (API.md "Read sessions"): the 201 of a session, and the path and query of its streams. */
import { Type, type Static } from 'typebox';
import { CompressionParam } from '../query/request/read-schema.js';
import { TopicParams } from './topics-schema.js';

const Instant = Type.String({ format: 'date-time', description: 'An instant, ISO-8601 UTC' });

export const SessionStream = Type.Object({
  index: Type.Integer({ minimum: 0, description: 'Position of the stream: with order `time`, read in this order' }),
  url: Type.String({
    description:
      "The stream's URL, relative to the API's origin; add `&format=json|ndjson|csv|arrow|parquet`. Its `token` is a sealed (encrypted and authenticated), opaque description of the stream: any instance sharing the cursor secret serves it. Every answer of a stream is `Cache-Control: no-store`",
  }),
  files: Type.Optional(
    Type.Object(
      { parquet: Type.String(), arrow: Type.String(), csv: Type.String(), ndjson: Type.String() },
      {
        description:
          "With `files: true`: the stream as a file in each format, relative to the API's origin, carrying the same token: made once, then read by `Range` (DuckDB `read_parquet([...])`, Polars, pandas)",
      },
    ),
  ),
  since: Type.String({ description: "Inclusive start of the stream's time range (whole milliseconds)" }),
  until: Type.String({ description: "Exclusive end of the stream's time range" }),
  estimatedRows: Type.Optional(
    Type.Integer({
      minimum: 0,
      description:
        "Rows the count made when the session was made puts in this range (before the request's own filters on decoded fields). Left out when a row policy of the caller filters a decoded (Avro / json-sr) field: the count runs before decoding, so it could not apply that policy, and the streams are then cut into equal time widths",
    }),
  ),
});

export const SessionCreated = Type.Object(
  {
    id: Type.String({ description: "The session's id (it names its streams' paths; nothing is stored under it)" }),
    expiresAt: {
      ...Instant,
      description:
        "The streams can be read (again) until this instant; then 410. Never after a JWT caller's token `exp` (past it, 401)",
    },
    columns: Type.Array(Type.Object({ name: Type.String(), type: Type.String({ description: 'Trino type' }) }), {
      description: 'The columns every stream returns, in order (as in JSON and Arrow; CSV flattens decoded records)',
    }),
    order: Type.Union([Type.Literal('time'), Type.Literal('none')]),
    streams: Type.Array(SessionStream, {
      description:
        'Adjacent time ranges covering since..until: together exactly the rows of the same read with `limit=all`, each once',
    }),
  },
  {
    description: 'A read session: its streams, to read concurrently from any gateway instance',
    examples: [
      {
        id: 'k3J9x0Qm2VbW8sTq',
        expiresAt: '2026-11-05T10:00:00.000Z',
        columns: [
          { name: 'key', type: 'varbinary' },
          { name: 'value', type: 'varbinary' },
          { name: 'timestamp_broker', type: 'timestamp(3)' },
          { name: 'timestamp_producer', type: 'timestamp(3)' },
          { name: 'headers', type: 'array(row(key varchar, value varbinary))' },
        ],
        order: 'time',
        streams: [
          {
            index: 0,
            url: '/v1/topics/orders/sessions/k3J9x0Qm2VbW8sTq/streams/0?token=s1.Ab3dEf01.<sealed>.<tag>',
            since: '2026-11-01T00:00:00.000Z',
            until: '2026-11-02T11:04:31.500Z',
            estimatedRows: 5010,
          },
          {
            index: 1,
            url: '/v1/topics/orders/sessions/k3J9x0Qm2VbW8sTq/streams/1?token=s1.Ab3dEf01.<sealed>.<tag>',
            since: '2026-11-02T11:04:31.500Z',
            until: '2026-11-04T00:00:00.000Z',
            estimatedRows: 5010,
          },
        ],
      },
    ],
  },
);
export type SessionCreated = Static<typeof SessionCreated>;

export const StreamParams = Type.Object({
  ...TopicParams.properties,
  session: Type.String({ pattern: '^[A-Za-z0-9_-]{1,32}$', description: "The session's id" }),
  index: Type.String({ pattern: '^[0-9]{1,6}$', description: "The stream's index" }),
});
export type StreamParams = Static<typeof StreamParams>;

/** A stream as a file: its path with the file's suffix (`.../streams/0.parquet`). */
export const StreamFileParams = Type.Object({
  ...StreamParams.properties,
  suffix: Type.Union([Type.Literal('parquet'), Type.Literal('arrow'), Type.Literal('csv'), Type.Literal('ndjson')], {
    description: "The file's format: `parquet`, `arrow` (the Arrow IPC file format), `csv` or `ndjson`",
  }),
});
export type StreamFileParams = Static<typeof StreamFileParams>;

export const StreamQuery = Type.Object(
  {
    token: Type.String({
      maxLength: 12_000,
      description:
        "The stream's sealed description, as the session gave it; altered: 400 `TG_BAD_SESSION`, expired: 410 `TG_SESSION_EXPIRED`, made with a JWT now past its `exp`: 401 `TG_UNAUTHENTICATED`",
    }),
    // Not an enum: an unknown format is a 406 (API.md), not a validation error.
    format: Type.Optional(
      Type.String({ description: 'json, ndjson, csv, arrow or parquet; overrides Accept (anything else: 406)' }),
    ),
    compression: CompressionParam,
  },
  { additionalProperties: false },
);
export type StreamQuery = Static<typeof StreamQuery>;

/** A stream's file takes its token and Parquet's column codec; its format is its suffix. */
export const StreamFileQuery = Type.Omit(StreamQuery, ['format']);
export type StreamFileQuery = Static<typeof StreamFileQuery>;
