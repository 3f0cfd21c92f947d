/**
 * A tool's read of events (query, sample_events, count): the read entry's topic, row scope, plan and JSON encoder,
 * as POST /v1/topics/{topic}/query answers it, with its rows bounded by `limits.mcpMaxRows`. A request for more
 * rows than that (or for `all`) reads that many; when the result had more, the answer says `truncated: true` and
 * how to narrow. The body is the JSON encoder's text itself: every digit of a bigint or a decimal kept.
 */
import { ApiError, ERROR_CATALOG, type ErrorCode } from '../core/errors.js';
import { parseLosslessJson } from '../core/lossless-json.js';
import { encoderFor, openRead } from '../entry/open-read.js';
import { explainRead, planRead } from '../entry/plan-read.js';
import { readScopeOf, topicFor, withDecodedFields } from '../entry/read-topic.js';
import { readRequestFromBody } from '../query/request/parse-read-request.js';
import type { QueryBody } from '../query/request/read-schema.js';
import { resolver } from '../query/request/resolver.js';
import type { PlannedRead } from '../query/planner.js';
import { maxRowsOf, type McpCall } from './mcp-call.js';

/** How to get the rest of a cut result, as the answer says it. */
const NARROW =
  'more rows matched than a tool returns (limits.mcpMaxRows): narrow the window (since/until), add a filter ' +
  '(where), aggregate (select with fn and groupBy, or the count tool), or send `next` back as `cursor` for the next page';

/** An answer past `limits.mcpMaxBytes`: what to ask for instead. */
function tooLarge(maxBytes: number): ApiError {
  return new ApiError(
    'TG_TOO_EXPENSIVE',
    `the answer passed limits.mcpMaxBytes (${maxBytes} bytes): select fewer columns (value holds the whole payload; ` +
      'name its fields instead), ask for fewer rows (limit), or aggregate',
    { limit: 'mcpMaxBytes', max: maxBytes },
  );
}

/** The body with its limit bounded; `capped` when the bound cut what was asked for. */
function bounded(body: QueryBody, max: number, defaultLimit: number): { body: QueryBody; capped: boolean } {
  const asked = body.limit ?? defaultLimit;
  if (asked !== 'all' && asked <= max) return { body, capped: false };
  // Every row of the window is `limit: all` (and `parallel`, `order: none` go with it): a page of `max` instead.
  const { parallel: _parallel, ...rest } = body;
  return { body: { ...rest, limit: max, order: body.order === 'none' ? undefined : body.order }, capped: true };
}

/** A read planned for the caller, with the reader schema versions its decoded payloads were planned with. */
interface Planned {
  plan: PlannedRead;
  readerVersions?: Partial<Record<'key' | 'value', number>>;
}

/** The topic, planned for the caller: its grants (404 / 403), decoded fields, row scope and the one planning entry. */
async function planned(call: McpCall, id: string, body: QueryBody, explain: boolean): Promise<Planned> {
  const model = await topicFor(call, id, explain);
  const decode = body.decode !== false;
  const { topic, readerVersions } = await withDecodedFields(call.services, model, decode);
  const req = readRequestFromBody(body, resolver(topic));
  const rows = readScopeOf(call, topic);
  const plan = await planRead(call, { topic, req, rows, cursor: body.cursor, explain, decode, readerVersions });
  return { plan, readerVersions };
}

/** The JSON text of a planned read's page, as the JSON encoder writes it (decoded with the versions planned). */
async function jsonPage(call: McpCall, id: string, p: Planned, body: QueryBody): Promise<string> {
  const memory = call.services.memory.account();
  try {
    const read = await openRead(call, p.plan, encoderFor('application/json', undefined), {
      paged: true,
      token: body.cursor,
      topic: id,
      decode: body.decode !== false,
      readerVersions: p.readerVersions,
      signal: call.signal,
      memory,
    });
    await read.readAhead();
    const { chunks } = read.body({ drained: undefined, finished: () => {} });
    const utf8 = new TextDecoder();
    const maxBytes = call.services.config.limits.mcpMaxBytes;
    let text = '';
    let bytes = 0;
    for await (const chunk of chunks) {
      // Leaving the loop ends the encoder; the tool's lease then cancels what the read still runs in Trino.
      bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.byteLength;
      if (bytes > maxBytes) throw tooLarge(maxBytes);
      text += typeof chunk === 'string' ? chunk : utf8.decode(chunk, { stream: true });
    }
    return text + utf8.decode();
  } finally {
    memory.close();
  }
}

/** A page's body as far as the tool reads it: more to come, or cut by a failure after it started. */
interface PageFacts {
  next: string | null;
  complete: boolean;
  error?: { code: string; message: string; status?: number };
}

/** Reads events as POST /query would, bounded: the JSON body, marked `truncated` when the bound cut it. */
export async function boundedRead(call: McpCall, id: string, asked: QueryBody): Promise<string> {
  const { config } = call.services;
  const { body, capped } = bounded(asked, maxRowsOf(call), config.defaultLimit);
  const text = await jsonPage(call, id, await planned(call, id, body, false), body);
  const facts = parseLosslessJson(text) as PageFacts;
  // A result that failed after its body started: a tool error with the code the body carries.
  if (!facts.complete) {
    const code = facts.error?.code ?? 'TG_INTERNAL';
    const known = Object.hasOwn(ERROR_CATALOG, code) ? (code as ErrorCode) : 'TG_INTERNAL';
    throw new ApiError(known, facts.error?.message ?? 'the result was cut');
  }
  if (!capped || facts.next === null) return text;
  // The body is one JSON object: the marks go first, the encoder's members after them unchanged.
  const marks = JSON.stringify({ truncated: true, maxRows: maxRowsOf(call), narrow: NARROW });
  return `${marks.slice(0, -1)},${text.trimStart().slice(1)}`;
}

/** Explains a read as POST /query with `explain: true` does: the SQL, the pushdown split and Trino's plan. */
export async function explainedRead(call: McpCall, id: string, body: QueryBody) {
  return explainRead(call, (await planned(call, id, body, true)).plan);
}
