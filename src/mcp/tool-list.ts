/**
 * The tools an agent is offered, each with a description written for a model (what it returns, its bounds, one
 * example), its arguments' schema (tool-inputs.ts) and what it runs: the same read entry as the REST API's routes,
 * for the same caller, grants, row policies, limits and guardrail.
 */
import type { Static, TSchema } from 'typebox';
import { topicFor } from '../entry/read-topic.js';
import type { QueryBody } from '../query/request/read-schema.js';
import { boundedRead, explainedRead } from './bounded-read.js';
import type { McpCall } from './mcp-call.js';
import { CountInput, DescribeTopicInput, ListTopicsInput, QueryInput, SampleEventsInput } from './tool-inputs.js';
import { describeTopic, listTopics } from './topic-tools.js';

export interface Tool<S extends TSchema = TSchema> {
  name: string;
  title: string;
  description: string;
  input: S;
  /** The result: JSON text as the encoder wrote it, or a value to write as JSON. */
  run(call: McpCall, args: Static<S>): Promise<unknown>;
}

const tool = <S extends TSchema>(t: Tool<S>): Tool => t as unknown as Tool;

/** The window sample_events reads when it is given none. */
const SAMPLED_WINDOW = '-7d';

const BOUND = 'At most limits.mcpMaxRows rows (default 200); a cut result says "truncated": true and how to narrow.';

/** The POST /query body of a tool's arguments (the topic is the tool's own member). */
function bodyOf(args: QueryInput): QueryBody {
  const { topic: _topic, ...body } = args;
  return body;
}

export const TOOLS: readonly Tool[] = [
  tool({
    name: 'list_topics',
    title: 'List topics',
    description:
      'Lists the event topics (and tables) you may read: {"topics": [{"name", "schema", "table", "kind"}]}. ' +
      '`kind` "topic" has key, value, timestamp_broker and the other topic columns. Takes no arguments. Start here.',
    input: ListTopicsInput,
    run: (call) => listTopics(call),
  }),
  tool({
    name: 'describe_topic',
    title: 'Describe a topic',
    description:
      'Describes one topic: its columns with their Trino types (`origin` "expansion": a field computed from the JSON payload, usable like a column), decoded Avro/JSON-Schema payload fields (`payloads`, addressable as value.<field>), and `settle` (events older than this no longer change). With presence: true it also samples up to 200 recent payloads and gives each JSON field\'s path, type and presence (share of events that have it). Example: {"topic": "orders", "presence": true}.',
    input: DescribeTopicInput,
    run: (call, args) => describeTopic(call, args),
  }),
  tool({
    name: 'sample_events',
    title: 'Sample recent events',
    description:
      'Returns a few of the most recent events of a topic, newest first, as {"columns", "rows", "next", "complete"} ' +
      '(bigints and decimals with every digit). limit: 1..100, default 10. Window: since/until (ISO-8601 or ' +
      'relative: "-1h", "-30d"), by default the last 7 days (widen it with since when that is empty); where and ' +
      'select as in the query tool. Example: {"topic": "orders", "limit": 5, "since": "-1d"}.',
    input: SampleEventsInput,
    run: async (call, args) => {
      const { topic, limit, ...rest } = args;
      const model = await topicFor(call, topic);
      const newest = model.columns.has('timestamp_broker');
      const order = newest ? [{ field: 'timestamp_broker', dir: 'desc' as const }] : undefined;
      // The newest events of a recent window: a sort of the whole topic for its ten newest events would scan it all.
      const window = newest && rest.since === undefined && rest.until === undefined ? { since: SAMPLED_WINDOW } : {};
      return boundedRead(call, topic, { ...rest, ...window, limit: limit ?? 10, ...(order ? { order } : {}) });
    },
  }),
  tool({
    name: 'query',
    title: 'Query events',
    description:
      'Runs a read of one topic with the body of POST /v1/topics/{topic}/query: select (columns, or aggregates ' +
      '{"fn": "count"|"sum"|"avg"|"min"|"max"|"count_distinct"|..., "field", "as"}), where (a tree of {"field", "op", ' +
      '"value"} with and/or/not), since/until on timestamp_broker, groupBy (columns, or {"bucket": "1h"}), order, ' +
      `limit, dedupe, cursor (the \`next\` of the previous answer). Returns {"columns", "rows", "next", "complete"}. ${BOUND} ` +
      'Example: {"topic": "orders", "since": "-1d", "select": [{"fn": "count", "as": "n"}], "groupBy": [{"bucket": "1h"}], "order": [{"field": "bucket", "dir": "asc"}]}.',
    input: QueryInput,
    run: (call, args) => boundedRead(call, args.topic, bodyOf(args)),
  }),
  tool({
    name: 'explain',
    title: 'Explain a query',
    description:
      'Takes the arguments of the query tool and returns, without reading events, the SQL it would run, which ' +
      'filters the storage evaluates (pushdown), Trino\'s plan, and "refused" when the guardrail would refuse it ' +
      '(with how to fix it). Use it before a query over a long window. Example: {"topic": "orders", "since": "-7d", "where": {"field": "key", "op": "eq", "value": "order-1"}}.',
    input: QueryInput,
    run: (call, args) => explainedRead(call, args.topic, bodyOf(args)),
  }),
  tool({
    name: 'count',
    title: 'Count events',
    description:
      'Counts the events of a topic in a window and filter: {"columns", "rows": [{"count": n}], ...}. Optional ' +
      'since/until (ISO-8601 or relative "-1h") and where (as in the query tool). Example: {"topic": "orders", "since": "-1d", "where": {"field": "status", "op": "eq", "value": "paid"}}.',
    input: CountInput,
    run: (call, args) => {
      const { topic, ...window } = args;
      return boundedRead(call, topic, { ...window, select: [{ fn: 'count', as: 'count' }] });
    },
  }),
];
