/**
 * Read sessions over decoded Avro payloads: the demo topic `payments_avro` (two writer schemas, unframed
 * and unknown-id events, longs beyond 2^53, decimals, bytes) read as streams is exactly its `limit=all` read, with
 * the reader versions the session was made with; filters on decoded fields run after decoding in each stream.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { stringify } from 'yaml';
import { registerDemoSchemas } from '../../scripts/demo-avro.js';
import { testApp } from '../helpers.js';
import { expectUnionIsBulk } from '../session-reads.js';

const dir = mkdtempSync(join(tmpdir(), 'topicgate-session-avro-'));
const registryUrl = inject('registryUrl');
const WINDOW = { since: '2026-11-01T00:00:00Z', until: '2026-11-04T00:00:00Z' };

let app: FastifyInstance;
beforeAll(async () => {
  await registerDemoSchemas(registryUrl);
  const file = join(dir, 'avro.yaml');
  const topics = { payments_avro: { key: { format: 'avro' }, value: { format: 'avro' } } };
  writeFileSync(file, stringify({ schemaRegistry: { url: registryUrl }, topics }));
  app = await testApp({ TOPICGATE_CONFIG: file });
});
afterAll(async () => {
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('payments_avro as a session', () => {
  it('decoded: the union is the limit=all read, value for value; the columns are the decoded ones', async () => {
    const { session, rows } = await expectUnionIsBulk(app, 'payments_avro', { ...WINDOW, streams: 4 });
    expect(rows).toBeGreaterThan(100);
    const names = session.columns.map((c) => c.name);
    expect(names).toEqual(expect.arrayContaining(['value', 'value_schema_id', 'value_raw', 'value_error']));
    expect(session.columns.find((c) => c.name === 'value')!.type).toMatch(/^row\(/);
  });

  it('a filter and a select on decoded fields', async () => {
    const body = {
      ...WINDOW,
      select: ['key', 'value.amount', 'value.customer.country', 'timestamp_broker'],
      where: { field: 'value.customer.country', op: 'in', value: ['DE', 'JP'] },
      streams: 3,
    };
    const { rows } = await expectUnionIsBulk(app, 'payments_avro', body);
    expect(rows).toBeGreaterThan(10);
  });

  it('decode false: the stored bytes', async () => {
    await expectUnionIsBulk(app, 'payments_avro', { ...WINDOW, decode: false, streams: 2 });
  });
});
