/**
 * Settled windows cached (API.md "Caching settled windows") against the real Trino: a settled
 * window's 200 has a strong ETag and `private, max-age, immutable`; `If-None-Match` naming it is a 304 that runs no
 * Trino query (counted in Trino's own query list, by this test's Trino user); the tag is the same on another
 * instance (a restart) for the same inputs and another when any input changes; unsettled windows are `no-store`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { apiKeyHash } from '../../src/access/api-keys.js';
import { TopicCatalog } from '../../src/read/topic-catalog.js';
import { buildApp, createServices, type Services } from '../../src/server/app.js';
import { sql, testConfig } from '../helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'topicgate-cache-'));
const USER = `read-cache-${process.pid}-${Date.now()}`;
const ALL = 'cache-key-all-0000000000000000000000';
const EU = 'cache-key-eu-00000000000000000000000';
const SETTLED = '/v1/topics/orders/events?since=2026-11-01T00:00:00Z&until=2026-11-01T06:00:00Z&limit=50';

function configFile(name: string, orders: Record<string, unknown> = {}): string {
  const file = join(dir, name);
  writeFileSync(
    file,
    stringify({
      topics: { orders: { expand: { country: { path: '$.customer.address.country', type: 'varchar' } }, ...orders } },
      auth: {
        apiKeys: [
          { principal: 'all-1', sha256: apiKeyHash(ALL), roles: ['analyst'] },
          { principal: 'eu-1', sha256: apiKeyHash(EU), roles: ['analyst', 'analyst-eu'] },
        ],
      },
      access: [{ roles: ['analyst'], topics: ['orders'], actions: ['read'] }],
      rowPolicies: { default: 'allow', orders: [{ roles: ['analyst-eu'], filter: 'country=in.(DE,FR)' }] },
    }),
  );
  return file;
}

const opened: { app: FastifyInstance; services: Services }[] = [];
/** An instance with its own services; its catalog is kept an hour, so a catalog lookup never blurs the count. */
async function instance(env: Record<string, string> = {}): Promise<FastifyInstance> {
  const config = testConfig({
    TOPICGATE_CONFIG: configFile(`c-${opened.length}.yaml`),
    TOPICGATE_TRINO_USER: USER,
    TOPICGATE_CACHE_MAX_AGE: '600',
    ...env,
  });
  const services = await createServices(config);
  services.catalog = new TopicCatalog(services.trino, config, 3_600_000);
  const app = await buildApp(config, { logger: false, services });
  opened.push({ app, services });
  return app;
}

let app: FastifyInstance;
beforeAll(async () => {
  app = await instance();
});
afterAll(async () => {
  for (const { app, services } of opened) {
    await app.close();
    await services.held.close();
    await services.store.close();
  }
  rmSync(dir, { recursive: true, force: true });
});

/** Queries this test's gateways ran, catalog lookups included. */
async function queries(): Promise<number> {
  const [[n]] = (await sql(`SELECT count(*) FROM system.runtime.queries WHERE "user" = '${USER}'`)) as [[number]];
  return Number(n);
}

/** The count once it holds still for a second. */
async function settledCount(): Promise<number> {
  let last = await queries();
  for (;;) {
    await new Promise((r) => setTimeout(r, 1000));
    const now = await queries();
    if (now === last) return now;
    last = now;
  }
}

const read = (a: FastifyInstance, url: string, headers: Record<string, string> = {}) =>
  a.inject({ url, headers: { 'x-api-key': ALL, ...headers } });

