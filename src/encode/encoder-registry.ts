/**
 * The encoders, keyed by media type (Datasette-style renderers): adding a format touches this file and its
 * encoder only. `format=` names map to media types; `negotiateMediaType` applies API.md's rule (`format`
 * overrides `Accept`; anything else -> null, which the route answers with 406).
 */
import type { ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { ResultStream } from '../core/result-stream.js';
import { encodeCsv } from './text/csv-encoder.js';
import type { EncodeOptions, Encoder } from './encoder.js';
import { encodeJson } from './text/json-encoder.js';
import { encodeNdjson } from './text/ndjson-encoder.js';

/**
 * The Arrow and Parquet encoders are loaded on their first use (an idle gateway stays under 100 MB):
 * apache-arrow and parquet-wasm's WebAssembly hold about 20 MB once loaded, which a gateway serving only text
 * formats never needs. Nothing is yielded before the module is there, so a failure to load is still a normal
 * error response.
 */
async function* encodeArrow(result: ResultStream, options: EncodeOptions) {
  const { encodeArrow } = await import('./arrow/arrow-encoder.js');
  yield* encodeArrow(result, options);
}

async function* encodeParquet(result: ResultStream, options: EncodeOptions) {
  const { encodeParquet } = await import('./parquet/parquet-encoder.js');
  yield* encodeParquet(result, options);
}

export const MEDIA_TYPES = [
  'application/json',
  'application/x-ndjson',
  'text/csv',
  'application/vnd.apache.arrow.stream',
  'application/vnd.apache.parquet',
] as const;
export type MediaType = (typeof MEDIA_TYPES)[number];

export const FORMATS = ['json', 'ndjson', 'csv', 'arrow', 'parquet'] as const;
export type FormatName = (typeof FORMATS)[number];

/** What the read path does for a format: a new format says it here, so no code elsewhere compares its name. */
export interface EncoderEntry {
  format: FormatName;
  /** The `Content-Type` header to send. */
  contentType: string;
  encode: Encoder;
  /** Bytes are written as `\x` hex text (decoded payloads' bytes too); false: kept as bytes. */
  bytesAsHex: boolean;
  /** The next page is named in the body (its end), so the headers need no look-ahead to name it. */
  nextInBody: boolean;
  /** Decoded Avro records are flattened into one column per leaf field. */
  flattensDecoded: boolean;
  /**
   * How the body is compressed: on the wire (a content coding negotiated by `Accept-Encoding`), or inside the
   * format, column by column (the `compression` parameter names the codec).
   */
  compression: 'wire' | 'columns';
}

export const encoderRegistry = {
  'application/json': {
    format: 'json',
    contentType: 'application/json; charset=utf-8',
    encode: encodeJson,
    bytesAsHex: true,
    nextInBody: true,
    flattensDecoded: false,
    compression: 'wire',
  },
  'application/x-ndjson': {
    format: 'ndjson',
    contentType: 'application/x-ndjson; charset=utf-8',
    encode: encodeNdjson,
    bytesAsHex: true,
    nextInBody: false,
    flattensDecoded: false,
    compression: 'wire',
  },
  'text/csv': {
    format: 'csv',
    contentType: 'text/csv; charset=utf-8; header=present',
    encode: encodeCsv,
    bytesAsHex: true,
    nextInBody: false,
    flattensDecoded: true,
    compression: 'wire',
  },
  'application/vnd.apache.arrow.stream': {
    format: 'arrow',
    contentType: 'application/vnd.apache.arrow.stream',
    encode: encodeArrow,
    bytesAsHex: false,
    nextInBody: false,
    flattensDecoded: false,
    compression: 'wire',
  },
  'application/vnd.apache.parquet': {
    format: 'parquet',
    contentType: 'application/vnd.apache.parquet',
    encode: encodeParquet,
    bytesAsHex: false,
    nextInBody: false,
    flattensDecoded: false,
    compression: 'columns',
  },
} as const satisfies Record<MediaType, EncoderEntry>;

export const mediaTypeOfFormat = {
  json: 'application/json',
  ndjson: 'application/x-ndjson',
  csv: 'text/csv',
  arrow: 'application/vnd.apache.arrow.stream',
  parquet: 'application/vnd.apache.parquet',
} as const satisfies Record<FormatName, MediaType>;

function isFormat(name: string): name is FormatName {
  return (FORMATS as readonly string[]).includes(name);
}

/**
 * The media type to answer with: `format` (a format name) wins; otherwise the `Accept` header by q-value, where
 * `*` / `application/*` / no header mean JSON. Null when nothing acceptable is offered (-> 406).
 */
export function negotiateMediaType(format: string | undefined, accept: string | undefined): MediaType | null {
  if (format !== undefined) return isFormat(format) ? mediaTypeOfFormat[format] : null;
  if (accept === undefined || accept.trim() === '') return 'application/json';
  const ranges = accept
    .split(',')
    .map((part, order) => {
      const [range = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
      const q = params.find((p) => p.startsWith('q='));
      return { range, q: q === undefined ? 1 : Number(q.slice(2)), order };
    })
    .filter((r) => r.q > 0 && !Number.isNaN(r.q))
    .sort((a, b) => b.q - a.q || a.order - b.order);
  for (const { range } of ranges) {
    if (range === '*/*' || range === 'application/*') return 'application/json';
    if (range === 'text/*') return 'text/csv';
    if ((MEDIA_TYPES as readonly string[]).includes(range)) return range as MediaType;
  }
  return null;
}

/**
 * The encoder's output as a Node Readable that holds at most one chunk: `Readable.from` alone would read up to
 * 16 chunks (Trino pages) ahead of a slow client.
 */
export function encodedReadable(chunks: AsyncIterable<string | Uint8Array>): Readable {
  return Readable.from(chunks, { objectMode: false, highWaterMark: 1 });
}

/**
 * `EncodeOptions.drained` for a body sent as `encodedReadable` on `res`: every chunk handed over (none left in the
 * body stream) and written to the socket (nothing pending in the response or its socket, not even a write the
 * kernel has not yet taken). `body` is asked each time: it exists only once the encoder has been made.
 */
export function drainedOutput(res: ServerResponse, body: () => Readable | undefined): () => boolean {
  return () => body()?.readableLength === 0 && res.writableLength === 0;
}
