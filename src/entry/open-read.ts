/**
 * Opening a planned read for any entrance: the encoder of the requested media type prepared, the page opened
 * against Trino (read/open-page.ts), the next page named before the body when the format needs it there, and the
 * rows encoded as they come, with a cut result visibly broken in the body. What goes on the wire around it
 * (headers, compression, flushing, metrics) is the entrance's.
 */
import type { ColumnCodec } from '../core/content-codings.js';
import { ApiError } from '../core/errors.js';
import type { ResultColumn } from '../core/result-stream.js';
import { encoderRegistry, type EncoderEntry, type MediaType } from '../encode/encoder-registry.js';
import type { EncodeOptions, FileLayout } from '../encode/encoder.js';
import { PageTokens } from '../query/page-tokens.js';
import type { PlannedRead } from '../query/planner.js';
import type { MemoryAccount } from '../read/gateway-memory.js';
import { openPage, type Page, type PageEnd } from '../read/open-page.js';
import { toApiError } from '../trino/trino-errors.js';
import { pageContextOf, type ReadCall } from './read-call.js';

/** How a planned read is answered. */
export interface OpenOptions {
  /** Page links (events) or none (a cursor batch is one unit). */
  paged: boolean;
  /** The page token the request presented, accepted by its plan: a query held for it is continued. */
  token?: string;
  nextUrl?: (token: string) => string;
  /** Extra members of the JSON body, written only on success. */
  meta?: Record<string, unknown>;
  /** The topic read: its Avro / json-sr payloads are decoded unless `decode` is false. */
  topic: string;
  decode: boolean;
  readerVersions?: Partial<Record<'key' | 'value', number>>;
  /** `compression=`: the column codec of a format that compresses its columns (Parquet); a 400 for the others. */
  compression?: ColumnCodec;
  /** The body is a file read by range (encode/encoder.ts FileLayout), not a stream. */
  file?: FileLayout;
}

/** The next page, known before the body: its token, and its link when the entrance builds links. */
export interface NextBeforeBody {
  token: string;
  url?: string;
}

/** What the encoded body reports to the entrance that sends it. */
export interface BodyHooks {
  /** Called when the output can take more (encode/encoder-registry.ts drainedOutput). */
  drained: EncodeOptions['drained'];
  /** A failure after the body started, as the body's cut mark shows it; `cause` is what was thrown. */
  failed?: (error: ReturnType<typeof toApiError>, cause: unknown) => void;
  /** The page's rows are all encoded (the next page's token, if any, is in the body). */
  finished: () => void;
}

/** A read opened against Trino, ready to encode. */
export interface OpenedRead {
  /** Trino's query id (of the query this page reads). */
  readonly queryId: string;
  /** The encoder: its media type's content type, format name and how it is compressed. */
  readonly entry: EncoderEntry;
  /** The page read, as far as it got: its rows so far, and whether it continued a held query. */
  readonly page: Page;
  /**
   * Reads the first batch, or (a format that names the next page before the body) reads ahead to make that name
   * exact: the next page when there is one. Called once, before `body`; its errors still get a proper status.
   */
  readAhead(): Promise<NextBeforeBody | undefined>;
  /** The encoded body: the page's rows in the media type, and its columns with their types. */
  body(hooks: BodyHooks): { columns: readonly ResultColumn[]; chunks: AsyncIterable<string | Uint8Array> };
}

/** The encoder for `media`; `compression=` names a column codec, which only a format that compresses its columns has. */
export function encoderFor(media: MediaType, codec: ColumnCodec | undefined): EncoderEntry {
  const entry = encoderRegistry[media];
  if (codec === undefined || entry.compression === 'columns') return entry;
  throw new ApiError(
    'TG_BAD_REQUEST',
    `compression=${codec} sets the column codec of format=parquet; ${entry.format} is compressed on the wire instead, as Accept-Encoding asks`,
    { parameter: 'compression' },
  );
}

/** Opens a planned read in `entry`'s media type against Trino. */
export async function openRead(
  call: ReadCall,
  plan: PlannedRead,
  entry: EncoderEntry,
  o: OpenOptions & { signal: AbortSignal; memory: MemoryAccount },
): Promise<OpenedRead> {
  const ctx = pageContextOf(call.services, call.trino, o.signal, o.memory);
  const page = await openPage(ctx, plan, {
    ...o,
    caller: call.caller?.id ?? '',
    bytesAsHex: entry.bytesAsHex,
    flattensDecoded: entry.flattensDecoded,
  });
  const tokens = new PageTokens(call.services.keyring);
  let next: NextBeforeBody | undefined;
  const readAhead = async () => {
    next = await nextInHeaders(page, tokens, entry.nextInBody ? undefined : o);
    return next;
  };
  const nextUrl = (token: string | null) => (token && o.nextUrl ? o.nextUrl(token) : token);
  const body = (hooks: BodyHooks) => {
    const options: EncodeOptions = {
      next: null,
      meta: o.meta,
      onError: (err: unknown) => {
        const e = toApiError(err);
        hooks.failed?.(e, err);
        return { code: e.code, message: e.message, status: e.status };
      },
      drained: hooks.drained,
      columnCodec: o.compression,
      csvFormulas: call.services.config.csvFormulas,
      file: o.file,
    };
    const shown = page.body((end) => {
      hooks.finished();
      if (page.paged) options.next = nextUrl(pageEnd(end, tokens, next?.token));
    });
    return { columns: shown.columns, chunks: entry.encode(shown, options) };
  };
  return { queryId: page.queryId, entry, page, readAhead, body };
}

/**
 * Formats that name the next page in headers read ahead to make Link exact, and name it when it is known; the
 * others (`o` undefined) read one batch, so errors in the first batch still get a proper status.
 */
async function nextInHeaders(
  page: Page,
  tokens: PageTokens,
  o: Pick<OpenOptions, 'nextUrl'> | undefined,
): Promise<NextBeforeBody | undefined> {
  const named = page.paged && o !== undefined;
  await page.lookAhead(named);
  const next = named ? page.nextBeforeBody() : null;
  if (!next) return undefined;
  const token = tokens.encode(next);
  return o?.nextUrl ? { token, url: o.nextUrl(token) } : { token };
}

/**
 * The next page's token at the page's end; the rest of the result is held for it, only under the token the
 * client was given (the one named before the body, when there was one).
 */
function pageEnd(end: PageEnd, tokens: PageTokens, headerToken: string | undefined): string | null {
  const next = end.next();
  const token = next ? tokens.encode(next) : null;
  end.holdRest(token && (headerToken === undefined || headerToken === token) ? token : null);
  return token;
}