describe('a settled window', () => {
  it('has a strong ETag and private, immutable freshness; If-None-Match gets a 304 with no Trino query', async () => {
    const first = await read(app, SETTLED);
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json().complete).toBe(true);
    const etag = String(first.headers.etag);
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
    expect(first.headers['cache-control']).toBe('private, max-age=600, immutable');
    expect(String(first.headers.vary)).toMatch(/Authorization/);

    // The first read may still start a query after its response (a page's next slice, read on for the next
    // page): count from when the count has settled.
    const before = await settledCount();
    for (const inm of [etag, `"other", ${etag}`, `W/${etag}`]) {
      const again = await read(app, SETTLED, { 'if-none-match': inm });
      expect(again.statusCode).toBe(304);
      expect(again.body).toBe('');
      expect(again.headers.etag).toBe(etag);
      expect(again.headers['cache-control']).toBe('private, max-age=600, immutable');
      expect(again.headers['x-trino-query-id']).toBeUndefined();
    }
    expect(await queries()).toBe(before);
    // A tag that is not this window's is answered in full (a page may read in more than one time slice).
    const other = await read(app, SETTLED, { 'if-none-match': '"not-this-one"' });
    expect(other.statusCode).toBe(200);
    expect(other.body).toBe(first.body);
    expect(await queries()).toBeGreaterThan(before);
    // Another caller with another row scope sending this caller's tag: its own rows, in full (the tag this
    // instance remembers for the URL is this caller's only).
    const eu = await read(app, SETTLED, { 'x-api-key': EU, 'if-none-match': etag });
    expect(eu.statusCode).toBe(200);
    expect(eu.headers.etag).not.toBe(etag);
  });

  it('has the same ETag and bytes on another instance (a restart), and its pages are cached too', async () => {
    const other = await instance();
    const a = await read(app, SETTLED);
    const b = await read(other, SETTLED);
    expect(b.headers.etag).toBe(a.headers.etag);
    expect(b.body).toBe(a.body);
    // The next page: a stable link, a tag of its own, the same from either instance.
    const next = a.json().next as string;
    expect(next).toBe(b.json().next);
    const p2 = await read(app, next);
    const p2b = await read(other, next);
    expect(p2.statusCode, p2.body).toBe(200);
    expect(p2.headers.etag).toMatch(/^"/);
    expect(p2.headers.etag).not.toBe(a.headers.etag);
    expect(p2b.headers.etag).toBe(p2.headers.etag);
    expect(p2b.body).toBe(p2.body);
    expect((await read(app, next, { 'if-none-match': String(p2.headers.etag) })).statusCode).toBe(304);
  });

  it('has another ETag when anything that changes the bytes changes', async () => {
    const base = String((await read(app, SETTLED)).headers.etag);
    const otherSettle = await instance({ TOPICGATE_CONFIG: configFile('settle.yaml', { settle: '1m' }) });
    const otherSecret = await instance({ TOPICGATE_CURSOR_SECRET: 'another-cursor-secret-for-the-cache-test' });
    const tags = await Promise.all([
      read(app, SETTLED.replace('limit=50', 'limit=49')),
      read(app, `${SETTLED}&select=key,timestamp_broker`),
      read(app, SETTLED, { 'x-api-key': EU }),
      read(app, `${SETTLED}&format=csv`),
      read(app, SETTLED, { accept: 'application/x-ndjson' }),
      read(app, SETTLED, { 'accept-encoding': 'gzip' }),
      read(otherSettle, SETTLED),
      read(otherSecret, SETTLED),
    ]);
    const etags = tags.map((r) => String(r.headers.etag));
    for (const [i, r] of tags.entries()) expect(r.statusCode, `${i}: ${r.body}`).toBe(200);
    expect(etags.every((t) => t.startsWith('"'))).toBe(true);
    expect(new Set([base, ...etags]).size).toBe(etags.length + 1);
  });

  it('under a content coding: the coding negotiated is in the tag, and its 304 runs no Trino query', async () => {
    const [brGzip, gzipBr, gzip] = await Promise.all([
      read(app, SETTLED, { 'accept-encoding': 'br, gzip' }),
      read(app, SETTLED, { 'accept-encoding': 'gzip, br' }),
      read(app, SETTLED, { 'accept-encoding': 'gzip' }),
    ]);
    expect([brGzip, gzipBr, gzip].map((r) => [r.statusCode, r.headers['content-encoding']])).toEqual([
      [200, 'br'],
      [200, 'br'],
      [200, 'gzip'],
    ]);
    // The same bytes under both spellings, other bytes in gzip.
    expect(gzipBr.headers.etag).toBe(brGzip.headers.etag);
    expect(gzip.headers.etag).not.toBe(brGzip.headers.etag);
    // Parquet's column codec changes its bytes, and so its tag.
    const parquet = `${SETTLED}&format=parquet`;
    const [zstd, snappy] = await Promise.all([read(app, parquet), read(app, `${parquet}&compression=snappy`)]);
    expect([zstd.statusCode, snappy.statusCode]).toEqual([200, 200]);
    expect(snappy.headers.etag).toMatch(/^"/);
    expect(snappy.headers.etag).not.toBe(zstd.headers.etag);

    const before = await settledCount();
    const etag = String(brGzip.headers.etag);
    const again = await read(app, SETTLED, { 'accept-encoding': 'gzip, br', 'if-none-match': etag });
    expect([again.statusCode, again.body, again.headers.etag]).toEqual([304, '', etag]);
    // The 304 varies on what its 200 varies on: one header, the content coding included.
    expect(String(again.headers.vary).split(', ').sort()).toEqual(
      ['Accept', 'Accept-Encoding', 'Authorization', 'X-API-Key'].sort(),
    );
    const codec = await read(app, `${parquet}&compression=snappy`, { 'if-none-match': String(snappy.headers.etag) });
    expect(codec.statusCode).toBe(304);
    expect(await queries()).toBe(before);
  });

  it('an error carries no ETag', async () => {
    const res = await read(app, `${SETTLED}&nosuchcolumn=eq.1`);
    expect(res.statusCode).toBe(400);
    expect(res.headers.etag).toBeUndefined();
    expect(String(res.headers['cache-control'] ?? '')).not.toMatch(/immutable/);
  });
});

describe('any other read is private, no-store', () => {
  const inAnHour = new Date(Date.now() + 3_600_000).toISOString();
  it.each([
    ['no until', '/v1/topics/orders/events?since=2026-11-01T00:00:00Z&limit=5'],
    ['a relative until', '/v1/topics/orders/events?until=-1h&limit=5'],
    ['until=now', '/v1/topics/orders/events?since=-7d&until=now&limit=5'],
    [
      'an until within the settle time',
      `/v1/topics/orders/events?since=2026-11-01T00:00:00Z&until=${inAnHour}&limit=5`,
    ],
  ])('%s', async (_name, url) => {
    const res = await read(app, url, { 'if-none-match': '*' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['cache-control']).toBe('private, no-store');
    expect(res.headers.etag).toBeUndefined();
  });

  it('a POST query of a settled window', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/v1/topics/orders/query',
      headers: { 'x-api-key': ALL },
      payload: { since: '2026-11-01T00:00:00Z', until: '2026-11-01T06:00:00Z', limit: 5 },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['cache-control']).toBe('private, no-store');
    expect(res.headers.etag).toBeUndefined();
  });
});
