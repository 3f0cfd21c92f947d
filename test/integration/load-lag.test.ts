/**
 * A load run whose lag Trino fails to count after the run committed (as when a worker is lost right then): the run
 * landed whole and its record says committed, so its answer is a 200 saying so, without the lag, never an error
 * that tells the caller the run failed. The gateway reaches Trino through a proxy that sends a failing statement in
 * place of the count that follows the run's INSERT.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/server/app.js';
import { HttpTrino } from '../../src/trino/http-trino.js';
import { TOPIC_COLUMNS } from '../../scripts/demo-data.js';
import { testConfig, trinoUrl } from '../helpers.js';
import { StallProxy } from '../stall-proxy.js';

const SCHEMA = 'loadlag|kafka_topics';
const id = randomBytes(4).toString('hex');
const TOPIC = `events_${id}`;
const LAKE_SCHEMA = `lag_${id}`;
const q = async (s: string) => (await new HttpTrino({ server: trinoUrl(), user: 'load-lag' }).all(s)).rows;
const proxy = new StallProxy(trinoUrl());
let app: FastifyInstance;

beforeAll(async () => {
  await q(`CREATE SCHEMA IF NOT EXISTS vast."${SCHEMA}"`);
  await q(`CREATE TABLE vast."${SCHEMA}"."${TOPIC}" (${TOPIC_COLUMNS})`);
  const rows = Array.from({ length: 20 }, (_, i) => {
    const ts = new Date(Date.UTC(2026, 10, 20) + i * 1000).toISOString().replace('T', ' ').slice(0, 23);
    return `(to_utf8('k${i}'), to_utf8('{"n":${i}}'), TIMESTAMP '${ts}', TIMESTAMP '${ts}', CAST(ARRAY[] AS array(row(key varchar, value varbinary))))`;
  });
  await q(`INSERT INTO vast."${SCHEMA}"."${TOPIC}" VALUES ${rows.join(', ')}`);
  await q(`CREATE SCHEMA IF NOT EXISTS lake.${LAKE_SCHEMA}`);
  app = await buildApp(testConfig({ TOPICGATE_TRINO_URL: await proxy.start(), TOPICGATE_SCHEMAS: SCHEMA }), {
    logger: false,
  });
}, 120_000);

afterAll(async () => {
  await app?.close();
  await proxy.stop();
  await q(`DROP TABLE IF EXISTS vast."${SCHEMA}"."${TOPIC}"`);
  await q(`DROP TABLE IF EXISTS lake.${LAKE_SCHEMA}.target`);
  await q(`DROP SCHEMA IF EXISTS lake.${LAKE_SCHEMA}`);
});

describe('a run whose lag cannot be counted once it committed', () => {
  it('answers 200 committed, without the lag; the run is recorded committed and every event landed', async () => {
    const target = `lake.${LAKE_SCHEMA}.target`;
    const put = await app.inject({ method: 'PUT', url: '/v1/loads/lag', payload: { topic: TOPIC, target } });
    expect(put.statusCode, put.body).toBe(201);
    // The statements of a run carry the load's marker; the lag's count after them does not.
    let inserted = false;
    proxy.replace = (sql) => {
      if (sql.startsWith('/* topicgate load') && sql.includes('INSERT INTO')) inserted = true;
      const lagCount = inserted && !sql.startsWith('/* topicgate load') && /count\(\*\)/i.test(sql);
      return lagCount ? `SELECT * FROM vast."${SCHEMA}".no_such_table_${id}` : undefined;
    };
    const res = await app.inject({ method: 'POST', url: '/v1/loads/lag/runs', payload: {} });
    expect(inserted).toBe(true);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ outcome: 'committed', rows: 20, run: { outcome: 'committed', rows: 20 } });
    expect(body).not.toHaveProperty('lag');
    proxy.replace = () => undefined;
    const load = (await app.inject({ url: '/v1/loads/lag' })).json();
    expect(load.runs[0]).toMatchObject({ outcome: 'committed', rows: 20 });
    expect(load.lag.events).toBe(0);
    expect(Number((await q(`SELECT count(*) FROM ${target}`))[0]![0])).toBe(20);
  });
});
