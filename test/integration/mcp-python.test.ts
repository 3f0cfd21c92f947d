/**
 * `/mcp` with the official Python MCP client (the `mcp` package: test/mcp/mcp_client.py) on a listening gateway:
 * it initializes, lists the six tools (each input schema checked as JSON Schema 2020-12 by Python's `jsonschema`),
 * and its `query` answer equals the REST API's for the same body and key; a failure is a tool error with its code.
 */
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseLosslessJson } from '../../src/core/lossless-json.js';
import { ALL, EU, WINDOW, mcpGateway, type McpGateway } from '../mcp/mcp-gateway.js';

const execFileAsync = promisify(execFile);

// Never skipped: without the package the suite fails, saying how to get it (scripts/test-deps.sh installs it).
if (spawnSync('python3', ['-c', 'import mcp'], { stdio: 'ignore' }).status !== 0) {
  throw new Error('the Python mcp package is missing: pip install -r test/mcp/requirements.txt');
}

interface PyRun {
  server: string;
  tools: string[];
  query: { isError: boolean; text: string };
  failed: { isError: boolean; text: string };
}

let gw: McpGateway;
beforeAll(async () => {
  gw = await mcpGateway();
});
afterAll(() => gw?.close());

/** The Python client's run, asynchronously: a synchronous child would hold the event loop the gateway shares. */
async function python(key: string, args: Record<string, unknown>): Promise<PyRun> {
  const { stdout } = await execFileAsync(
    'python3',
    ['test/mcp/mcp_client.py', gw.url.href, key, JSON.stringify(args)],
    {
      encoding: 'utf8',
    },
  );
  return JSON.parse(stdout) as PyRun;
}

describe('the Python mcp client', () => {
  const body = {
    ...WINDOW,
    select: ['key', { fn: 'count', as: 'n' }, { fn: 'max', field: 'timestamp_broker', as: 'last' }],
    groupBy: ['key'],
    order: [
      { field: 'n', dir: 'desc' },
      { field: 'key', dir: 'asc' },
    ],
    limit: 4,
  };

  it('initializes, lists the tools, and its query answer is the REST answer for the same body', async () => {
    const run = await python(ALL, { topic: 'orders', ...body });
    expect(run.server).toBe('topicgate');
    expect(run.tools).toEqual(['count', 'describe_topic', 'explain', 'list_topics', 'query', 'sample_events']);
    expect(run.query.isError, run.query.text).toBe(false);
    const answer = parseLosslessJson(run.query.text) as { rows: unknown[] };
    expect(answer).toEqual(await gw.rest(ALL, 'POST', '/v1/topics/orders/query', body));
    expect(answer.rows).toHaveLength(4);
    expect(run.failed.isError).toBe(true);
    expect(JSON.parse(run.failed.text)).toMatchObject({ error: { code: 'TG_TOPIC_NOT_FOUND', status: 404 } });
  });

  it('a row-policy key gets its own rows, as over REST', async () => {
    const count = { ...WINDOW, select: [{ fn: 'count', as: 'n' }] };
    const run = await python(EU, { topic: 'orders', ...count });
    expect(parseLosslessJson(run.query.text)).toEqual(await gw.rest(EU, 'POST', '/v1/topics/orders/query', count));
    const all = await gw.rest(ALL, 'POST', '/v1/topics/orders/query', count);
    const n = (b: unknown) => Number((b as { rows: { n: number }[] }).rows[0]!.n);
    expect(n(parseLosslessJson(run.query.text))).toBeLessThan(n(all));
  });
});
