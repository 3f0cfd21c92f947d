/**
 * Loads run by Trino against the real Trino and the real `lake` catalog (Iceberg over the local
 * PostgreSQL and S3): a load lands exactly the topic's events of its windows, expansions as typed columns, with the
 * defining principal's row policy; a second concurrent run is a 409; a revoked grant is a 403; targets in the topics'
 * schemas, unknown catalogs and Avro topics are refused; the lag is reported.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { stringify } from 'yaml';
import { apiKeyHash } from '../../src/access/api-keys.js';
import { buildApp } from '../../src/server/app.js';
import { HttpTrino } from '../../src/trino/http-trino.js';
import { TOPIC_COLUMNS } from '../../scripts/demo-data.js';
import { LAKE_PG_SCHEMA, lakeCatalogName } from '../../scripts/local-lake.js';
import { pgLayout, pgUrl } from '../../scripts/local-postgres.js';
import { s3Layout } from '../../scripts/local-s3.js';
import { PROJECT_ROOT } from '../../scripts/start-command.js';
import { testConfig, trinoUrl } from '../helpers.js';

const SCHEMA = 'loads|kafka_topics';
const id = randomBytes(4).toString('hex');
const TOPIC = `events_${id}`;
const LAKE_SCHEMA = `it_${id}`;
const KEYS = { owner: 'key-owner-0000000000000000000000000', eu: 'key-eu-000000000000000000000000000' };
const dir = mkdtempSync(join(tmpdir(), 'topicgate-loads-'));
const trino = () => new HttpTrino({ server: trinoUrl(), user: 'loads-test' });
const q = async (s: string) => (await trino().all(s)).rows;

/** 400 events on 2026-11-20, five per broker millisecond (ties), every 50th stored twice (identical duplicates). */
function eventRows(): string {
  const rows: string[] = [];
  for (let i = 0; i < 400; i++) {
    const ms = Date.UTC(2026, 10, 20) + Math.floor(i / 5) * 10;
    const ts = new Date(ms).toISOString().replace('T', ' ').slice(0, 23);
    const payload = JSON.stringify({ n: i, tag: i % 3 === 0 ? 'a' : 'b', amount: `${i}.25` });
    const row = `(to_utf8('k${i % 7}'), to_utf8('${payload}'), TIMESTAMP '${ts}', TIMESTAMP '${ts}', CAST(ARRAY[] AS array(row(key varchar, value varbinary))))`;
    rows.push(row);
    if (i % 50 === 0) rows.push(row);
  }
  return rows.join(', ');
}

function configFile(grant: boolean): string {
  const file = join(dir, `${grant ? 'grant' : 'revoked'}.yaml`);
  writeFileSync(
    file,
    stringify({
      topics: {
        [TOPIC]: {
          expand: {
            n: { path: '$.n', type: 'bigint' },
            tag: { path: '$.tag', type: 'varchar' },
            amount: { path: '$.amount', type: 'decimal(12,2)' },
          },
        },
        payments_avro: { value: { format: 'avro' } },
      },
      schemaRegistry: { url: inject('registryUrl') },
      auth: {
        apiKeys: [
          { principal: 'owner-1', sha256: apiKeyHash(KEYS.owner), roles: ['loader'] },
          { principal: 'eu-1', sha256: apiKeyHash(KEYS.eu), roles: ['loader', 'only-a'] },
        ],
      },
      access: [{ roles: ['loader'], topics: ['*'], actions: grant ? ['read', 'loads'] : ['read'] }],
      rowPolicies: { default: 'allow', [TOPIC]: [{ roles: ['only-a'], filter: 'tag=eq.a' }] },
    }),
  );
  return file;
}

let app: FastifyInstance;
let revoked: FastifyInstance;
const state = `sqlite:${join(dir, 'state.db')}`;
beforeAll(async () => {
  await q(`CREATE SCHEMA IF NOT EXISTS vast."${SCHEMA}"`);
  await q(`CREATE TABLE vast."${SCHEMA}"."${TOPIC}" (${TOPIC_COLUMNS})`);
  await q(`INSERT INTO vast."${SCHEMA}"."${TOPIC}" VALUES ${eventRows()}`);
  const env = { TOPICGATE_SCHEMAS: SCHEMA, TOPICGATE_STATE_URL: state };
  app = await buildApp(testConfig({ ...env, TOPICGATE_CONFIG: configFile(true) }), { logger: false });
  revoked = await buildApp(testConfig({ ...env, TOPICGATE_CONFIG: configFile(false) }), { logger: false });
}, 120_000);

afterAll(async () => {
  await app?.close();
  await revoked?.close();
  await q(`DROP TABLE IF EXISTS vast."${SCHEMA}"."${TOPIC}"`);
  for (const [t] of (await q(`SHOW TABLES FROM lake.${LAKE_SCHEMA}`).catch(() => [])) as [string][]) {
    await q(`DROP TABLE lake.${LAKE_SCHEMA}.${t}`);
  }
  await q(`DROP SCHEMA IF EXISTS lake.${LAKE_SCHEMA}`);
  rmSync(dir, { recursive: true, force: true });
});

