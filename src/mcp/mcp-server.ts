/**
 * The MCP server of one request (streamable HTTP in stateless mode: a server per request, no session kept): the
 * tool list with each tool's JSON Schema, and a tool call run for the request's caller. A failure of a tool is a
 * tool error (MCP "Tools", error handling: `isError: true`) carrying the `TG_` code and message of the REST API's
 * error body, never a protocol error, so an agent reads it and can correct its arguments.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { ApiError } from '../core/errors.js';
import { logFailure, toApiError } from '../trino/trino-errors.js';
import type { McpCall } from './mcp-call.js';
import { errorAnswer, jsonAnswer, type ToolAnswer } from './tool-answers.js';
import { argumentsOf, jsonSchemaOf } from './tool-inputs.js';
import { TOOLS } from './tool-list.js';

/** The tool list as the protocol shows it: built once, the same for every caller. */
const LISTED = TOOLS.map((t) => ({
  name: t.name,
  title: t.title,
  description: t.description,
  inputSchema: jsonSchemaOf(t.input) as { type: 'object'; [key: string]: unknown },
  annotations: { readOnlyHint: true, openWorldHint: false },
}));

const BY_NAME = new Map(TOOLS.map((t) => [t.name, t]));

/** How to use the tools, as the server tells a client when it connects (MCP "Lifecycle": `instructions`). */
const INSTRUCTIONS =
  'Event topics read through Trino, with your own access. Start with list_topics, then describe_topic for the ' +
  'columns you can select, filter and group by. Bound every read with since/until (ISO-8601 or relative "-1h"): ' +
  'count and query with aggregates (select with fn, groupBy with a time bucket) answer most questions; explain ' +
  'shows what a query would scan. Answers hold at most a few hundred rows and say "truncated" when cut.';

/** What the entrance keeps of each tool call: its failures logged, and each call counted by tool and outcome. */
export interface ToolHooks {
  /** The request's logger (credentials never reach it). */
  log: Parameters<typeof logFailure>[0];
  /** A call ended: `tool` one of the listed names (else `unknown`), `outcome` ok or the tool error's code. */
  counted(tool: string, outcome: string): void;
}

/**
 * Runs one tool for the call: its arguments checked, its answer or its failure as a tool error. Each call takes
 * query slots of its own (a fork of the request's lease), ended with the call: calls that ran at once on one
 * request would otherwise all run on the one slot the request holds.
 */
export async function callTool(call: McpCall, hooks: ToolHooks, name: string, args: unknown): Promise<ToolAnswer> {
  const trino = call.trino.fork();
  try {
    const tool = BY_NAME.get(name);
    if (!tool) {
      const names = TOOLS.map((t) => t.name).join(', ');
      throw new ApiError('TG_BAD_REQUEST', `no tool ${JSON.stringify(name)}: the tools are ${names}`, { tool: name });
    }
    const answer = jsonAnswer(await tool.run({ ...call, trino }, argumentsOf(tool.input, args)));
    hooks.counted(name, 'ok');
    return answer;
  } catch (err) {
    const e = toApiError(err);
    if (!call.signal.aborted) logFailure(hooks.log, e, err);
    hooks.counted(BY_NAME.has(name) ? name : 'unknown', e.code);
    return errorAnswer(e);
  } finally {
    trino.end();
  }
}

/** A server answering the tool list and tool calls for this request's caller. */
export function mcpServer(call: McpCall, hooks: ToolHooks, version: string): Server {
  const server = new Server(
    { name: 'topicgate', version },
    { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: LISTED }));
  server.setRequestHandler(CallToolRequestSchema, (request) =>
    callTool(call, hooks, request.params.name, request.params.arguments),
  );
  return server;
}
