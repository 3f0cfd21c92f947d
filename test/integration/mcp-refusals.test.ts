/**
 * `/mcp`'s bounds and refusals with the official TypeScript SDK's client on a listening gateway: a result above
 * `limits.mcpMaxRows` cut and marked with how to narrow; failures as tool errors carrying the REST error body; the
 * hostile corpus through `query` answered by tool errors, never a crash; no credentials refused with the 401 of a
 * data route; a GET refused; `TOPICGATE_MCP=off`.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseLosslessJson } from '../../src/core/lossless-json.js';
import { buildApp } from '../../src/server/app.js';
import { HOSTILE } from '../cases/hostile-corpus.js';
import { testConfig } from '../helpers.js';
import { ALL, EU, MAX_ROWS, NONE, WINDOW, callJson, mcpGateway, type McpGateway } from '../mcp/mcp-gateway.js';

let gw: McpGateway;
let url: URL;
beforeAll(async () => {
  gw = await mcpGateway();
  url = gw.url;
});
afterAll(() => gw?.close());
const connect = (key: string): Promise<Client> => gw.connect(key);

const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

interface Answer {
  isError?: boolean;
  content: { type: string; text: string }[];
}

describe('bounds and refusals, through the TypeScript SDK client', () => {
  it('a result above limits.mcpMaxRows is cut to it and marked, with how to narrow', async () => {
    const client = await connect(ALL);
    for (const limit of ['all', 1000]) {
      const { isError, json } = await callJson(client, 'query', { topic: 'orders', ...WINDOW, select: ['key'], limit });
      expect(isError).toBe(false);
      expect(json.truncated).toBe(true);
      expect(json.maxRows).toBe(MAX_ROWS);
      expect(String(json.narrow)).toContain('since/until');
      expect(json.rows).toHaveLength(MAX_ROWS);
      expect(typeof json.next).toBe('string');
    }
    // Within the bound: no mark, the REST body as it is.
    const within = await callJson(client, 'query', { topic: 'orders', ...WINDOW, select: ['key'], limit: MAX_ROWS });
    expect(within.json.truncated).toBeUndefined();
    // The next page continues for its caller only: another key's next is refused, as over REST.
    const first = await callJson(client, 'query', { topic: 'orders', ...WINDOW, select: ['key'], limit: 'all' });
    const cursor = first.json.next as string;
    const again = await callJson(client, 'query', { topic: 'orders', ...WINDOW, select: ['key'], cursor });
    expect(again.isError).toBe(false);
    expect(again.json.rows).toHaveLength(MAX_ROWS);
    const eu = await connect(EU);
    const stolen = await callJson(eu, 'query', { topic: 'orders', ...WINDOW, select: ['key'], cursor });
    expect(stolen).toMatchObject({ isError: true, json: { error: { code: 'TG_BAD_CURSOR' } } });
  });

  it('failures are tool errors with the REST code and message: unknown topic, no grant, bad arguments', async () => {
    const client = await connect(ALL);
    const none = await connect(NONE);
    const unknown = await callJson(client, 'query', { topic: 'nope' });
    expect(unknown).toMatchObject({ isError: true, json: { error: { code: 'TG_TOPIC_NOT_FOUND', status: 404 } } });
    // A topic the caller may not see is the same 404 (and is absent from its list).
    const hidden = await callJson(none, 'count', { topic: 'orders' });
    expect(hidden).toEqual({
      isError: true,
      json: { error: { code: 'TG_TOPIC_NOT_FOUND', status: 404, message: 'no topic "orders" in the served schemas' } },
    });
    expect((await callJson(none, 'list_topics', {})).json).toEqual({ topics: [] });
    const column = await callJson(client, 'query', { topic: 'orders', ...WINDOW, select: ['nope'] });
    expect(column).toMatchObject({ isError: true, json: { error: { code: 'TG_UNKNOWN_COLUMN' } } });
    const args = await callJson(client, 'count', { topic: 'orders', limit: 5 });
    expect(args).toMatchObject({ isError: true, json: { error: { code: 'TG_BAD_REQUEST' } } });
    // The guardrail, as over REST: a scan filtered only after it needs a window.
    const unbounded = await callJson(client, 'count', {
      topic: 'orders',
      where: { field: 'value', op: 'like', value: '*DE*' },
    });
    expect(unbounded).toMatchObject({
      isError: true,
      json: { error: { code: 'TG_TIME_BOUND_REQUIRED', details: { add: 'since' } } },
    });
    const tool = await callJson(client, 'drop_table', {});
    expect(tool).toMatchObject({ isError: true, json: { error: { code: 'TG_BAD_REQUEST' } } });
    // Counted by tool and outcome; a name not listed is `unknown` (a caller cannot grow the label set).
    const metrics = await gw.app.inject({ url: '/metrics', headers: { authorization: `Bearer ${ALL}` } });
    expect(metrics.body).toContain('topicgate_mcp_tool_calls_total{tool="unknown",outcome="TG_BAD_REQUEST"} 1');
    expect(metrics.body).toMatch(/topicgate_mcp_tool_calls_total\{tool="query",outcome="TG_UNKNOWN_COLUMN"\} 1\n/);
    expect(metrics.body).not.toContain('drop_table');
  });

  it('the hostile corpus through query gives tool errors or answers, never a crash, and the server keeps serving', async () => {
    const client = await connect(ALL);
    for (const text of HOSTILE) {
      for (const args of [
        { topic: text },
        { topic: 'orders', ...WINDOW, select: [text] },
        { topic: 'orders', ...WINDOW, where: { field: text, op: 'eq', value: 'x' } },
        { topic: 'orders', ...WINDOW, where: { field: 'key', op: 'eq', value: text } },
        { topic: 'orders', since: text },
        { topic: 'orders', ...WINDOW, cursor: text },
      ]) {
        const a = (await client.callTool({ name: 'query', arguments: args })) as Answer;
        const json = parseLosslessJson(a.content[0]!.text) as { error?: { code: string; status: number } };
        if (a.isError) {
          expect(json.error!.code, JSON.stringify(args)).toMatch(/^TG_/);
          expect(json.error!.status, JSON.stringify(args)).toBeLessThan(500);
        } else expect(json, JSON.stringify(args)).toHaveProperty('rows');
      }
    }
    expect((await client.listTools()).tools).toHaveLength(6);
  });
});

describe('the HTTP side of /mcp', () => {
  const initialize = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'curl', version: '1' } },
  };

  it('no credentials (or a wrong key) is the 401 of any data route; the SDK client fails to connect', async () => {
    const refused: Record<string, string>[] = [{}, { authorization: 'Bearer wrong-key-000000000000000000000' }];
    for (const auth of refused) {
      const r = await fetch(url, {
        method: 'POST',
        headers: { ...headers, ...auth },
        body: JSON.stringify(initialize),
      });
      expect(r.status).toBe(401);
      expect(r.headers.get('www-authenticate')).toContain('Bearer');
      expect(((await r.json()) as { error: { code: string } }).error.code).toBe('TG_UNAUTHENTICATED');
    }
    const client = new Client({ name: 'anonymous', version: '1' });
    await expect(client.connect(new StreamableHTTPClientTransport(url))).rejects.toThrow();
  });

  it('a browser client of an allowed origin gets the CORS headers on the answer the transport writes', async () => {
    const origin = 'https://agent.example';
    const cors = await mcpGateway({ env: { TOPICGATE_CORS_ORIGINS: origin } });
    try {
      const r = await fetch(cors.url, {
        method: 'POST',
        headers: { ...headers, origin, authorization: `Bearer ${ALL}` },
        body: JSON.stringify(initialize),
      });
      expect(r.status).toBe(200);
      expect(r.headers.get('access-control-allow-origin')).toBe(origin);
      expect(r.headers.get('cache-control')).toBe('private, no-store');
      expect(((await r.json()) as { result: { serverInfo: { name: string } } }).result.serverInfo.name).toBe(
        'topicgate',
      );
      // The preflight of the requests after initialization, which carry the protocol version.
      const preflight = await fetch(cors.url, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization, content-type, mcp-protocol-version',
        },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('mcp-protocol-version');
    } finally {
      await cors.close();
    }
  });

  it('a GET (no server stream in stateless mode) is a 405 naming POST', async () => {
    const r = await fetch(url, { headers: { accept: 'text/event-stream', authorization: `Bearer ${ALL}` } });
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('POST');
    const body = (await r.json()) as { error: { message: string; data: { code: string } } };
    expect(body.error.data.code).toBe('TG_METHOD_NOT_ALLOWED');
    expect(body.error.message).toMatch(/^TG_METHOD_NOT_ALLOWED: /);
  });

  it('TOPICGATE_MCP=off: no /mcp', async () => {
    const off = await buildApp(testConfig({ TOPICGATE_MCP: 'off' }), { logger: false });
    try {
      const r = await off.inject({ method: 'POST', url: '/mcp', headers, payload: initialize });
      expect(r.statusCode).toBe(404);
      expect(r.json().error.code).toBe('TG_NOT_FOUND');
    } finally {
      await off.close();
    }
  });
});

describe('a batch of tool calls in one POST', () => {
  it('is refused before any tool runs: each call is a request of its own against the rate limit', async () => {
    const counted = async () => {
      const m = await gw.app.inject({ url: '/metrics', headers: { authorization: `Bearer ${ALL}` } });
      return [...m.body.matchAll(/^topicgate_mcp_tool_calls_total\{tool="count",[^}]*\} (\d+)$/gm)].reduce(
        (n, x) => n + Number(x[1]),
        0,
      );
    };
    const before = await counted();
    const batch = [1, 2, 3].map((id) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'count', arguments: { topic: 'orders', ...WINDOW } },
    }));
    const r = await fetch(url, {
      method: 'POST',
      headers: { ...headers, authorization: `Bearer ${ALL}` },
      body: JSON.stringify(batch),
    });
    expect(r.status).toBe(400);
    expect(((await r.json()) as { error: { code: string; message: string } }).error).toMatchObject({
      code: 'TG_BAD_REQUEST',
      message: expect.stringContaining('one JSON-RPC message per POST'),
    });
    // No call of the batch ran; a single call is counted.
    expect(await counted()).toBe(before);
    await callJson(await connect(ALL), 'count', { topic: 'orders', ...WINDOW });
    expect(await counted()).toBe(before + 1);
  });
});

describe('an answer above limits.mcpMaxBytes', () => {
  it('is a tool error naming the bound and how to narrow, and the server keeps serving', async () => {
    const small = await mcpGateway({ limits: { mcpMaxBytes: 2048 } });
    try {
      const client = await small.connect(ALL);
      const big = await callJson(client, 'query', { topic: 'orders', ...WINDOW, limit: MAX_ROWS });
      expect(big).toMatchObject({
        isError: true,
        json: { error: { code: 'TG_TOO_EXPENSIVE', status: 422, details: { limit: 'mcpMaxBytes', max: 2048 } } },
      });
      expect(String((big.json.error as { message: string }).message)).toContain('select fewer columns');
      // The same rows with one column fit.
      const narrow = await callJson(client, 'query', { topic: 'orders', ...WINDOW, select: ['key'], limit: MAX_ROWS });
      expect(narrow.isError).toBe(false);
      expect(narrow.json.rows).toHaveLength(MAX_ROWS);
    } finally {
      await small.close();
    }
  });
});

describe('the log of /mcp', () => {
  it('one audit line per POST, with its principal and topic, and never the key', async () => {
    const lines: string[] = [];
    const log = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
        done();
      },
    });
    const logged = await mcpGateway({ log });
    try {
      const client = await logged.connect(ALL);
      await callJson(client, 'count', { topic: 'orders', ...WINDOW });
      await callJson(client, 'query', { topic: 'orders', ...WINDOW, select: ['nope'] });
      const audits = lines
        .map((l) => JSON.parse(l) as { msg: string; audit?: Record<string, unknown> })
        .filter((l) => l.msg === 'audit')
        .map((l) => l.audit!);
      const calls = audits.filter((a) => a.topic === 'orders');
      expect(calls).toHaveLength(2);
      for (const a of calls)
        expect(a).toMatchObject({ principal: 'all-1', route: 'POST /mcp', action: 'read', status: 200 });
      expect(lines.join('\n')).not.toContain(ALL);
    } finally {
      await logged.close();
    }
  });
});
