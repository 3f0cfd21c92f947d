/**
 * `/mcp` against the real Trino, with the official TypeScript SDK's client (Client over the streamable HTTP
 * transport) on a gateway listening on a port: every tool listed with a valid JSON Schema, every tool's answer equal
 * to the REST API's for the same request and the same key, a row-policy principal seeing only its rows, no
 * credentials refused with the 401 of a data route, a result above `limits.mcpMaxRows` cut and marked, and the
 * hostile corpus through `query` answered by tool errors while the server keeps serving.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import AjvCompiler from '@fastify/ajv-compiler';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { apiKeyHash } from '../../src/access/api-keys.js';
import { parseLosslessJson } from '../../src/core/lossless-json.js';
import { buildApp } from '../../src/server/app.js';
import { HOSTILE } from '../cases/hostile-corpus.js';
import { testConfig } from '../helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'topicgate-mcp-'));
const ALL = 'mcp-all-0000000000000000000000000000';
const EU = 'mcp-eu-00000000000000000000000000000';
const NONE = 'mcp-none-000000000000000000000000000';
const MAX_ROWS = 7;
const WINDOW = { since: '2026-11-01T00:00:00Z', until: '2026-11-02T00:00:00Z' };

let app: FastifyInstance;
let url: URL;
const clients: Client[] = [];

beforeAll(async () => {
  const file = join(dir, 'mcp.yaml');
  writeFileSync(
    file,
    stringify({
      topics: { orders: { expand: { country: { path: '$.customer.address.country', type: 'varchar' } } } },
      auth: {
        apiKeys: [
          { principal: 'all-1', sha256: apiKeyHash(ALL), roles: ['analyst'] },
          { principal: 'eu-1', sha256: apiKeyHash(EU), roles: ['analyst', 'analyst-eu'] },
          { principal: 'none-1', sha256: apiKeyHash(NONE), roles: ['nobody'] },
        ],
      },
      access: [{ roles: ['analyst'], topics: ['orders', 'clicks'], actions: ['read', 'explain', 'infer'] }],
      rowPolicies: { default: 'allow', orders: [{ roles: ['analyst-eu'], filter: 'country=in.(DE,FR)' }] },
      limits: { mcpMaxRows: MAX_ROWS },
    }),
  );
  app = await buildApp(testConfig({ TOPICGATE_CONFIG: file }), { logger: false });
  url = new URL('/mcp', await app.listen({ host: '127.0.0.1', port: 0 }));
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function connect(key: string): Promise<Client> {
  const client = new Client({ name: 'topicgate-test', version: '1.0.0' });
  const headers = { Authorization: `Bearer ${key}` };
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
  clients.push(client);
  return client;
}

interface Answer {
  isError?: boolean;
  content: { type: string; text: string }[];
}

/** Calls a tool and returns its answer's JSON (lossless, as the REST bodies are read below) and whether it failed. */
async function callJson(client: Client, name: string, args: Record<string, unknown>) {
  const a = (await client.callTool({ name, arguments: args })) as Answer;
  expect(a.content).toHaveLength(1);
  return { isError: a.isError === true, json: parseLosslessJson(a.content[0]!.text) as Record<string, unknown> };
}

const rest = async (key: string, method: 'GET' | 'POST', path: string, body?: unknown) => {
  const r = await app.inject({
    method,
    url: path,
    headers: { authorization: `Bearer ${key}` },
    payload: body as object,
  });
  expect(r.statusCode, r.body).toBe(200);
  return parseLosslessJson(r.body) as Record<string, unknown>;
};