const as = (key: string) => ({ 'x-api-key': key });
const put = (a: FastifyInstance, name: string, body: object, key = KEYS.owner) =>
  a.inject({ method: 'PUT', url: `/v1/loads/${name}`, headers: as(key), payload: body });
const runLoad = (a: FastifyInstance, name: string, body: object = {}, key = KEYS.owner) =>
  a.inject({ method: 'POST', url: `/v1/loads/${name}/runs`, headers: as(key), payload: body });

/** Rows of `rel` not in `other`, counted with their multiplicity, both ways (EXCEPT ALL). */
async function difference(a: string, b: string): Promise<[number, number]> {
  const [[x]] = (await q(`SELECT count(*) FROM (${a} EXCEPT ALL ${b})`)) as [[number]];
  const [[y]] = (await q(`SELECT count(*) FROM (${b} EXCEPT ALL ${a})`)) as [[number]];
  return [Number(x), Number(y)];
}

const topicRows = (where = 'TRUE') =>
  `SELECT key, value, CAST(timestamp_broker AS timestamp(6)), CAST(json_extract_scalar(from_utf8(value), '$.n') AS bigint) FROM vast."${SCHEMA}"."${TOPIC}" WHERE ${where}`;
const targetRows = (t: string) => `SELECT key, value, timestamp_broker, n FROM lake.${LAKE_SCHEMA}.${t}`;

