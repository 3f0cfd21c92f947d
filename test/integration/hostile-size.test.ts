/**
 * Hostile size: the known ways a request could make the gateway write SQL Trino cannot parse or analyse (a
 * statement too deep, too long, with too many terms) are each a 4xx first, under the default limits: nesting
 * (limits.maxDepth), conditions (maxFilters), list values (maxInValues), any-lists that become OR chains, and the
 * URL itself over a real socket (the HTTP parser's own limit). Each answer within a second, the gateway serving
 * afterwards.
 */
import type { FastifyInstance, InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_SCHEMA } from '../../scripts/demo-data.js';
import { testGateway } from '../helpers.js';

const WINDOW = 'since=2026-11-01T00:00:00Z&until=2026-11-01T01:00:00Z';
const EVENTS = `/v1/topics/orders/events?${WINDOW}&limit=1`;

let app: FastifyInstance;
let base: string;
beforeAll(async () => {
  const g = await testGateway(DEMO_SCHEMA);
  [app, base] = [g.app, g.url];
  expect((await app.inject(EVENTS)).statusCode).toBe(200);
});
afterAll(async () => {
  await app?.close();
});

const list = (n: number, item: (i: number) => string, sep = ',') =>
  Array.from({ length: n }, (_, i) => item(i)).join(sep);
const leaf = (i: number) => `{"field":"key","op":"neq","value":"k${i}"}`;
const post = (payload: string): InjectOptions => ({
  method: 'POST',
  url: '/v1/topics/orders/query',
  payload,
  headers: { 'content-type': 'application/json' },
});

async function refusedAs(req: InjectOptions | string, code: string, limit?: string): Promise<void> {
  const started = performance.now();
  const res = await app.inject(req);
  expect(performance.now() - started).toBeLessThan(1000);
  expect(res.statusCode, res.body.slice(0, 300)).toBeGreaterThanOrEqual(400);
  expect(res.statusCode, res.body.slice(0, 300)).toBeLessThan(500);
  expect(res.json().error.code, res.body.slice(0, 300)).toBe(code);
  if (limit) expect(res.json().error.details.limit).toBe(limit);
}

describe('what Trino could not take is a 4xx first', () => {
  it.each([
    // Trino overflows its parser's stack near 800 nested NOTs ("statement is too large", a SYNTAX_ERROR).
    ['a 1000-deep not. chain', `${EVENTS}&key=${'not.'.repeat(1000)}eq.a`, 'maxDepth'],
    // Trino overflows its analyser's stack near 10,000 ANDed or ORed terms (STACK_OVERFLOW).
    ['10,000 ANDed conditions (GET)', `${EVENTS}&${list(10_000, (i) => `key=neq.k${i}`, '&')}`, 'maxFilters'],
    ['10,000 ORed conditions in a group', `${EVENTS}&or=(${list(10_000, (i) => `key.eq.k${i}`)})`, 'maxFilters'],
    [
      'an any-list of 10,000 becoming an OR chain',
      `${EVENTS}&key=gt(any).{${list(10_000, (i) => `k${i}`)}}`,
      'maxFilters',
    ],
    ['an in list of 10,000 values', `${EVENTS}&key=in.(${list(10_000, (i) => `k${i}`)})`, 'maxInValues'],
  ])('%s', async (_name, url, limit) => {
    await refusedAs(url, 'TG_TOO_EXPENSIVE', limit);
  });

  it('10,000 conditions in a POST where (100 groups of 100)', async () => {
    const groups = list(100, (g) => `{"and":[${list(100, (i) => leaf(g * 100 + i))}]}`);
    await refusedAs(
      post(`{"limit":1,"since":"2026-11-01T00:00:00Z","where":{"and":[${groups}]}}`),
      'TG_TOO_EXPENSIVE',
      'maxFilters',
    );
  });

  it('an in list of 100,000 values in a POST body (the most one list may hold)', async () => {
    const values = list(100_000, (i) => `"k${i}"`);
    await refusedAs(
      post(`{"limit":1,"where":{"field":"key","op":"in","value":[${values}]}}`),
      'TG_TOO_EXPENSIVE',
      'maxInValues',
    );
  });

  it('a POST body over the body limit', async () => {
    await refusedAs(post(`{"where":{"and":[${list(30_000, leaf)}]}}`), 'TG_PAYLOAD_TOO_LARGE');
  });
});

describe('a long URL over a real socket', () => {
  it.each([20_000, 100_000, 1_000_000])('%i characters of query string: a 4xx', async (n) => {
    const started = performance.now();
    const res = await fetch(`${base}/v1/topics/orders/events?key=in.(${'a,'.repeat(n / 2)}b)`);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(((await res.json()) as { error: { code: string } }).error.code).toMatch(/^TG_[A-Z_]+$/);
  });

  it('afterwards the gateway still serves', async () => {
    expect((await fetch(`${base}${EVENTS}`)).status).toBe(200);
  });
});
