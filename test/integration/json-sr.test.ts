/**
 * json-sr payloads: JSON behind a Confluent frame (byte 0, 4-byte schema id). A table of its own, in its
 * own schema of the shared Trino's memory catalog (created and dropped here, so no other test sees it): declared
 * expansion reads the JSON after the frame (filters, aggregates), responses show the JSON without the frame with
 * the id beside it, and an unframed plain-JSON event still expands.
 */
import type { FastifyInstance } from 'fastify';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { stringify } from 'yaml';
import { HttpTrino } from '../../src/trino/http-trino.js';
import { TOPIC_COLUMNS } from '../../scripts/demo-data.js';
import { testApp, trinoUrl } from '../helpers.js';

const SCHEMA = 'jsonsr_test|kafka_topics';
const TABLE = `vast."${SCHEMA}".orders_sr`;
const dir = mkdtempSync(join(tmpdir(), 'topicgate-jsonsr-'));
const trino = new HttpTrino({ server: trinoUrl(), user: 'test' });

const framed = (id: number, json: string) =>
  `X'${Buffer.concat([Buffer.from([0, 0, 0, 0, id]), Buffer.from(json)]).toString('hex')}'`;
const EVENTS = [
  framed(5, '{"status":"paid","amount":12.30}'),
  framed(5, '{"status":"paid","amount":7.70}'),
  framed(6, '{"status":"open","amount":1.00}'),
  `to_utf8('{"status":"paid","amount":100.00}')`, // unframed plain JSON
];

let app: FastifyInstance;
beforeAll(async () => {
  await trino.all(`CREATE SCHEMA IF NOT EXISTS vast."${SCHEMA}"`);
  await trino.all(`DROP TABLE IF EXISTS ${TABLE}`);
  await trino.all(`CREATE TABLE ${TABLE} (${TOPIC_COLUMNS})`);
  const rows = EVENTS.map(
    (v, i) =>
      `(to_utf8('k${i}'), ${v}, TIMESTAMP '2026-11-01 00:00:0${i}.000', TIMESTAMP '2026-11-01 00:00:00.000', CAST(ARRAY[] AS array(row(key varchar, value varbinary))))`,
  );
  await trino.all(`INSERT INTO ${TABLE} VALUES ${rows.join(', ')}`);
  const config = join(dir, 'c.yaml');
  writeFileSync(
    config,
    stringify({
      schemaRegistry: { url: inject('registryUrl') },
      topics: {
        orders_sr: {
          value: { format: 'json-sr' },
          expand: {
            status: { path: '$.status', type: 'varchar' },
            amount: { path: '$.amount', type: 'decimal(12,2)' },
          },
        },
      },
    }),
  );
  app = await testApp({ TOPICGATE_SCHEMAS: SCHEMA, TOPICGATE_CONFIG: config });
});
afterAll(async () => {
  await app?.close();
  await trino.all(`DROP TABLE IF EXISTS ${TABLE}`);
  await trino.all(`DROP SCHEMA IF EXISTS vast."${SCHEMA}"`);
  rmSync(dir, { recursive: true, force: true });
});

const WINDOW = 'since=2026-11-01T00:00:00Z&until=2026-11-01T00:01:00Z';

describe('json-sr', () => {
  it('declared expansion reads the JSON after the frame: filters and aggregates', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/v1/topics/orders_sr/query',
      payload: {
        select: ['status', { fn: 'count', as: 'n' }, { fn: 'sum', field: 'amount', as: 'total' }],
        groupBy: ['status'],
        order: [{ field: 'status', dir: 'asc' }],
        since: '2026-11-01T00:00:00Z',
        until: '2026-11-01T00:01:00Z',
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().rows).toEqual([
      { status: 'open', n: 1, total: 1.0 },
      { status: 'paid', n: 3, total: 120.0 },
    ]);
    expect(res.body).toContain('"total":120.00');
  });

  it('responses show the JSON without its frame, the schema id beside it; unframed events are kept raw', async () => {
    const res = await app.inject(`/v1/topics/orders_sr/events?${WINDOW}&select=value,amount&format=ndjson`);
    const rows = res.body
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(rows[0]).toEqual({
      value: { status: 'paid', amount: 12.3 },
      value_schema_id: 5,
      value_raw: null,
      value_error: null,
      amount: 12.3,
    });
    expect(rows[3]).toMatchObject({ value: null, value_raw: { status: 'paid', amount: 100 }, value_error: 'unframed' });
    expect(rows[3].amount).toBe(100);
  });

  it('JSON arrow paths read the JSON after the frame too', async () => {
    const res = await app.inject(
      `/v1/topics/orders_sr/events?${WINDOW}&value->>status=eq.paid&select=key,amount:value->>amount&format=ndjson`,
    );
    expect(res.statusCode, res.body).toBe(200);
    const rows = res.body
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(rows).toEqual([
      { key: 'k0', amount: '12.30' },
      { key: 'k1', amount: '7.70' },
      { key: 'k3', amount: '100.00' },
    ]);
  });
});
