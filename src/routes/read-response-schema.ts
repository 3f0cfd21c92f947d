/**
 * The 200 of a read (events, query, cursor batch): rows in five media types with the completeness rule of each
 * (src/encode/text/*-encoder.ts, src/encode/arrow/arrow-encoder.ts, src/encode/parquet/parquet-encoder.ts), or the
 * explain body.
 */
import { Type, type Static } from 'typebox';

const QUERY_ID_HEADER = {
  type: 'string',
  description: 'The Trino query id (also `topicgate.query_id` in the Arrow schema and the Parquet file metadata)',
};

export const RowsBody = Type.Object(
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
export type RowsBody = Static<typeof RowsBody>;

export const ExplainBody = Type.Object(
  {
    sql: Type.String({
      description:
        "The SQL sent to Trino; when `rowPolicy` is present, without the row policy's filter (the query run ANDs it)",
    }),
    pushdown: Type.Object({
      pushed: Type.Array(Type.String(), { description: 'Predicates the storage evaluates' }),
      residual: Type.Array(Type.String(), { description: 'Predicates Trino evaluates after the scan' }),
      gateway: Type.Optional(
        Type.Array(Type.String(), {
          description: 'Predicates on decoded Avro fields, evaluated by the gateway after decoding (absent when none)',
        }),
      ),
    }),
    filters: Type.Union([Type.String(), Type.Null()], { description: "The request's own filters as SQL" }),
    plan: Type.String({ description: "Trino's EXPLAIN text of `sql`" }),
    rowPolicy: Type.Optional(
      Type.Literal('applied', {
        description:
          "Present when the caller's row policies restrict this read: their filter is ANDed to every query of it and " +
          'is not shown here (not in `sql`, `pushdown`, `filters` or `plan`)',
      }),
    ),
    refused: Type.Optional(
      Type.Object(
        { code: Type.String(), message: Type.String() },
        { description: 'Present when running this query would be refused (e.g. TG_TIME_BOUND_REQUIRED), and why' },
      ),
    ),
  },
  { description: 'With explain: the query plan instead of rows' },
);
export type ExplainBody = Static<typeof ExplainBody>;

const ORDERS_JSON =
  '{"columns":[{"name":"key","type":"varbinary"},{"name":"value","type":"varbinary"},{"name":"timestamp_broker","type":"timestamp(3)"}],"rows":[\n' +
  '{"key":"order-1000002","value":{"order_id":1000002,"status":"refunded","amount":317.75,"currency":"EUR","customer":{"id":"c4","name":"مريم","address":{"city":"São Paulo","country":"BR"}},"items":[{"sku":"SKU-4","qty":2,"price":9.99},{"sku":"SKU-4","qty":1,"price":19.50}],"created_at":"2026-10-31T23:59:56.000Z","trace_id":9007199254740997},"timestamp_broker":"2026-11-01T00:00:00.000Z"},\n' +
  '{"key":"order-1000002","value":"\\\\xc3287b2262726f6b656e223a35","timestamp_broker":"2026-11-01T00:00:00.000Z"}\n' +
  '],"next":null,"complete":true}';

/** The 200 of a read: rows in five media types, with the completeness rule of each (src/encode/text/*-encoder.ts, src/encode/arrow/arrow-encoder.ts, src/encode/parquet/parquet-encoder.ts). */
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
      '- **Parquet**: a complete file ends with its footer (the file ends with `PAR1`, as it starts); a cut one is aborted before the footer, so no Parquet reader opens it.',
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
      'Content-Encoding': {
        type: 'string',
        enum: ['zstd', 'br', 'gzip'],
        description:
          'JSON, NDJSON, CSV and Arrow: the coding the body is compressed with, as `Accept-Encoding` allowed (highest q-value; at equal ones zstd, br, gzip); absent: uncompressed. Flushed batch by batch; a zstd body is one frame per batch',
      },
      Vary: {
        type: 'string',
        description: 'JSON, NDJSON, CSV and Arrow: `Accept-Encoding` (the bytes depend on it) while compression is on',
      },
    },
    content: {
      'application/json': {
        schema: Type.Union([RowsBody, ExplainBody], { examples: [JSON.parse(ORDERS_JSON)] }),
      },
      'application/x-ndjson': {
        schema: Type.String({
          description:
            'One JSON object per row per line; then an empty line (complete), or an error line and an aborted transfer (cut)',
          examples: [
            '{"key":"order-1000002","value":{"order_id":1000002,"status":"refunded","amount":317.75,"trace_id":9007199254740997},"timestamp_broker":"2026-11-01T00:00:00.000Z"}\n' +
              '{"key":"order-1000002","value":"\\\\xc3287b2262726f6b656e223a35","timestamp_broker":"2026-11-01T00:00:00.000Z"}\n\n',
          ],
        }),
      },
      'text/csv': {
        schema: Type.String({
          description:
            'RFC 4180 with a header row and CRLF line ends, nothing after the last row (complete), or a last line `#error {...}` and an aborted transfer (cut)',
          examples: [
            'key,value,timestamp_broker\r\n' +
              'order-1000002,"{""order_id"":1000002,""status"":""refunded"",""trace_id"":9007199254740997}",2026-11-01T00:00:00.000Z\r\n' +
              'order-1000002,\\xc3287b2262726f6b656e223a35,2026-11-01T00:00:00.000Z\r\n',
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
      'application/vnd.apache.parquet': {
        schema: Type.String({
          format: 'binary',
          description:
            "One Parquet file (columns compressed with `compression`: zstd by default, snappy or none; never compressed on the wire) with the Arrow output's types (Binary, Int64, Decimal, Timestamp adjusted to UTC, nested list/struct/map; the Arrow schema is embedded); row groups of at most 8 MiB or 131072 rows, sent as they fill; the footer comes last",
        }),
      },
    },
  },
};
