/**
 * A real HTTP cache in front: nginx with proxy_cache (scripts/http-cache.ts) before a gateway.
 * A second identical request for a settled window is served by the cache (no request reaches Trino), never for an
 * unsettled one; a caller with another row scope never gets the first caller's cached response.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { apiKeyHash } from '../../src/access/api-keys.js';
import { startServer } from '../../src/server.js';
import { startHttpCache, type HttpCache } from '../../scripts/http-cache.js';
import { CUT_SCHEMA, ensureCutTopic, windowReadPath } from '../cut-topic.js';
import { sql, testConfig, trinoUrl } from '../helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'topicgate-http-cache-test-'));
const USER = `http-cache-${process.pid}-${Date.now()}`;
const ALL = 'http-cache-all-000000000000000000000';
const EU = 'http-cache-eu-0000000000000000000000';
const SETTLED = '/v1/topics/orders/events?since=2026-11-01T00:00:00Z&until=2026-11-01T12:00:00Z&limit=200';

let gateway: { app: FastifyInstance; url: string };
let cache: HttpCache;
beforeAll(async () => {
  const file = join(dir, 'config.yaml');
  writeFileSync(
    file,
    stringify({
      topics: { orders: { expand: { country: { path: '$.customer.address.country', type: 'varchar' } } } },
      auth: {
        apiKeys: [
          { principal: 'all-1', sha256: apiKeyHash(ALL), roles: ['analyst'] },
          { principal: 'eu-1', sha256: apiKeyHash(EU), roles: ['analyst', 'analyst-eu'] },
        ],
      },
      access: [{ roles: ['analyst'], topics: ['orders'], actions: ['read'] }],
      // orders_expanded serves the same events: its own policy, on its own column (refused at start-up otherwise).
      rowPolicies: {
        default: 'allow',
        orders: [{ roles: ['analyst-eu'], filter: 'country=in.(DE,FR)' }],
        orders_expanded: [{ roles: ['analyst-eu'], filter: 'customer__address__country=in.(DE,FR)' }],
      },
    }),
  );
  gateway = await startServer(
    testConfig({
      TOPICGATE_CONFIG: file,
      TOPICGATE_CURSOR_SECRET: 'http-cache-cursor-secret-0123456789abcdef',
      TOPICGATE_PORT: '0',
      TOPICGATE_LOG_LEVEL: 'silent',
      TOPICGATE_TRINO_USER: USER,
    }),
  );
  cache = await startHttpCache(new URL(gateway.url).host);
});
afterAll(async () => {
  await cache?.stop();
  await gateway?.app.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Reads queries this test's gateway ran on `orders` (catalog lookups left out). */
async function ordersQueries(): Promise<number> {
  const [[n]] = (await sql(
    `SELECT count(*) FROM system.runtime.queries WHERE "user" = '${USER}' AND query LIKE '%orders%' ` +
      "AND query NOT LIKE '%information_schema%'",
  )) as [[number]];
  return Number(n);
}

async function get(path: string, key: string) {
  const res = await fetch(`${cache.url}${path}`, { headers: { 'x-api-key': key } });
  return {
    status: res.status,
    cache: res.headers.get('x-cache-status'),
    queryId: res.headers.get('x-trino-query-id'),
    cacheControl: res.headers.get('cache-control'),
    body: await res.text(),
  };
}

describe('nginx proxy_cache in front of the gateway', () => {
  it('serves the second identical request for a settled window from the cache', async () => {
    const first = await get(SETTLED, ALL);
    expect(first.status, first.body).toBe(200);
    expect(first.cache).toBe('MISS');
    expect(first.cacheControl).toMatch(/^private, max-age=\d+, immutable$/);
    const before = await ordersQueries();
    const second = await get(SETTLED, ALL);
    expect(second.cache).toBe('HIT');
    expect(second.body).toBe(first.body);
    expect(second.queryId).toBe(first.queryId);
    expect(await ordersQueries()).toBe(before);
  });

  it('never serves an unsettled window from the cache', async () => {
    const url = '/v1/topics/orders/events?since=2026-11-01T00:00:00Z&limit=5';
    const runs = [await get(url, ALL), await get(url, ALL), await get(url, ALL)];
    for (const r of runs) {
      expect(r.status, r.body).toBe(200);
      expect(r.cacheControl).toBe('private, no-store');
      expect(r.cache).toBe('MISS');
    }
    expect(new Set(runs.map((r) => r.queryId)).size).toBe(3);
  });

  it("never gives a caller with another row scope the first caller's cached response", async () => {
    await get(SETTLED, ALL);
    const all = await get(SETTLED, ALL);
    expect(all.cache).toBe('HIT');
    const eu = await get(SETTLED, EU);
    expect(eu.status, eu.body).toBe(200);
    expect(eu.cache).not.toBe('HIT');
    expect(eu.body).not.toBe(all.body);
    const countries = (
      JSON.parse(eu.body) as { rows: { value: { customer?: { address?: { country?: string } } } }[] }
    ).rows.map((r) => r.value.customer?.address?.country);
    expect(countries.length).toBeGreaterThan(0);
    expect(countries.every((c) => c === 'DE' || c === 'FR')).toBe(true);
    // Each caller now has its own copy, and gets its own.
    const [eu2, all2] = [await get(SETTLED, EU), await get(SETTLED, ALL)];
    expect([eu2.cache, all2.cache]).toEqual(['HIT', 'HIT']);
    expect(eu2.body).toBe(eu.body);
    expect(all2.body).toBe(all.body);
    // No credentials: the gateway's 401, not a cached copy.
    const anonymous = await fetch(`${cache.url}${SETTLED}`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('x-cache-status')).not.toBe('HIT');
  });

  it('never stores a settled window whose response was cut mid-stream', async () => {
    await ensureCutTopic(trinoUrl());
    const cut = await startServer(
      testConfig({ TOPICGATE_SCHEMAS: CUT_SCHEMA, TOPICGATE_PORT: '0', TOPICGATE_LOG_LEVEL: 'silent' }),
    );
    const front = await startHttpCache(new URL(cut.url).host).catch(async (err: unknown) => {
      await cut.app.close();
      throw err;
    });
    try {
      for (const attempt of ['first', 'second']) {
        const res = await fetch(`${front.url}${windowReadPath('ndjson')}`);
        // The headers went out before the failure: a settled window's, with its tag.
        expect(res.status).toBe(200);
        expect(res.headers.get('etag')).toMatch(/^"/);
        expect(res.headers.get('x-cache-status'), attempt).toBe('MISS');
        const body = await res.text().then(
          (text) => ({ text, failed: false }),
          () => ({ text: '', failed: true }),
        );
        // Cut: the transfer fails, or (nginx having read the error line) the body ends with it, never clean.
        expect(body.failed || !body.text.endsWith('\n\n'), attempt).toBe(true);
      }
    } finally {
      await front.stop();
      await cut.app.close();
    }
  });
});
