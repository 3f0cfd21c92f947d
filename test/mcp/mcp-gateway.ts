/**
 * A gateway for the MCP tests (test/integration/mcp*.test.ts): the real Trino's demo topics, listening on a
 * loopback port, with three API keys (every row, a row policy to DE and FR orders, no grant at all),
 * `limits.mcpMaxRows` small enough to cut a day of orders; the official TypeScript SDK's client on it, and the REST
 * API's answer to the same request for comparison.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { Writable } from 'node:stream';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FastifyInstance } from 'fastify';
import { expect, inject } from 'vitest';
import { stringify } from 'yaml';
import { registerDemoSchemas } from '../../scripts/demo-avro.js';
import { apiKeyHash } from '../../src/access/api-keys.js';
import { parseLosslessJson } from '../../src/core/lossless-json.js';
import { buildApp } from '../../src/server/app.js';
import { testConfig } from '../helpers.js';

export const ALL = 'mcp-all-0000000000000000000000000000';
export const EU = 'mcp-eu-00000000000000000000000000000';
export const NONE = 'mcp-none-000000000000000000000000000';
export const MAX_ROWS = 7;
const SECRET = 'mcp-test-jwt-secret-of-32-bytes-or-more';
export const WINDOW = { since: '2026-11-01T00:00:00Z', until: '2026-11-02T00:00:00Z' };

export interface McpGateway {
  app: FastifyInstance;
  /** The `/mcp` URL. */
  url: URL;
  /** A connected SDK client with this key as its bearer token. */
  connect(key: string): Promise<Client>;
  /** The REST API's 200 body for the same key, read as the tool answers are. */
  rest(key: string, method: 'GET' | 'POST', path: string, body?: unknown): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

/** How a test's gateway differs: more limits beside `mcpMaxRows`, where its log goes (none), more settings. */
export interface GatewayOptions {
  limits?: Record<string, number>;
  log?: Writable;
  env?: Record<string, string>;
}

export async function mcpGateway(o: GatewayOptions = {}): Promise<McpGateway> {
  // The Avro demo topic's schemas, as its frames name them (registered again: the same ids).
  await registerDemoSchemas(inject('registryUrl'));
  const dir = mkdtempSync(join(tmpdir(), 'topicgate-mcp-'));
  const file = join(dir, 'mcp.yaml');
  writeFileSync(join(dir, 'secret'), SECRET);
  writeFileSync(
    file,
    stringify({
      topics: {
        orders: { expand: { country: { path: '$.customer.address.country', type: 'varchar' } } },
        payments_avro: { key: { format: 'avro' }, value: { format: 'avro' } },
      },
      schemaRegistry: { url: inject('registryUrl') },
      auth: {
        apiKeys: [
          { principal: 'all-1', sha256: apiKeyHash(ALL), roles: ['analyst'] },
          { principal: 'eu-1', sha256: apiKeyHash(EU), roles: ['analyst', 'analyst-eu'] },
          { principal: 'none-1', sha256: apiKeyHash(NONE), roles: ['nobody'] },
        ],
        jwt: { secretFile: join(dir, 'secret'), issuer: 'https://idp.test/', audience: 'topicgate' },
      },
      access: [
        {
          roles: ['analyst', 'tenant'],
          topics: ['orders', 'clicks', 's3_events', 'payments_avro'],
          actions: ['read', 'explain', 'infer'],
        },
      ],
      rowPolicies: {
        default: 'allow',
        orders: [
          { roles: ['analyst-eu'], filter: 'country=in.(DE,FR)' },
          { roles: ['tenant'], filter: 'key=in.({claims.order_keys})' },
        ],
      },
      limits: { mcpMaxRows: MAX_ROWS, ...o.limits },
    }),
  );
  const logger = o.log ? { level: 'info', stream: o.log } : false;
  const app = await buildApp(testConfig({ TOPICGATE_CONFIG: file, ...o.env }), { logger });
  const url = new URL('/mcp', await app.listen({ host: '127.0.0.1', port: 0 }));
  const clients: Client[] = [];
  return {
    app,
    url,
    async connect(key) {
      const client = new Client({ name: 'topicgate-test', version: '1.0.0' });
      const headers = { Authorization: `Bearer ${key}` };
      await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
      clients.push(client);
      return client;
    },
    async rest(key, method, path, body) {
      const headers = { authorization: `Bearer ${key}` };
      const r = await app.inject({ method, url: path, headers, payload: body as object });
      expect(r.statusCode, r.body).toBe(200);
      return parseLosslessJson(r.body) as Record<string, unknown>;
    },
    async close() {
      await Promise.all(clients.map((c) => c.close()));
      await app.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

interface Answer {
  isError?: boolean;
  content: { type: string; text: string }[];
}

/** Calls a tool: its answer's one text block read as JSON (lossless, as the REST bodies are), and whether it failed. */
export async function callJson(client: Client, name: string, args: Record<string, unknown>) {
  const a = (await client.callTool({ name, arguments: args })) as Answer;
  expect(a.content).toHaveLength(1);
  return { isError: a.isError === true, json: parseLosslessJson(a.content[0]!.text) as Record<string, unknown> };
}

/** A bearer token of the gateway's identity provider for a `tenant`, whose row policy reads its `order_keys` claim. */
export function tenantToken(orderKeys: string[]): Promise<string> {
  return new SignJWT({ sub: 'tenant-1', roles: ['tenant'], order_keys: orderKeys })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuer('https://idp.test/')
    .setAudience('topicgate')
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(SECRET));
}
