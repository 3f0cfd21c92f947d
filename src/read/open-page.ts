/**
 * A planned read as one page's result stream: payloads decoded, the post-decode stage run, the page cut from the
 * rows (sliced, bulk, or continuing a held result), and the next page's position learnt as the rows go by. The read
 * entry (entry/open-read.ts) asks it for the rows to encode and for the next position, and owns the rest.
 */
import type { Config } from '../config/config.js';
import type { ResultColumn, ResultStream } from '../core/result-stream.js';
import type { RegistryPort } from '../blob/avro/schema-registry.js';
import { preparePayloads, type PayloadDecoding } from '../blob/avro/payload-decoder.js';
import type { PlannedRead } from '../query/planner.js';
import type { PagePosition } from '../query/tree/page-position.js';
import { pageRead, type HeldResults } from './held-results.js';
import { PageCutter } from './page-cutter.js';
import { postDecodeOf, type PagePostDecode } from './post-decode/post-decode-of.js';
import { openResult, withSliceWidth, type PortRef, type SliceStats } from './sliced-result.js';
import { GatewayMemory, type MemoryAccount } from './gateway-memory.js';

/** The request's Trino: its queries take the caller's query slots, held results keep and hand them on. */
export type PageTrino = Parameters<typeof pageRead>[1];

/** What reading a page needs from the gateway and from the request. */
export interface PageContext {
  config: Pick<Config, 'topics' | 'queryTimeoutMs' | 'prefetchRows'>;
  registry: RegistryPort | undefined;
  held: HeldResults;
  trino: PageTrino;
  /** Aborted when the client goes away: the page's queries are cancelled. */
  signal: AbortSignal;
  /** The response's account of bytes held in the gateway (sorts, aggregates, look-ahead: gateway-memory.ts). */
  memory: MemoryAccount;
  /** The most a look-ahead for exact headers may hold (its share of the gateway's limit). */
  lookAheadBytes: number;
}

/** How the page is read and shown: what the response's format needs of it (encode/encoder-registry.ts). */
export interface PageOptions {
  /** Page links (events) or none (a cursor batch is one unit). */
  paged: boolean;
  /** The page token the request presented, accepted by its plan: a query held for it is continued. */
  token?: string;
  /** The caller's name: held results are kept per caller. */
  caller: string;
  /** The topic read: its Avro / json-sr payloads are decoded unless `decode` is false. */
  topic: string;
  decode: boolean;
  readerVersions?: Partial<Record<'key' | 'value', number>>;
  /** The format writes bytes as `\x` hex text. */
  bytesAsHex: boolean;
  /** The format flattens decoded records into one column per leaf field. */
  flattensDecoded: boolean;
}

/** The page's end: its rows, the next page's position, and what becomes of the rest of its result. */
export interface PageEnd {
  rows: number;
  next(): PagePosition | null;
  /** Holds the rest of the result for the page presenting `token` (null: ends it). */
  holdRest(token: string | null): void;
}

/** One page of a planned read. */
export interface Page {
  queryId: string;
  /** True when the page continues an earlier page's held query (it ran none of its own to start). */
  continued: boolean;
  /** A bulk read (limit=all) or a cursor batch is one response: no next page to link. */
  paged: boolean;
  /** Rows cut so far. */
  readonly rows: number;
  /** True once a row past the page's limit was seen: the read matched more rows than the page holds. */
  readonly more: boolean;
  /**
   * Reads ahead before the response starts: `forHeaders`, as far as a next page's position can be known (the
   * settings' look-ahead in rows and the context's in bytes, or the page's end when the post-decode stage filters);
   * else one batch, so errors in the first batch still get a proper status.
   */
  lookAhead(forHeaders: boolean): Promise<void>;
  /** The next page's position as known before the body: null when there is none or it is not known yet. */
  nextBeforeBody(): PagePosition | null;
  /** The rows to encode; `onEnd` runs when the page was read to its end. */
  body(onEnd: (end: PageEnd) => void): ResultStream;
}

/** Reader schemas, fetched before the query starts: a registry failure is a plain 502, no query to cancel. */
function payloadsOf(ctx: PageContext, o: PageOptions) {
  if (!o.decode) return Promise.resolve(null);
  const versions = o.readerVersions;
  return preparePayloads(o.topic, ctx.config.topics[o.topic], ctx.registry, { hexBytes: o.bytesAsHex, versions });
}

