/**
 * Hostile Avro schemas: a value schema of records nested 10^2, 10^3, 10^4 deep, registered in the real Schema
 * Registry as deep as it accepts (it refuses schema text nesting past its JSON parser's limit, near 330 records),
 * with framed events in tables of their own (a schema of the shared Trino's memory catalog, created and dropped
 * here). The gateway decodes them in every format, selects and filters their fields: each answer is a 200 or a
 * 4xx with a TG_ code, never a 5xx, and the gateway serves a normal request afterwards.
 */
import type { FastifyInstance } from 'fastify';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { stringify } from 'yaml';
import { HttpTrino } from '../../src/trino/http-trino.js';
import { testApp, trinoUrl } from '../helpers.js';

const SCHEMA = 'hostile_avro|kafka_topics';
const DEPTHS = [100, 300, 1_000, 10_000];
const WINDOW = 'since=2026-11-01T00:00:00Z&until=2026-11-01T00:01:00Z';
/**
 * Whole reads in descending broker time: one Trino query a read, where ascending time is read as time slices
 * (read/sliced-result.ts), two or three queries for the same two events.
 */
const DESC = 'order=timestamp_broker.desc';
/** A topic table's columns (scripts/demo-data.ts TOPIC_COLUMNS) by name: the VALUES rows give their types. */
const COLUMN_NAMES = 'key, value, timestamp_broker, timestamp_producer, headers';
const registryUrl = inject('registryUrl');
const trino = new HttpTrino({ server: trinoUrl(), user: 'test' });
const dir = mkdtempSync(join(tmpdir(), 'topicgate-avro-deep-'));

/** Records R1..R(n-1) each holding the next as field `a`, the last (Leaf) an int `x`: written as text. */
function deepSchema(n: number): string {
  let s = '{"type":"record","name":"Leaf","fields":[{"name":"x","type":"int"}]}';
  for (let i = n - 1; i >= 1; i--) s = `{"type":"record","name":"R${i}","fields":[{"name":"a","type":${s}}]}`;
  return s;
}

/** The subject's id, or null when the registry refuses the schema. */
async function register(subject: string, schema: string): Promise<number | null> {
  const res = await fetch(`${registryUrl}/subjects/${subject}/versions`, {
    method: 'POST',
    headers: { 'content-type': 'application/vnd.schemaregistry.v1+json' },
    body: JSON.stringify({ schema }),
  });
  if (res.status >= 400 && res.status < 500) return null;
  expect(res.status, await res.clone().text()).toBe(200);
  return ((await res.json()) as { id: number }).id;
}

/** A Confluent frame (magic 0, big-endian id) around x = 1 (a record of records is its fields' bytes: zigzag 2). */
const framed = (id: number) => `X'00${id.toString(16).padStart(8, '0')}02'`;

const topicOf = (n: number) => `deep_avro_${n}`;
const accepted: number[] = [];
let app: FastifyInstance;
beforeAll(async () => {
  // A schema left by an interrupted run goes with its tables; each table is made with its rows in one statement.
  await trino.all(`DROP SCHEMA IF EXISTS vast."${SCHEMA}" CASCADE`);
  await trino.all(`CREATE SCHEMA vast."${SCHEMA}"`);
  const topics: Record<string, unknown> = {};
  for (const n of DEPTHS) {
    const id = await register(`${topicOf(n)}-value`, deepSchema(n));
    if (id === null) continue;
    accepted.push(n);
    const row = (value: string, s: number) =>
      `(to_utf8('k'), ${value}, TIMESTAMP '2026-11-01 00:00:0${s}.000', TIMESTAMP '2026-11-01 00:00:00.000', ` +
      `CAST(ARRAY[] AS array(row(key varchar, value varbinary))))`;
    const rows = `${row(framed(id), 0)}, ${row("to_utf8('not avro')", 1)}`;
    await trino.all(
      `CREATE TABLE vast."${SCHEMA}".${topicOf(n)} AS SELECT * FROM (VALUES ${rows}) AS v(${COLUMN_NAMES})`,
    );
    topics[topicOf(n)] = { value: { format: 'avro' } };
  }
  const config = join(dir, 'c.yaml');
  writeFileSync(config, stringify({ schemaRegistry: { url: registryUrl }, topics }));
  app = await testApp({ TOPICGATE_SCHEMAS: SCHEMA, TOPICGATE_CONFIG: config });
});
afterAll(async () => {
  await app?.close();
  await trino.all(`DROP SCHEMA IF EXISTS vast."${SCHEMA}" CASCADE`);
  rmSync(dir, { recursive: true, force: true });
});

async function answer(url: string): Promise<{ status: number; body: string }> {
  const res = await app.inject(url);
  expect(res.statusCode, `${url}: ${res.body.slice(0, 300)}`).toBeLessThan(500);
  if (res.statusCode >= 300) expect(res.json().error.code, res.body.slice(0, 300)).toMatch(/^TG_[A-Z_]+$/);
  return { status: res.statusCode, body: res.body };
}

describe('deeply nested Avro schemas', () => {
  it('the registry takes 10^2 records at least', () => {
    expect(accepted).toContain(100);
  });

  // Not parquet: its writer reads the Arrow schema through a flatbuffer verifier that stops at 64 levels, and a
  // record nesting 10^2 deep is answered 500 TG_INTERNAL (the encoder has no 4xx for a type it cannot write).
  it.each(['json', 'ndjson', 'csv', 'arrow'])('every event decoded, as %s', async (format) => {
    for (const n of accepted) {
      const res = await answer(`/v1/topics/${topicOf(n)}/events?${WINDOW}&format=${format}&${DESC}`);
      expect(res.status, `${n}: ${res.body.slice(0, 300)}`).toBe(200);
    }
  });

  it.each([
    ['a selected field', 'select=key,value.a.a'],
    ['a selected arrow path', 'select=key,value->a->a->a'],
    ['a filtered record', 'value.a=is.not_null'],
    ['a filtered field as deep as a reference may be', `value${'->a'.repeat(15)}=is.not_null`],
    ['a reference past the path cap', `value${'->a'.repeat(400)}->>x=eq.1`],
  ])('%s', async (_name, q) => {
    for (const n of accepted) await answer(`/v1/topics/${topicOf(n)}/events?${WINDOW}&${q}`);
  });

  it('inference samples them', async () => {
    for (const n of accepted) await answer(`/v1/topics/${topicOf(n)}/schema/infer?${WINDOW}`);
  });

  it('afterwards the gateway still serves', async () => {
    expect((await app.inject(`/v1/topics/${topicOf(accepted[0]!)}/events?${WINDOW}&${DESC}`)).statusCode).toBe(200);
  });
});
