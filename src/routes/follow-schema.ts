/**
 * The follow half of GET /v1/topics/{topic}/events (API.md "Following a topic"; http/follow-read.ts): the
 * `Last-Event-ID` header a reconnection sends, and the 200's Server-Sent Events and NDJSON bodies.
 */
import { Type } from 'typebox';

/** The request headers a follow reads. */
export const FollowHeaders = Type.Object({
  'Last-Event-ID': Type.Optional(
    Type.String({
      maxLength: 512,
      description:
        'Last-Event-ID, with follow=true (browsers send it when an EventSource reconnects): the follow resumes right ' +
        'after that event, missing and repeating nothing; `after` wins over it. An altered id, or one of another ' +
        'query, is a 400 `TG_BAD_CURSOR`',
    }),
  ),
});

const SSE_EXAMPLE =
  'retry: 1000\n\n' +
  'id: f1.Qm9rZXkx.eyJoIjoiWnR1LTBmV2RvVnRrYXZsTSIsImEiOiIyMDI2LTExLTAxIDAwOjAwOjAwLjAwMCIsInMiOjF9.q5yTbX0m0dN2pV8cWkqf1A\n' +
  'data: {"key":"order-1000002","value":{"order_id":1000002,"status":"refunded"},"timestamp_broker":"2026-11-01T00:00:00.000Z"}\n\n' +
  ': keep-alive\n\n';

/** The 200 of a follow, beside a read's media types. */
export const FollowContent = {
  'text/event-stream': {
    schema: Type.String({
      description:
        'With follow=true: one event per row, `data:` the row as in NDJSON and `id:` the position right after it ' +
        '(opaque, signed: resume with `Last-Event-ID` or `after`); an `id:` line alone moves the position past ' +
        'events no one was shown; a comment line `: keep-alive` after 15 s without output ' +
        '(`TOPICGATE_FOLLOW_HEARTBEAT`). ' +
        'A failure is an `event: error` with the error object as data, then an aborted transfer. It ends when ' +
        '`until` has settled, else when the client leaves, or when the caller loses what let it in, checked before ' +
        "each write and at each poll against the access state in force: at its credential's expiry (a JWT's `exp`, " +
        'also while idle) or when its credential is no longer accepted (a key removed), `TG_UNAUTHENTICATED`; when ' +
        'its grant to read the topic is withdrawn or its row policy changes (a reload: SIGHUP), `TG_FORBIDDEN`; no ' +
        'event is written after. Reconnect with a fresh credential and `Last-Event-ID` to resume exactly (after a ' +
        'row-policy change the ids are of another query: follow anew). With ' +
        '`format=ndjson`: rows as NDJSON, empty lines as keep-alives, no ids, an error line for the error event.',
      examples: [SSE_EXAMPLE],
    }),
  },
};
