/**
 * `/mcp` against the real Trino with the official TypeScript SDK's client (Client over the streamable HTTP
 * transport) on a listening gateway: the six tools listed, each input schema compiled as JSON Schema, and every
 * tool's answer equal to the REST API's for the same request and key; a row-policy principal sees only its rows.
 */
import AjvCompiler from '@fastify/ajv-compiler';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL, EU, MAX_ROWS, WINDOW, callJson, mcpGateway, tenantToken, type McpGateway } from '../mcp/mcp-gateway.js';

let gw: McpGateway;
beforeAll(async () => {
  gw = await mcpGateway();
});
afterAll(() => gw?.close());
const connect = (key: string): Promise<Client> => gw.connect(key);
const rest = (...a: Parameters<McpGateway['rest']>) => gw.rest(...a);

describe('the tools, through the TypeScript SDK client', () => {
  it('initializes and lists the six tools, each with an input schema that compiles as JSON Schema', async () => {
    const client = await connect(ALL);
    expect(client.getServerVersion()?.name).toBe('topicgate');
    expect(client.getInstructions()).toContain('Start with list_topics');
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
    expect((listed.json.topics as { name: string }[]).map((t) => t.name).sort()).toEqual([
      'clicks',
      'orders',
      'payments_avro',
      's3_events',
    ]);
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
    // Without a window: the last 7 days, not a sort of the whole topic (the demo's events are older than that).
    const recent = await callJson(client, 'sample_events', { topic: 'orders' });
    const newest = { order: [{ field: 'timestamp_broker', dir: 'desc' }], limit: 10 };
    expect(recent.json).toEqual(await rest(ALL, 'POST', '/v1/topics/orders/query', { ...newest, since: '-7d' }));
    const whole = await rest(ALL, 'POST', '/v1/topics/orders/query', newest);
    expect((recent.json.rows as unknown[]).length).toBeLessThan((whole.rows as unknown[]).length);
  });

  it('keeps every digit: an integer beyond 2^53 in a payload is in the answer as the JSON encoder wrote it', async () => {
    const client = await connect(ALL);
    const args = { ...WINDOW, where: { field: 'value', op: 'like', value: '*18014398509481985*' }, limit: 1 };
    const a = (await client.callTool({ name: 'query', arguments: { topic: 's3_events', ...args } })) as {
      content: { text: string }[];
    };
    const text = a.content[0]!.text;
    expect(text).toContain('"size":18014398509481985');
    const r = await gw.app.inject({
      method: 'POST',
      url: '/v1/topics/s3_events/query',
      headers: { authorization: `Bearer ${ALL}` },
      payload: args,
    });
    expect(text).toBe(r.body);
  });

  it('an Avro topic: its decoded payloads described, its decimal fields queried by path, the REST text exactly', async () => {
    const client = await connect(ALL);
    const described = await callJson(client, 'describe_topic', { topic: 'payments_avro' });
    expect(described.json).toEqual({ ...(await rest(ALL, 'GET', '/v1/topics/payments_avro')), settle: '30s' });
    expect(described.json.payloads).toBeDefined();
    const body = {
      ...WINDOW,
      select: ['value.payment_id', 'value.amount'],
      where: { field: 'value.amount', op: 'lt', value: 0 },
      limit: 3,
    };
    const a = (await client.callTool({ name: 'query', arguments: { topic: 'payments_avro', ...body } })) as {
      content: { text: string }[];
    };
    const r = await gw.app.inject({
      method: 'POST',
      url: '/v1/topics/payments_avro/query',
      headers: { authorization: `Bearer ${ALL}` },
      payload: body,
    });
    expect(r.statusCode, r.body).toBe(200);
    expect(a.content[0]!.text).toBe(r.body);
    // A long beyond 2^53 and a decimal with its scale, as the JSON encoder writes them.
    expect(a.content[0]!.text).toContain('{"value.payment_id":9007199254740993,"value.amount":-0.99}');
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

  it('a JWT is a credential as over REST: its claims scope its row policy', async () => {
    const keys = ['order-1000001', 'order-1000002'];
    const token = await tenantToken(keys);
    const client = await connect(token);
    const countBody = { ...WINDOW, select: [{ fn: 'count', as: 'count' }] };
    const counted = await callJson(client, 'count', { topic: 'orders', ...WINDOW });
    expect(counted.json).toEqual(await rest(token, 'POST', '/v1/topics/orders/query', countBody));
    const n = Number((counted.json.rows as { count: number }[])[0]!.count);
    expect(n).toBeGreaterThan(0);
    const read = await callJson(client, 'query', { topic: 'orders', ...WINDOW, select: ['key'], limit: MAX_ROWS });
    for (const r of read.json.rows as { key: string }[]) expect(keys).toContain(r.key);
  });
});
