/**
 * A gateway serving two schemas at once (`TOPICGATE_SCHEMAS=demo|kafka_topics,bulk|kafka_topics`): topic ids are
 * `<schema>:<table>`, each topic has its own columns once (Trino lists them twice when its filter names two
 * schemas), reads answer exactly as a gateway serving that schema alone, and an Avro topic's default subjects are
 * named after the Kafka topic (the table), not the id.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { stringify } from 'yaml';
import { registerDemoSchemas } from '../../scripts/demo-avro.js';
import { testApp } from '../helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'topicgate-two-schemas-'));
const registryUrl = inject('registryUrl');
const DEMO = 'demo|kafka_topics';
const WINDOW = 'since=2026-11-01T00:00:00Z&until=2026-11-01T06:00:00Z';
const AVRO = { key: { format: 'avro' }, value: { format: 'avro' } };

let both: FastifyInstance;
let one: FastifyInstance;
beforeAll(async () => {
  await registerDemoSchemas(registryUrl);
  const config = (topics: object) => {
    const file = join(dir, `${Math.random().toString(36).slice(2)}.yaml`);
    writeFileSync(file, stringify({ schemaRegistry: { url: registryUrl }, topics }));
    return file;
  };
  both = await testApp({
    TOPICGATE_SCHEMAS: `${DEMO},bulk|kafka_topics`,
    TOPICGATE_CONFIG: config({ [`${DEMO}:payments_avro`]: AVRO }),
  });
  one = await testApp({ TOPICGATE_SCHEMAS: DEMO, TOPICGATE_CONFIG: config({ payments_avro: AVRO }) });
});
afterAll(async () => {
  await Promise.all([both?.close(), one?.close()]);
  rmSync(dir, { recursive: true, force: true });
});

const id = (table: string) => encodeURIComponent(`${DEMO}:${table}`);

describe('two schemas served at once', () => {
  it('lists both schemas’ topics under <schema>:<table>, each with its columns once', async () => {
    const res = await both.inject('/v1/topics');
    expect(res.statusCode, res.body).toBe(200);
    const names = (res.json().topics as { name: string }[]).map((t) => t.name);
    expect(names).toContain(`${DEMO}:orders`);
    expect(names).toContain('bulk|kafka_topics:orders');
    const schema = await both.inject(`/v1/topics/${id('orders')}`);
    expect(schema.statusCode, schema.body).toBe(200);
    const columns = (schema.json().columns as { name: string }[]).map((c) => c.name);
    expect(columns).toEqual(['key', 'value', 'timestamp_broker', 'timestamp_producer', 'headers']);
  });

  it.each(['json', 'ndjson', 'csv'])('a read (%s) is byte for byte the single-schema gateway’s', async (format) => {
    const path = (t: string) => `/v1/topics/${t}/events?${WINDOW}&limit=200&format=${format}`;
    const [a, b] = await Promise.all([both.inject(path(id('orders'))), one.inject(path('orders'))]);
    expect(a.statusCode, a.body.slice(0, 300)).toBe(200);
    expect(b.statusCode).toBe(200);
    // The next page's link names the topic by its id, and its page token is signed over it; the rows are the same.
    const rows = (body: string) =>
      body.replaceAll(/\/v1\/topics\/[^/]+\/events/g, '<topic>').replaceAll(/cursor=p1\.[\w.-]+/g, '<token>');
    expect(rows(a.body)).toBe(rows(b.body));
  });

  it('an Avro topic decodes with the subjects of its Kafka topic (payments_avro-key / -value)', async () => {
    const path = (t: string) => `/v1/topics/${t}/events?${WINDOW}&limit=100&format=ndjson`;
    const [a, b] = await Promise.all([both.inject(path(id('payments_avro'))), one.inject(path('payments_avro'))]);
    expect(a.statusCode, a.body.slice(0, 300)).toBe(200);
    expect(a.body.split('\n').length).toBeGreaterThan(10);
    expect(a.body).toBe(b.body);
  });
});
