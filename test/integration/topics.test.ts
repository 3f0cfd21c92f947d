import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { testApp } from '../helpers.js';

let app: FastifyInstance;
beforeAll(async () => {
  app = await testApp();
});
afterAll(() => app.close());

describe('topics, against the live catalog', () => {
  it('lists the demo topics with their kinds', async () => {
    const res = await app.inject('/v1/topics');
    expect(res.statusCode).toBe(200);
    const topics = res.json().topics as { name: string; kind: string; schema: string }[];
    expect(topics.map((t) => [t.name, t.kind]).sort()).toEqual([
      ['clicks', 'topic'],
      ['orders', 'topic'],
      ['orders_expanded', 'table'],
      ['payments_avro', 'topic'],
      ['s3_events', 'topic'],
    ]);
    expect(new Set(topics.map((t) => t.schema))).toEqual(new Set(['demo|kafka_topics']));
  });

  it('describes a topic with the real Trino column types', async () => {
    const res = await app.inject('/v1/topics/orders');
    expect(res.statusCode).toBe(200);
    expect(res.json().columns).toEqual([
      { name: 'key', type: 'varbinary', origin: 'table' },
      { name: 'value', type: 'varbinary', origin: 'table' },
      { name: 'timestamp_broker', type: 'timestamp(3)', origin: 'table' },
      { name: 'timestamp_producer', type: 'timestamp(3)', origin: 'table' },
      { name: 'headers', type: 'array(row(key varchar, value varbinary))', origin: 'table' },
    ]);
  });

  it('describes a native expansion table as kind table', async () => {
    const res = await app.inject('/v1/topics/orders_expanded');
    expect(res.json().kind).toBe('table');
    expect(res.json().columns.find((c: { name: string }) => c.name === 'amount').type).toBe('decimal(12,2)');
  });

  it.each(['nope', 'orders"', 'orders x', 'orders$partitions', '"orders"', 'ORDERS', 'orders;drop'])(
    'unknown or hostile topic %j -> 404 TG_TOPIC_NOT_FOUND',
    async (name) => {
      const res = await app.inject(`/v1/topics/${encodeURIComponent(name)}`);
      expect(res.statusCode).toBe(404);
      expect(res.json().error).toMatchObject({ code: 'TG_TOPIC_NOT_FOUND', status: 404 });
      expect(res.json().error.message).toContain(JSON.stringify(name));
    },
  );

  it('unknown route -> 404 in the one error shape', async () => {
    const res = await app.inject('/v2/nothing');
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: { code: 'TG_NOT_FOUND', message: 'no route GET /v2/nothing', status: 404 } });
  });

  it('healthz and readyz', async () => {
    expect((await app.inject('/healthz')).json()).toEqual({ status: 'ok' });
    expect((await app.inject('/readyz')).json()).toEqual({ status: 'ready', trino: '476', state: 'ok' });
  });
});

describe('metrics', () => {
  it('serves Prometheus text with request durations by route and rows by format', async () => {
    await app.inject('/v1/topics/orders/events?limit=3&format=ndjson&since=2026-11-01T00:00:00Z');
    const res = await app.inject('/metrics');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('text/plain');
    expect(res.body).toMatch(
      /topicgate_http_request_duration_seconds_count\{method="GET",route="\/v1\/topics\/:topic\/events",status="200"\} 1/,
    );
    expect(res.body).toMatch(/topicgate_rows_streamed_total\{format="ndjson"\} 3/);
    expect(res.body).toMatch(/topicgate_trino_queries_total\{outcome="ok"\} 1/);
    expect(res.body).toContain('topicgate_process_resident_memory_bytes');
  });
});
