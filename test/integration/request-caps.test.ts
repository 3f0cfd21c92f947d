/**
 * Per-request caps through the real gateway and Trino: a request at a cap is answered by Trino, one
 * past it is a 422 TG_TOO_EXPENSIVE naming the cap (`limits.<name>` and its value) before any SQL is sent; the
 * same for a cursor's filter. Caps are set low in the config file so the requests stay small.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { buildApp } from '../../src/server/app.js';
import { testConfig } from '../helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'topicgate-caps-'));
let app: FastifyInstance;
beforeAll(async () => {
  const file = join(dir, 'caps.yaml');
  const caps = { maxSelectItems: 2, maxOrderItems: 1, maxDedupeColumns: 1, maxFilters: 3, maxInValues: 4 };
  writeFileSync(file, stringify({ limits: { ...caps, maxJsonPaths: 1, maxBuckets: 24, maxGroupByItems: 1 } }));
  app = await buildApp(testConfig({ TOPICGATE_CONFIG: file }), { logger: false });
});
afterAll(async () => {
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

const W = { since: '2026-11-01T00:00:00Z', until: '2026-11-02T00:00:00Z' };
const QW = 'since=2026-11-01T00:00:00Z&until=2026-11-02T00:00:00Z';
const get = (q: string) => app.inject(`/v1/topics/orders/events?${QW}&limit=2&${q}`);
const post = (body: object) =>
  app.inject({ method: 'POST', url: '/v1/topics/orders/query', payload: { ...W, limit: 2, ...body } });

describe('per-request caps over the real Trino', () => {
  it.each([
    ['select', () => get('select=key,value'), () => get('select=key,value,timestamp_broker'), 'maxSelectItems', 2],
    ['order', () => get('order=key'), () => get('order=key,value'), 'maxOrderItems', 1],
    [
      'dedupe',
      () => post({ dedupe: { by: ['key'] } }),
      () => post({ dedupe: { by: ['key', 'value'] } }),
      'maxDedupeColumns',
      1,
    ],
    [
      'filters',
      () => get('key=neq.a&key=neq.b&key=neq.c'),
      () => get('key=neq.a&key=neq.b&or=(key.is.null,key.neq.c)'),
      'maxFilters',
      3,
    ],
    [
      'in values in total',
      () => get('key=in.(a,b)&value=in.(c,d)'),
      () => get('key=in.(a,b)&value=in.(c,d,e)'),
      'maxInValues',
      4,
    ],
    [
      'JSON paths',
      () => get('select=key,value->>status'),
      () => get('select=value->>amount,value->>status'),
      'maxJsonPaths',
      1,
    ],
    [
      'time buckets',
      () => post({ select: [{ fn: 'count', as: 'n' }], groupBy: [{ bucket: '1h' }] }),
      () => post({ select: [{ fn: 'count', as: 'n' }], groupBy: [{ bucket: '30m' }] }),
      'maxBuckets',
      24,
    ],
  ] as const)('%s: at the cap Trino answers; past it a 422 naming the cap', async (_n, ok, over, cap, max) => {
    const good = await ok();
    expect(good.statusCode, good.body).toBe(200);
    const bad = await over();
    expect(bad.statusCode, bad.body).toBe(422);
    const { error } = bad.json() as {
      error: { code: string; message: string; details: { limit: string; max: number } };
    };
    expect(error.code).toBe('TG_TOO_EXPENSIVE');
    expect(error.details).toMatchObject({ limit: cap, max });
    expect(error.message).toContain(`limits.${cap} = ${max}`);
  });

  it("a cursor's filter is held to the same caps when it is created", async () => {
    const put = (value: string[]) =>
      app.inject({
        method: 'PUT',
        url: `/v1/cursors/caps-${value.length}`,
        payload: { topic: 'orders', filter: { field: 'key', op: 'in', value } },
      });
    expect((await put(['a', 'b', 'c', 'd'])).statusCode).toBe(201);
    const over = await put(['a', 'b', 'c', 'd', 'e']);
    expect([over.statusCode, over.json().error.details.limit]).toEqual([422, 'maxInValues']);
  });
});