/** Opens a planned read's page: its queries start here; a failure to start one is thrown. */
export async function openPage(ctx: PageContext, plan: PlannedRead, o: PageOptions): Promise<Page> {
  const { config, trino } = ctx;
  // A bulk read's slices run at once: it holds a query slot for each before the first starts.
  if (plan.bulk) await trino.hold(Math.min(plan.bulk.concurrency, plan.bulk.bounds.length - 1));
  const payloads = await payloadsOf(ctx, o);
  const stats: SliceStats = { queries: 0, widthMs: 0, endMs: 0 };
  const pageLimit = plan.postDecode?.limit ?? plan.tree.limit;
  // Rows as text unless the gateway computes on their values: the plan's post-decode stage, or payloads decoded.
  const rowText = plan.rowText && !payloads;
  const opts = { ...plan.run, signal: ctx.signal, timeoutMs: config.queryTimeoutMs, rowText };
  const port: PortRef = { trino, opts, stats };
  // Held results: a plain sliced page's query goes on past the page and is held for the next one (under its
  // token and the caller), which continues it instead of starting a query of its own.
  const eligible = o.paged && Boolean(plan.slices) && !plan.postDecode && !plan.bulk;
  const read = await pageRead(
    ctx.held,
    trino,
    port,
    { eligible, limit: pageLimit, token: o.token, caller: o.caller, signal: ctx.signal },
    (holding) => openResult(port, plan, holding),
  );
  if (plan.postDecode && !payloads) throw new Error('a post-decode stage needs decoded payloads: a planner defect');
  const stage =
    plan.postDecode && payloads ? postDecodeOf(plan.postDecode, payloads.wrap(read.source), plan, ctx.memory) : null;
  const cutter = stage
    ? new PageCutter(stage.run.source, pageLimit, stage.timeIndex, stage.run.keep)
    : new PageCutter(read.source, plan.tree.limit, plan.timeIndex, undefined, read.holding, read.first);
  const shown = (view: ResultStream) => project(view, stage, payloads, o.flattensDecoded);
  const nextOf = (p: PagePosition | null) => withSliceWidth(plan, p, stats);
  return {
    queryId: read.result.queryId,
    continued: read.continued,
    paged: o.paged && pageLimit !== Infinity,
    get rows() {
      return cutter.rows;
    },
    get more() {
      return cutter.more;
    },
    lookAhead: (forHeaders) => {
      // A page filtered here names its next page only once settled: it reads to its end, or is refused.
      const settle = forHeaders && Boolean(stage?.run.keep);
      const rows = forHeaders ? (settle ? pageLimit + 1 : Math.max(1, config.prefetchRows)) : 1;
      return cutter.lookAhead(rows, { memory: ctx.memory, maxBytes: ctx.lookAheadBytes, mustSettle: settle });
    },
    // Only a settled page may name its next one when the post-decode stage filters (presumedNext is null then).
    nextBeforeBody: () => nextOf(cutter.settled ? cutter.next(plan.position) : cutter.presumedNext(plan.position)),
    body: (onEnd) =>
      shown(
        cutter.view(() => {
          const rest = cutter.rest();
          onEnd({
            rows: cutter.rows,
            next: () => nextOf(cutter.next(plan.position)),
            holdRest: (token) => rest && read.holdRest(token, rest),
          });
        }),
      ),
  };
}

/**
 * The columns a planned read's rows are shown with (JSON and Arrow: decoded records whole), without running it:
 * Trino's columns as the plan selects them, through the same decoding and post-decode projection as a page.
 */
export async function planColumns(
  ctx: Pick<PageContext, 'config' | 'registry'>,
  plan: PlannedRead,
  o: Pick<PageOptions, 'topic' | 'decode' | 'readerVersions'>,
): Promise<readonly ResultColumn[]> {
  const columns = plan.tree.select.map((s) => ({
    name: s.as,
    type: s.kind === 'select-column' || s.kind === 'bucket' ? s.column.type : 'bigint',
  }));
  const none: ResultStream = { queryId: '', columns, batches: (async function* () {})() };
  const payloads = o.decode
    ? await preparePayloads(o.topic, ctx.config.topics[o.topic], ctx.registry, {
        hexBytes: false,
        versions: o.readerVersions,
      })
    : null;
  // Nothing is read here: an account of no bytes.
  const nothing = new GatewayMemory(0).account();
  const stage = plan.postDecode && payloads ? postDecodeOf(plan.postDecode, payloads.wrap(none), plan, nothing) : null;
  return project(stage ? stage.run.source : none, stage, payloads, false).columns;
}

/** What the response shows of the cut rows: the post-decode projection, or the payloads decoded in place. */
function project(
  view: ResultStream,
  stage: PagePostDecode | null,
  payloads: PayloadDecoding | null,
  flatten: boolean,
): ResultStream {
  if (stage) return stage.project(view, flatten);
  return payloads ? payloads.wrap(view, { flatten }) : view;
}
