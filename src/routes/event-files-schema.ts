/** The schemas of a window's file (API.md "Windows as files"): its path, parameters and responses. */
import { Type, type Static } from 'typebox';
import { EventsQuery } from '../query/request/read-schema.js';

export const FileParams = Type.Object({
  topic: Type.String({ minLength: 1, maxLength: 512, description: 'Topic id from GET /v1/topics' }),
  suffix: Type.Union([Type.Literal('parquet'), Type.Literal('arrow'), Type.Literal('csv'), Type.Literal('ndjson')], {
    description:
      'The format: `parquet`, `arrow` (the Arrow IPC file format, with its footer), `csv` or `ndjson`, written as ' +
      'a file name suffix (`events.parquet`)',
  }),
});
export type FileParams = Static<typeof FileParams>;

/** Parameters of a file: those of /events that choose rows; paging, format and order are the file's own. */
export const FileQuery = Type.Omit(EventsQuery, ['limit', 'cursor', 'format', 'explain', 'order', 'follow', 'after']);
export type FileQuery = Static<typeof FileQuery>;

/** Parameters of /events that a file URL refuses: a file is the whole window, in time order, in its suffix's format. */
export const NOT_FOR_FILES = ['limit', 'cursor', 'format', 'explain', 'order', 'follow', 'after'] as const;

const FILE_HEADERS = {
  ETag: {
    type: 'string',
    description:
      "A strong tag of the window's read (its request, the caller's row scope, the topic's settings, the encoder) " +
      "and the file's layout: the file cache's key. `If-None-Match` naming it: 304; `If-Range` naming it keeps a Range",
  },
  'Last-Modified': { type: 'string', description: 'When the file was made' },
  'Accept-Ranges': { type: 'string', description: '`bytes`' },
  'Content-Length': { type: 'integer', description: "The file's bytes (a 206: the range's)" },
  'Content-Range': { type: 'string', description: 'A 206: `bytes <first>-<last>/<length>`' },
  'Cache-Control': { type: 'string', description: '`private, max-age=<TOPICGATE_CACHE_MAX_AGE>, immutable`' },
  Vary: { type: 'string', description: '`Authorization, X-API-Key`: the file depends on the caller' },
};

const FILE_CONTENT = {
  'application/vnd.apache.parquet': { schema: Type.String({ format: 'binary', description: 'A Parquet file' }) },
  'application/vnd.apache.arrow.file': {
    schema: Type.String({
      format: 'binary',
      description: 'An Arrow IPC file (`ARROW1` at both ends, the footer before)',
    }),
  },
  'text/csv': { schema: Type.String({ description: 'RFC 4180 with a header row, as `format=csv` writes it' }) },
  'application/x-ndjson': {
    schema: Type.String({ description: 'One JSON object per row per line, as `format=ndjson`' }),
  },
};

export const FileResponses = {
  200: {
    description:
      "The window's whole file. Parquet: row groups of TOPICGATE_FILE_ROW_GROUP_ROWS rows in `timestamp_broker` " +
      'order, with statistics per column chunk and page (and the page index), so a reader filtering on time or ' +
      'key fetches only the row groups it needs',
    headers: FILE_HEADERS,
    content: FILE_CONTENT,
  },
  206: { description: 'One byte range of the file (`Range: bytes=...`)', headers: FILE_HEADERS, content: FILE_CONTENT },
  304: {
    ...Type.Null({ description: "Not modified: `If-None-Match` names the file's `ETag`; no body, no Trino query" }),
    headers: FILE_HEADERS,
  },
};
