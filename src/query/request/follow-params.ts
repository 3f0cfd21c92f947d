/** The GET parameters of a follow (API.md "Following a topic"), beside the read's own (read-schema.ts EventsQuery). */
import { Type } from 'typebox';

export const FOLLOW_PARAMS = {
  follow: Type.Optional(
    Type.Union([Type.Literal('true'), Type.Literal('false')], {
      description:
        "`true`: the window's events, then new events as they settle (older than the topic's `settle`, default " +
        '30 s), in order, until the client leaves: Server-Sent Events (`Accept: text/event-stream`), each event id a ' +
        'position to resume after (`Last-Event-ID` or `after`), or NDJSON (`format=ndjson`). Not with limit, ' +
        'parallel, cursor, explain or an order other than timestamp_broker.asc',
    }),
  ),
  after: Type.Optional(
    Type.String({
      maxLength: 512,
      description:
        'With follow=true: the id of the last event received; the follow resumes right after it (as `Last-Event-ID` ' +
        'does; this wins). An altered id, or one of another query, is a 400 `TG_BAD_CURSOR`',
    }),
  ),
};
