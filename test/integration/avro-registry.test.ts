/**
 * A Schema Registry that fails, and one that comes back: a second real Apicurio registry on its own
 * port, started and stopped by this file, so the shared one stays up for the other tests. Down: reads of the Avro
 * topic answer 502 TG_SCHEMA_REGISTRY (other topics keep working); up again with the demo schemas: the same
 * gateway decodes, without a restart. A latest reader schema that older events cannot resolve into: every event
 * is still returned, each reported as `unresolvable` with its bytes.
 */
import type { FastifyInstance } from 'fastify';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { stringify } from 'yaml';
import { DEMO_AVRO_SCHEMAS, registerDemoSchemas } from '../../scripts/demo-avro.js';
import { registryDown, registryLayout, registryUp } from '../../scripts/local-registry.js';
import { testApp } from '../helpers.js';

const layout = registryLayout({ ...process.env, TOPICGATE_LOCAL_REGISTRY_PORT: '18802' });
const dir = mkdtempSync(join(tmpdir(), 'topicgate-avro-registry-'));
const URL_ = '/v1/topics/payments_avro/events?since=2026-11-01T00:00:00Z&until=2026-11-01T00:10:00Z&format=ndjson';

let app: FastifyInstance;
beforeAll(async () => {
  await registryDown(layout); // a registry left by an interrupted run of this file: start from an empty one
  const file = join(dir, 'config.yaml');
  writeFileSync(
    file,
    stringify({
      schemaRegistry: { url: layout.url, timeoutMs: 2000 },
      topics: { payments_avro: { key: { format: 'avro' }, value: { format: 'avro' } } },
    }),
  );
  app = await testApp({ TOPICGATE_CONFIG: file });
});
afterAll(async () => {
  await app?.close();
  await registryDown(layout);
  rmSync(dir, { recursive: true, force: true });
});

const lines = (body: string) =>
  body
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('registry down, then back', () => {
  it('down: 502 TG_SCHEMA_REGISTRY naming what was asked; a raw topic still reads', async () => {
    const res = await app.inject(URL_);
    expect(res.statusCode).toBe(502);
    expect(res.json().error).toMatchObject({
      code: 'TG_SCHEMA_REGISTRY',
      status: 502,
      // The first lookup of a read: the key's reader schema (decoded fields are typed by it when the read is planned).
      message: 'the Schema Registry cannot be reached (asked for version latest of subject payments_avro-key)',
    });
    expect(res.body).not.toContain('127.0.0.1'); // no address in the error
    const orders = await app.inject('/v1/topics/orders/events?limit=1');
    expect(orders.statusCode).toBe(200);
  });

  it('back with the schemas: the same gateway decodes (no restart)', { timeout: 180_000 }, async () => {
    const started = await registryUp(layout);
    expect(started.started).toBe(true);
    // A fresh registry assigns the same ids in the same order: those the demo data was framed with.
    expect(await registerDemoSchemas(layout.url)).toEqual(await registerDemoSchemas(inject('registryUrl')));
    const res = await app.inject(URL_);
    expect(res.statusCode, res.body).toBe(200);
    const rows = lines(res.body);
    expect(rows).toHaveLength(20);
    expect(rows[1]).toMatchObject({ key: 'pay-1', value_error: null, value: { customer: { id: 'c1' } } });
  });

  it('a reader schema older events cannot resolve into: every event returned, reported unresolvable', async () => {
    const v3 = { ...DEMO_AVRO_SCHEMAS.v2, fields: [...DEMO_AVRO_SCHEMAS.v2.fields, { name: 'fee', type: 'long' }] };
    const put = await fetch(`${layout.url}/subjects/payments_avro-value/versions`, {
      method: 'POST',
      headers: { 'content-type': 'application/vnd.schemaregistry.v1+json' },
      body: JSON.stringify({ schema: JSON.stringify(v3) }),
    });
    expect(put.status).toBe(200);
    const res = await app.inject(URL_);
    expect(res.statusCode, res.body).toBe(200);
    const rows = lines(res.body);
    expect(rows).toHaveLength(20);
    const framed = rows.filter((r) => r.value_schema_id !== null && r.value_schema_id !== 999_999);
    expect(framed.length).toBeGreaterThan(15);
    for (const r of framed) {
      expect(r.value).toBeNull();
      expect(r.value_error).toMatch(/^unresolvable: /);
      expect(String(r.value_raw)).toMatch(/^\\x00/);
    }
  });
});