describe('a load from a topic into the lake', () => {
  const target = `lake.${LAKE_SCHEMA}.all_events`;
  const def = { topic: TOPIC, select: ['key', 'value', 'n', 'tag', 'amount'], target };

  it('is defined once; the same definition again is a no-op, another one a 409', async () => {
    expect((await put(app, 'all', def)).statusCode).toBe(201);
    expect((await put(app, 'all', def)).statusCode).toBe(200);
    const other = await put(app, 'all', { ...def, select: ['key'] });
    expect(other.statusCode).toBe(409);
    expect(other.json().error.code).toBe('TG_LOAD_CONFLICT');
  });

  it('runs windows of whole milliseconds: each event once, ties and duplicates included, typed columns', async () => {
    // A first window ending at the millisecond of five tied events (00:00:00.500: they belong to the next), then the rest.
    const first = await runLoad(app, 'all', { until: '2026-11-20T00:00:00.500Z' });
    expect(first.statusCode, first.body).toBe(200);
    const r1 = first.json();
    expect(r1).toMatchObject({ outcome: 'committed', window: { from: null, until: '2026-11-20T00:00:00.500Z' } });
    expect(r1.rows).toBe(255); // 250 events before 00:00:00.500, 5 of them stored twice
    expect(r1.run.queryIds.length).toBeGreaterThanOrEqual(3);
    const second = (await runLoad(app, 'all')).json();
    expect(second).toMatchObject({ outcome: 'committed', rows: 153, window: { from: '2026-11-20T00:00:00.500Z' } });
    expect(second.lag.events).toBe(0);
    expect(await difference(topicRows(), targetRows('all_events'))).toEqual([0, 0]);
    const [[count]] = (await q(`SELECT count(*) FROM lake.${LAKE_SCHEMA}.all_events`)) as [[number]];
    expect(Number(count)).toBe(408);
    const types = Object.fromEntries((await q(`DESCRIBE lake.${LAKE_SCHEMA}.all_events`)).map((r) => [r[0], r[1]]));
    expect(types).toMatchObject({
      key: 'varbinary',
      n: 'bigint',
      tag: 'varchar',
      amount: 'decimal(12,2)',
      timestamp_broker: 'timestamp(6)',
      timestamp_producer: 'timestamp(6)',
    });
    // The next run's window (up to now minus settle again) holds nothing new; a POST without a body, as cron's curl.
    const again = (await app.inject({ method: 'POST', url: '/v1/loads/all/runs', headers: as(KEYS.owner) })).json();
    expect(again).toMatchObject({ outcome: 'committed', rows: 0, window: { from: second.window.until } });
    expect(await difference(topicRows(), targetRows('all_events'))).toEqual([0, 0]);
  });

  it('is an Iceberg table pyiceberg reads alone, with the typed columns (examples/lake_read.py)', async () => {
    const port = Number(new URL(trinoUrl()).port);
    const uri = pgUrl({ port: pgLayout().port }).replace(/^postgres:/, 'postgresql+psycopg2:');
    const { stdout } = await promisify(execFile)(
      'python3',
      [
        'examples/lake_read.py',
        lakeCatalogName(port),
        `${uri}?options=-csearch_path%3D${LAKE_PG_SCHEMA}`,
        s3Layout('', port).url,
        `${LAKE_SCHEMA}.all_events`,
      ],
      { cwd: PROJECT_ROOT },
    );
    for (const field of ['key: optional binary', 'n: optional long', 'tag: optional string']) {
      expect(stdout).toContain(field);
    }
    expect(stdout).toMatch(/amount: optional decimal\(12, ?2\)/);
    expect(stdout).toMatch(/timestamp_broker: optional timestamp/);
    expect(stdout).toContain('rows: 408');
  });

  it('shows its position, lag and last runs', async () => {
    const res = await app.inject({ url: '/v1/loads/all', headers: as(KEYS.owner) });
    expect(res.statusCode).toBe(200);
    const view = res.json();
    expect(view.position).toMatch(/^20\d\d-.*Z$/);
    expect(view.lag).toMatchObject({ events: 0 });
    expect(view.runs.map((r: { outcome: string }) => r.outcome)).toEqual(['committed', 'committed', 'committed']);
    const runs = (await app.inject({ url: '/v1/loads/all/runs', headers: as(KEYS.owner) })).json().runs;
    expect(runs.map((r: { rows: number }) => r.rows)).toEqual([0, 153, 255]);
    expect(runs[1].window.from).toBe('2026-11-20T00:00:00.500Z');
    expect(runs[2]).toMatchObject({ window: { from: null }, outcome: 'committed', error: null });
    expect(runs[2].durationMs).toBeGreaterThan(0);
  });

  it('lands only what the row policy of the defining principal lets it read', async () => {
    const body = { ...def, target: `lake.${LAKE_SCHEMA}.only_a` };
    expect((await put(app, 'only-a', body, KEYS.eu)).statusCode).toBe(201);
    const res = await runLoad(app, 'only-a', {}, KEYS.eu);
    expect(res.statusCode, res.body).toBe(200);
    const onlyA = `json_extract_scalar(from_utf8(value), '$.tag') = 'a'`;
    expect(res.json().rows).toBe(
      Number((await q(`SELECT count(*) FROM vast."${SCHEMA}"."${TOPIC}" WHERE ${onlyA}`))[0]![0]),
    );
    expect(await difference(topicRows(onlyA), targetRows('only_a'))).toEqual([0, 0]);
    // Another principal sees no load of that name; it runs as its owner.
    expect((await runLoad(app, 'only-a', {}, KEYS.owner)).statusCode).toBe(404);
  });

  it('runs one at a time: of two runs at once, one is a 409 TG_LOAD_RUNNING', async () => {
    expect((await put(app, 'twice', { ...def, target: `lake.${LAKE_SCHEMA}.twice` })).statusCode).toBe(201);
    const both = await Promise.all([runLoad(app, 'twice'), runLoad(app, 'twice')]);
    expect(both.map((r) => r.statusCode).sort()).toEqual([200, 409]);
    expect(both.find((r) => r.statusCode === 409)!.json().error.code).toBe('TG_LOAD_RUNNING');
    expect(await difference(topicRows(), targetRows('twice'))).toEqual([0, 0]);
  });

  it('a revoked loads grant is a 403 on every route of the load', async () => {
    for (const res of [
      await runLoad(revoked, 'all'),
      await revoked.inject({ url: '/v1/loads/all', headers: as(KEYS.owner) }),
      await put(revoked, 'new-one', { ...def, target: `lake.${LAKE_SCHEMA}.new_one` }),
    ]) {
      expect(res.statusCode, res.body).toBe(403);
      expect(res.json().error.code).toBe('TG_FORBIDDEN');
    }
  });

  it('refuses targets that are malformed, in the served topics or in no catalog, and Avro topics', async () => {
    const cases: [object, number, string][] = [
      [{ ...def, target: 'lake.x' }, 400, 'TG_BAD_TARGET'],
      [{ ...def, target: 'lake."x".y' }, 400, 'TG_BAD_TARGET'],
      [{ ...def, target: `vast.${SCHEMA}.t` }, 400, 'TG_BAD_TARGET'],
      [{ ...def, target: 'nocatalog.s.t' }, 400, 'TG_BAD_TARGET'],
      [{ ...def, select: ['nope'] }, 400, 'TG_UNKNOWN_COLUMN'],
      [{ ...def, start: 'yesterday-ish' }, 400, 'TG_BAD_TIME'],
    ];
    for (const [body, status, code] of cases) {
      const res = await put(app, 'refused', body);
      expect([res.statusCode, res.json().error.code], JSON.stringify(body)).toEqual([status, code]);
    }
  });

  it('deletes a load and its runs; the table stays', async () => {
    const res = await app.inject({ method: 'DELETE', url: '/v1/loads/twice', headers: as(KEYS.owner) });
    expect(res.statusCode).toBe(204);
    expect((await app.inject({ url: '/v1/loads/twice', headers: as(KEYS.owner) })).statusCode).toBe(404);
    expect(Number((await q(`SELECT count(*) FROM lake.${LAKE_SCHEMA}.twice`))[0]![0])).toBe(408);
  });
});

describe('a topic whose payloads only the gateway decodes', () => {
  it('is refused for loads, naming why (Avro through the Schema Registry)', async () => {
    const avro = await buildApp(
      testConfig({ TOPICGATE_CONFIG: configFile(true), TOPICGATE_SCHEMAS: 'demo|kafka_topics' }),
      { logger: false },
    );
    const res = await put(avro, 'avro', { topic: 'payments_avro', target: `lake.${LAKE_SCHEMA}.avro` });
    await avro.close();
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ code: 'TG_NOT_LOADABLE' });
    expect(res.json().error.message).toMatch(/Avro value payloads.*Schema Registry/);
  });
});
