/**
 * A JSON body's values are checked with the types they were sent with (src/server/validators.ts): no null, string
 * or one-element list becomes the boolean, number or list the schema wants. Text parts (the query string) are still
 * coerced. No Trino is reached: the app's Trino URL is unreachable, so a request that passed validation answers 503.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/server/app.js';
import { loadConfig } from '../../src/server/load-config.js';

let app: FastifyInstance;
beforeAll(async () => {
  const config = loadConfig({ TOPICGATE_TRINO_URL: 'http://127.0.0.1:1', TOPICGATE_STATE_URL: 'sqlite::memory:' });
  app = await buildApp(config, { logger: false });
});
afterAll(() => app.close());

const WINDOW = { since: '2026-11-01T00:00:00Z', until: '2026-11-02T00:00:00Z' };
const post = (url: string, payload: object) => app.inject({ method: 'POST', url, payload });

describe('JSON bodies keep their types', () => {
  it.each([
    ['decode', { decode: null }, 'must be boolean'],
    ['limit', { limit: '5' }, 'must be integer'],
    ['limit', { limit: [5] }, 'must be integer'],
    ['select', { select: 'key' }, 'must be array'],
    ['limit', { limit: true }, 'must be integer'],
  ])('/query: %s as %j is a 400 naming it', async (field, body, message) => {
    const res = await post('/v1/topics/orders/query', { ...WINDOW, ...body });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().error).toMatchObject({ code: 'TG_BAD_REQUEST', details: { in: 'body', field } });
    expect(res.json().error.message).toContain(message);
  });

  it.each([
    ['presign', { presign: null }],
    ['presign', { presign: 'true' }],
    ['streams', { streams: '2' }],
  ])('/sessions: %s as %j is a 400 naming it', async (field, body) => {
    const res = await post('/v1/topics/orders/sessions', { ...WINDOW, ...body });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().error).toMatchObject({ code: 'TG_BAD_REQUEST', details: { in: 'body', field } });
  });

  it('a body of the right types passes validation (and reaches the unreachable Trino)', async () => {
    const res = await post('/v1/topics/orders/query', { ...WINDOW, limit: 5, decode: false, select: ['key'] });
    expect(res.statusCode, res.body).toBe(503);
    expect(res.json().error.code).toBe('TG_TRINO_UNAVAILABLE');
  });

  it('the query string is still coerced: limit=5 and select=key are a number and a list', async () => {
    const res = await app.inject(`/v1/topics/orders/events?since=${WINDOW.since}&limit=5&select=key`);
    expect(res.statusCode, res.body).toBe(503);
  });
});
