/**
 * A read session's request (API.md "Read sessions"): the rows of a `/query` read (select, where, decode) over a
 * closed window, with the order of its streams, how many, and whether their URLs are presigned. `SessionRead` is
 * what each stream reads besides its own time range; a stream URL carries it, signed (sessions/stream-token.ts).
 */
import { Type, type Static } from 'typebox';
import { CAP_CEILINGS } from '../../config/access-schema.js';
import { Where } from './where-schema.js';

/** The most streams the schema lets a request name; `limits.maxSessionStreams` (default 64) is the cap in force. */
export const SESSION_STREAMS_CEILING = 10_000;

const readMembers = {
  select: Type.Optional(
    Type.Array(
      Type.String({
        description: 'A column, expanded field, decoded field or JSON arrow path, optionally renamed `alias:column`',
      }),
      {
        maxItems: CAP_CEILINGS.selectItems,
        description: 'Columns as in `/query` (no aggregates: a session reads rows); default all',
      },
    ),
  ),
  where: Type.Optional(Where),
  order: Type.Optional(
    Type.Union([Type.Literal('time'), Type.Literal('none')], {
      description:
        '`time` (default): rows in broker-time order, and reading the streams in index order gives the order of the same read with `limit=all`; `none`: no order within a stream',
    }),
  ),
  decode: Type.Optional(
    Type.Boolean({ description: 'false: Avro / json-sr payloads as their stored bytes, undecoded' }),
  ),
};

/** What every stream of a session reads, besides its time range. */
export const SessionRead = Type.Object(readMembers, { additionalProperties: false });
export type SessionRead = Static<typeof SessionRead>;

export const SessionBody = Type.Object(
  {
    ...readMembers,
    since: Type.String({
      description: 'Inclusive start on timestamp_broker (required), as in `/query`; pinned when the session is made',
      examples: ['2026-11-01T00:00:00Z'],
    }),
    until: Type.String({
      description: 'Exclusive end on timestamp_broker (required), as in `/query`; pinned when the session is made',
      examples: ['2026-11-04T00:00:00Z'],
    }),
    streams: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: SESSION_STREAMS_CEILING,
        description:
          'Streams to split the window into (at most `limits.maxSessionStreams`, default 64; fewer when the window has fewer milliseconds); default: one per million estimated rows',
      }),
    ),
    presign: Type.Optional(
      Type.Boolean({
        description:
          "true: each stream URL alone is enough to read it until `expiresAt` (for tools that cannot send headers); default false: reading needs the creator's credentials",
      }),
    ),
    files: Type.Optional(
      Type.Boolean({
        description:
          'true: each stream also has `files`, its URLs as files (`.parquet`, `.arrow`, `.csv`, `.ndjson`) made once and read by byte range (API.md "Windows as files"); the session\'s window must be settled',
      }),
    ),
  },
  {
    additionalProperties: false,
    // Each runs against the demo topics (test/integration/openapi.test.ts executes every example).
    examples: [
      { since: '2026-11-01T00:00:00Z', until: '2026-11-04T00:00:00Z', streams: 4 },
      {
        select: ['key', 'value', 'timestamp_broker'],
        where: { field: 'key', op: 'like', value: 'order-10000*' },
        since: '2026-11-01T00:00:00Z',
        until: '2026-11-02T00:00:00Z',
        order: 'none',
        streams: 2,
        presign: true,
      },
    ],
  },
);
export type SessionBody = Static<typeof SessionBody>;
