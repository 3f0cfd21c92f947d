/**
 * `/mcp` (API.md "Tools for agents: MCP"): the Model Context Protocol's streamable HTTP transport in stateless mode
 * (a server and a transport per POST, no session kept), over the same caller as every data route: the access
 * plugin has authenticated it (no credentials: the 401 of any data route) and leased its query slots
 * (`config.data`). The tools run through the read entry (mcp/); the transport writes the response itself.
 * Not in the OpenAPI document: its bodies are JSON-RPC messages, which the MCP specification describes.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { accessCallOf } from '../access/authorize.js';
import { ApiError, type ErrorCode } from '../core/errors.js';
import { readCallOf } from '../http/request-caller.js';
import { mcpServer } from '../mcp/mcp-server.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

const VERSION = '0.1.0';

/** Aborted when the client goes away before the response is whole: the tools' Trino queries are cancelled. */
function goneSignal(reply: FastifyReply): AbortSignal {
  const gone = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) gone.abort();
  });
  return gone.signal;
}

/** One JSON-RPC exchange: the tool list or a tool call for the request's caller, answered by the SDK's transport. */
async function exchange(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  // One message per POST, so each tool call is one request against the caller's rate limit and audit line (MCP
  // 2025-06-18 has no JSON-RPC batches; an older client's batch of one is still one message).
  if (Array.isArray(request.body) && request.body.length > 1) {
    throw new ApiError('TG_BAD_REQUEST', 'send one JSON-RPC message per POST: batches are not accepted on /mcp', {
      in: 'body',
    });
  }
  const app = request.server;
  const call = { ...readCallOf(app, request), ...accessCallOf(request), services: app.tg, signal: goneSignal(reply) };
  const counted = (tool: string, outcome: string) => app.metrics.mcpToolCalls.inc({ tool, outcome });
  const server = mcpServer(call, { log: request.log, counted }, VERSION);
  // Stateless: no session id, and a JSON answer per POST (no event stream to keep open).
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  reply.raw.once('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  // The headers the plugins set so far (CORS, rate limit) are fastify's until it sends; the transport writes the
  // response itself, so they go on it now. The answer is the caller's alone.
  for (const [name, value] of Object.entries(reply.getHeaders()))
    if (value !== undefined) reply.raw.setHeader(name, value);
  reply.raw.setHeader('Cache-Control', 'private, no-store');
  reply.hijack();
  await transport.handleRequest(request.raw, reply.raw, request.body);
}

/**
 * A GET would open a stream of server-initiated messages, which a stateless server has none of: the transport's
 * 405 (MCP "Streamable HTTP": the server MUST answer a GET with an event stream or 405), and so for DELETE, which
 * ends a session this server never keeps.
 */
async function noStream(_request: FastifyRequest, reply: FastifyReply) {
  reply.header('Allow', 'POST');
  reply.header('Cache-Control', 'private, no-store');
  return reply
    .status(405)
    .type('application/json; charset=utf-8')
    .send({
      jsonrpc: '2.0',
      // JSON-RPC's code is a number; the catalog's code leads the message and is the error's data.
      error: {
        code: -32000,
        message: 'TG_METHOD_NOT_ALLOWED: /mcp takes POST (one JSON-RPC message each); this server keeps no stream',
        data: { code: 'TG_METHOD_NOT_ALLOWED' satisfies ErrorCode, status: 405 },
      },
      id: null,
    });
}

const mcpRoutes: FastifyPluginAsync = async (app) => {
  app.post('/mcp', { config: { data: true }, schema: { hide: true } }, exchange);
  app.route({
    method: ['GET', 'DELETE'],
    url: '/mcp',
    config: { data: true },
    schema: { hide: true },
    handler: noStream,
  });
};

export default mcpRoutes;