describe('the tools, through the TypeScript SDK client', () => {
  it('initializes and lists the six tools, each with an input schema that compiles as JSON Schema', async () => {
    const client = await connect(ALL);
    expect(client.getServerVersion()?.name).toBe('topicgate');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(
      ['count', 'describe_topic', 'explain', 'list_topics', 'query', 'sample_events'].sort(),
    );
    // Ajv, as fastify builds it (strict: every keyword known), compiles each schema.
    const build = AjvCompiler()(
      {},
      { customOptions: { strict: true, strictTuples: false, removeAdditional: false, coerceTypes: false } },
    );
    const ajv = { compile: (schema: object) => build({ schema, method: 'POST', url: '/mcp', httpPart: 'body' }) };
    for (const t of tools) {
      expect(t.inputSchema.type, t.name).toBe('object');
      expect(JSON.stringify(t.inputSchema), t.name).not.toContain('"$ref":"Where"');
      const validate = ajv.compile(t.inputSchema);
      expect(validate({ topic: 'orders', nonsense: 1 }), t.name).toBe(false);
      expect(t.description!.length, t.name).toBeGreaterThan(80);
    }
    const query = tools.find((t) => t.name === 'query')!;
    const ok = ajv.compile(query.inputSchema);
    expect(
      ok({
        topic: 'orders',
        where: { or: [{ field: 'key', op: 'eq', value: 'a' }, { not: { field: 'key', op: 'is', value: null } }] },
      }),
    ).toBe(true);
    expect(ok({ topic: 'orders', where: { or: [{ fieldd: 'key' }] } })).toBe(false);
  });

  it('list_topics and describe_topic: the REST answers for the same key', async () => {
    const client = await connect(ALL);
    const listed = await callJson(client, 'list_topics', {});
    expect(listed.isError).toBe(false);
    expect(listed.json).toEqual(await rest(ALL, 'GET', '/v1/topics'));
    expect((listed.json.topics as { name: string }[]).map((t) => t.name).sort()).toEqual(['clicks', 'orders']);
    const described = await callJson(client, 'describe_topic', { topic: 'orders' });
    expect(described.json).toEqual({ ...(await rest(ALL, 'GET', '/v1/topics/orders')), settle: '30s' });
    expect(described.json.columns).toContainEqual(expect.objectContaining({ name: 'country', origin: 'expansion' }));
  });

  it('describe_topic with presence: the sampled fields with their presence, as the infer route finds them', async () => {
    const client = await connect(ALL);
    const { isError, json } = await callJson(client, 'describe_topic', { topic: 'orders', presence: true, ...WINDOW });
    expect(isError).toBe(false);
    const inferred = await rest(
      ALL,
      'GET',
      `/v1/topics/orders/schema/infer?since=${WINDOW.since}&until=${WINDOW.until}&sample=200`,
    );
    const presence = json.presence as { sampled: number; fields: { path: string; presence: number }[] };
    expect(presence.sampled).toBe(inferred.sampled);
    // Each sample is drawn anew: the common fields (in most payloads) are found by both, each with its share.
    const common = (inferred.fields as { path: string; presence: number }[]).filter((f) => f.presence >= 0.5);
    expect(common.length).toBeGreaterThan(3);
    for (const f of common) expect(presence.fields.map((p) => p.path)).toContain(f.path);
    for (const f of presence.fields) expect(f.presence).toBeGreaterThan(0);
    expect(presence.fields.some((f) => f.path === '$.customer.address.country')).toBe(true);
  });

  it('query, explain, count and sample_events: the REST answers for the same body', async () => {
    const client = await connect(ALL);
    const body = {
      ...WINDOW,
      select: ['key', { fn: 'count', as: 'n' }],
      groupBy: ['key'],
      order: [
        { field: 'n', dir: 'desc' },
        { field: 'key', dir: 'asc' },
      ],
      limit: 5,
    };
    const queried = await callJson(client, 'query', { topic: 'orders', ...body });
    expect(queried.isError).toBe(false);
    expect(queried.json).toEqual(await rest(ALL, 'POST', '/v1/topics/orders/query', body));
    expect(queried.json.rows).toHaveLength(5);
    const explained = await callJson(client, 'explain', { topic: 'orders', ...body });
    expect(explained.json).toEqual(await rest(ALL, 'POST', '/v1/topics/orders/query', { ...body, explain: true }));
    expect(String(explained.json.sql)).toContain('GROUP BY');
    const counted = await callJson(client, 'count', { topic: 'orders', ...WINDOW });
    const countBody = { ...WINDOW, select: [{ fn: 'count', as: 'count' }] };
    expect(counted.json).toEqual(await rest(ALL, 'POST', '/v1/topics/orders/query', countBody));
    expect(Number((counted.json.rows as { count: number }[])[0]!.count)).toBeGreaterThan(MAX_ROWS);
    const sampled = await callJson(client, 'sample_events', { topic: 'orders', limit: 3, ...WINDOW });
    const sampleBody = { ...WINDOW, limit: 3, order: [{ field: 'timestamp_broker', dir: 'desc' }] };
    expect(sampled.json).toEqual(await rest(ALL, 'POST', '/v1/topics/orders/query', sampleBody));
    expect(sampled.json.rows).toHaveLength(3);
  });

  it('a row-policy principal counts and reads only its rows', async () => {
    const eu = await connect(EU);
    const all = await connect(ALL);
    const n = async (c: Client) =>
      Number(((await callJson(c, 'count', { topic: 'orders', ...WINDOW })).json.rows as { count: number }[])[0]!.count);
    const [euCount, allCount] = [await n(eu), await n(all)];
    expect(euCount).toBeGreaterThan(0);
    expect(euCount).toBeLessThan(allCount);
    const countBody = { ...WINDOW, select: [{ fn: 'count', as: 'count' }] };
    expect(
      Number(((await rest(EU, 'POST', '/v1/topics/orders/query', countBody)).rows as { count: number }[])[0]!.count),
    ).toBe(euCount);
    const read = await callJson(eu, 'query', { topic: 'orders', ...WINDOW, select: ['country'], limit: MAX_ROWS });
    const countries = (read.json.rows as { country: string }[]).map((r) => r.country);
    expect(countries).toHaveLength(MAX_ROWS);
    for (const c of countries) expect(['DE', 'FR']).toContain(c);
    // Asking for the other rows outright widens nothing.
    const other = await callJson(eu, 'count', {
      topic: 'orders',
      ...WINDOW,
      where: { not: { field: 'country', op: 'in', value: ['DE', 'FR'] } },
    });
    expect((other.json.rows as { count: number }[])[0]!.count).toBe(0);
  });

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
    const tool = await callJson(client, 'drop_table', {});
    expect(tool).toMatchObject({ isError: true, json: { error: { code: 'TG_BAD_REQUEST' } } });
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
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

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

  it('a GET (no server stream in stateless mode) is a 405 naming POST', async () => {
    const r = await fetch(url, { headers: { accept: 'text/event-stream', authorization: `Bearer ${ALL}` } });
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('POST');
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
