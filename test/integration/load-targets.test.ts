/**
 * Loads as an attacker uses them (API.md "Loads run by Trino"): a principal with `loads` names another's target, a
 * table no load made, a table made while its load waited to run, the topics' catalog, or a catalog outside
 * `loads.targets`, and asks for other principals' load names. Every target is another principal's table or none
 * the gateway may write: 409 TG_LOAD_TARGET_TAKEN or 400 TG_BAD_TARGET, the same answer for every principal, and
 * the table unchanged (rows counted in Trino); load names are per principal, so another's name is a 404 as a
 * missing one and may be defined again as one's own. Loads stored before keep working; two instances on one
 * PostgreSQL store give a contested table to one load.
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { apiKeyHash } from '../../src/access/api-keys.js';
import { buildApp } from '../../src/server/app.js';
import { HttpTrino } from '../../src/trino/http-trino.js';
import { TOPIC_COLUMNS } from '../../scripts/demo-data.js';
import { pgUp } from '../../scripts/local-postgres.js';
import { testConfig, trinoUrl } from '../helpers.js';

const SCHEMA = 'loadt|kafka_topics';
const id = randomBytes(4).toString('hex');
const TOPIC = `events_${id}`;
const LAKE = `lake.tg_${id}`;
const KEYS = {
  alice: 'key-alice-00000000000000000000000000',
  bob: 'key-bob-0000000000000000000000000000',
  root: 'key-root-000000000000000000000000000',
};
type Who = keyof typeof KEYS;
const dir = mkdtempSync(join(tmpdir(), 'topicgate-load-targets-'));
const q = async (s: string) => (await new HttpTrino({ server: trinoUrl(), user: 'load-targets-test' }).all(s)).rows;
const count = async (table: string) => Number((await q(`SELECT count(*) FROM ${table}`))[0]![0]);

/** 60 events on 2026-11-20, every third tagged `a`. */
function eventRows(): string {
  return Array.from({ length: 60 }, (_, i) => {
    const ts = new Date(Date.UTC(2026, 10, 20) + i * 1000).toISOString().replace('T', ' ').slice(0, 23);
    const payload = JSON.stringify({ n: i, tag: i % 3 === 0 ? 'a' : 'b' });
    return `(to_utf8('k${i}'), to_utf8('${payload}'), TIMESTAMP '${ts}', TIMESTAMP '${ts}', CAST(ARRAY[] AS array(row(key varchar, value varbinary))))`;
  }).join(', ');
}

function configFile(): string {
  const file = join(dir, 'config.yaml');
  writeFileSync(
    file,
    stringify({
      auth: {
        apiKeys: [
          { principal: 'alice', sha256: apiKeyHash(KEYS.alice), roles: ['loader'] },
          // bob's row policy lets him read a third of the events: a run of his into alice's table would empty it.
          { principal: 'bob', sha256: apiKeyHash(KEYS.bob), roles: ['loader', 'only-a'] },
          { principal: 'root', sha256: apiKeyHash(KEYS.root), roles: ['operator'] },
        ],
      },
      access: [
        { roles: ['loader'], topics: ['*'], actions: ['read', 'loads'] },
        { roles: ['operator'], topics: ['*'], actions: ['read', 'loads', 'admin'] },
      ],
      rowPolicies: { default: 'allow', [TOPIC]: [{ roles: ['only-a'], filter: 'tag=eq.a' }] },
      topics: { [TOPIC]: { expand: { tag: { path: '$.tag', type: 'varchar' } } } },
      loads: { targets: [LAKE] },
    }),
  );
  return file;
}

let app: FastifyInstance;
beforeAll(async () => {
  await q(`CREATE SCHEMA IF NOT EXISTS vast."${SCHEMA}"`);
  await q(`CREATE TABLE vast."${SCHEMA}"."${TOPIC}" (${TOPIC_COLUMNS})`);
  await q(`INSERT INTO vast."${SCHEMA}"."${TOPIC}" VALUES ${eventRows()}`);
  await q(`CREATE SCHEMA IF NOT EXISTS ${LAKE}`);
  const env = { TOPICGATE_SCHEMAS: SCHEMA, TOPICGATE_STATE_URL: `sqlite:${join(dir, 'state.db')}` };
  app = await buildApp(testConfig({ ...env, TOPICGATE_CONFIG: configFile() }), { logger: false });
}, 120_000);

afterAll(async () => {
  await app?.close();
  await q(`DROP TABLE IF EXISTS vast."${SCHEMA}"."${TOPIC}"`);
  // The schema with every table the tests made, in one statement.
  await q(`DROP SCHEMA IF EXISTS ${LAKE} CASCADE`);
  rmSync(dir, { recursive: true, force: true });
}, 120_000);

const headers = (who: Who) => ({ 'x-api-key': KEYS[who] });
const put = (who: Who, name: string, target: string) =>
  app.inject({ method: 'PUT', url: `/v1/loads/${name}`, headers: headers(who), payload: { topic: TOPIC, target } });
const runLoad = (who: Who, name: string) =>
  app.inject({ method: 'POST', url: `/v1/loads/${name}/runs`, headers: headers(who), payload: {} });
const get = (who: Who, name: string) => app.inject({ url: `/v1/loads/${name}`, headers: headers(who) });
const del = (who: Who, name: string) =>
  app.inject({ method: 'DELETE', url: `/v1/loads/${name}`, headers: headers(who) });
const errorOf = (res: { statusCode: number; json(): { error: { code: string; message: string } } }) => [
  res.statusCode,
  res.json().error.code,
  res.json().error.message,
];
const taken = (target: string) => [
  409,
  'TG_LOAD_TARGET_TAKEN',
  `target ${target} is taken: it is another load's, or a table that no load of this principal made; name a new table`,
];

describe("another principal's target table", () => {
  const target = `${LAKE}.alice_orders`;

  it("can be neither defined nor run into by bob: alice's table keeps its rows", async () => {
    expect((await put('alice', 'orders', target)).statusCode).toBe(201);
    expect((await runLoad('alice', 'orders')).json()).toMatchObject({ outcome: 'committed', rows: 60 });
    const attack = await put('bob', 'steal', target);
    expect(errorOf(attack), attack.body).toEqual(taken(target));
    const run = await runLoad('bob', 'steal');
    expect([run.statusCode, run.json().error.code], run.body).toEqual([404, 'TG_LOAD_NOT_FOUND']);
    expect(await count(target)).toBe(60);
  });

  it('is refused to its owner too, for a second load of the same table', async () => {
    expect(errorOf(await put('alice', 'orders-twice', target))).toEqual(taken(target));
  });

  it('answers as a table that no load made does: nothing tells whose it is, or whether a load holds it', async () => {
    const made = `${LAKE}.made_outside`;
    await q(`CREATE TABLE ${made} AS SELECT 1 AS x`);
    for (const who of ['alice', 'bob', 'root'] as const) {
      expect(errorOf(await put(who, 'outside', made)), who).toEqual(taken(made));
      expect(errorOf(await put(who, 'steal', target)), who).toEqual(taken(target));
    }
    expect(await count(made)).toBe(1);
  });

  it("stays its owner's when its load is deleted: bob cannot take it, a new load of alice's continues it", async () => {
    expect((await del('alice', 'orders')).statusCode).toBe(204);
    expect(errorOf(await put('bob', 'steal', target))).toEqual(taken(target));
    expect(await count(target)).toBe(60);
    expect((await put('alice', 'orders-again', target)).statusCode).toBe(201);
    // The new load starts at `earliest`: its window is deleted and landed again, each event once.
    expect((await runLoad('alice', 'orders-again')).json()).toMatchObject({ outcome: 'committed', rows: 60 });
    expect(await count(target)).toBe(60);
  });
});

describe('a table made while its load waited for its first run', () => {
  it('is not written: the run is a 409 and the table keeps what its maker put there', async () => {
    const target = `${LAKE}.made_meanwhile`;
    expect((await put('alice', 'meanwhile', target)).statusCode).toBe(201);
    await q(`CREATE TABLE ${target} AS SELECT * FROM vast."${SCHEMA}"."${TOPIC}" WHERE false`);
    await q(`INSERT INTO ${target} SELECT * FROM vast."${SCHEMA}"."${TOPIC}" LIMIT 7`);
    const run = await runLoad('alice', 'meanwhile');
    expect(errorOf(run), run.body).toEqual(taken(target));
    expect(await count(target)).toBe(7);
    expect((await get('alice', 'meanwhile')).json()).toMatchObject({ position: null });
  });
});

describe('targets outside loads.targets', () => {
  it('are refused before Trino is asked: the topics catalog, system tables, other catalogs and schemas', async () => {
    const allowed = `loads may write in ${LAKE}`;
    for (const target of [
      `vast.x.y`,
      `vast.${SCHEMA.replace('|', '_')}.t`,
      'system.runtime.nodes',
      'system.runtime.no_such_table',
      'nocatalog.s.t',
      'lake.other_schema.t',
    ]) {
      const res = await put('bob', 'outside', target);
      expect([res.statusCode, res.json().error.code], `${target}: ${res.body}`).toEqual([400, 'TG_BAD_TARGET']);
      expect(res.json().error.message, target).toMatch(
        new RegExp(`^target ${target.replaceAll('.', '\\.')} .*; ${allowed.replaceAll('.', '\\.')}$`),
      );
    }
    expect((await get('bob', 'outside')).statusCode).toBe(404);
    expect(await count('system.runtime.nodes')).toBeGreaterThan(0);
  });

  it('answer the same for a table that exists and one that does not (no existence oracle)', async () => {
    const existing = (await put('bob', 'probe', 'system.runtime.nodes')).json().error.message as string;
    const missing = (await put('bob', 'probe', 'system.runtime.no_such_table')).json().error.message as string;
    const noCatalog = (await put('bob', 'probe', 'nocatalog.runtime.nodes')).json().error.message as string;
    expect(existing.replace('system.runtime.nodes', 'T')).toBe(missing.replace('system.runtime.no_such_table', 'T'));
    expect(noCatalog.replace('nocatalog.runtime.nodes', 'T')).toBe(existing.replace('system.runtime.nodes', 'T'));
  });
});

describe("another principal's load name", () => {
  const aliceTarget = `${LAKE}.alice_named`;
  const bobTarget = `${LAKE}.bob_named`;

  it('is a 404 to bob, as a name nobody has', async () => {
    expect((await put('alice', 'named', aliceTarget)).statusCode).toBe(201);
    const theirs = await get('bob', 'named');
    const nobodys = await get('bob', 'nobodys');
    expect(errorOf(theirs)).toEqual([404, 'TG_LOAD_NOT_FOUND', 'no load "named"']);
    expect(errorOf(nobodys)).toEqual([404, 'TG_LOAD_NOT_FOUND', 'no load "nobodys"']);
    for (const res of [await runLoad('bob', 'named'), await del('bob', 'named')]) {
      expect(errorOf(res)).toEqual(errorOf(theirs));
    }
  });

  it("may be bob's own load: defined, shown, run and deleted without touching alice's", async () => {
    const mine = await put('bob', 'named', bobTarget);
    expect(mine.statusCode, mine.body).toBe(201);
    expect(mine.json()).toMatchObject({ name: 'named', definition: { target: bobTarget } });
    expect((await get('bob', 'named')).json()).toMatchObject({ name: 'named', definition: { target: bobTarget } });
    expect((await get('alice', 'named')).json()).toMatchObject({ definition: { target: aliceTarget } });
    expect((await runLoad('bob', 'named')).json()).toMatchObject({ outcome: 'committed', rows: 20 });
    expect((await runLoad('alice', 'named')).json()).toMatchObject({ outcome: 'committed', rows: 60 });
    const [counts] = await q(`SELECT (SELECT count(*) FROM ${bobTarget}), (SELECT count(*) FROM ${aliceTarget})`);
    expect(counts!.map(Number)).toEqual([20, 60]);
    expect((await del('bob', 'named')).statusCode).toBe(204);
    expect((await get('alice', 'named')).json()).toMatchObject({ definition: { target: aliceTarget } });
  });

  it('is reached by an admin of its topic while one principal has it; of several, a 409 naming their owners', async () => {
    expect((await get('root', 'named')).json()).toMatchObject({ definition: { target: aliceTarget } });
    const run = await runLoad('root', 'named');
    expect([run.statusCode, run.json().error.code]).toEqual([403, 'TG_FORBIDDEN']);
    expect((await put('bob', 'named', `${LAKE}.bob_named_2`)).statusCode).toBe(201);
    const both = await get('root', 'named');
    expect([both.statusCode, both.json().error.code]).toEqual([409, 'TG_LOAD_CONFLICT']);
    expect(both.json().error.details.owners.sort()).toEqual(['key:alice', 'key:bob']);
  });
});

describe('loads stored before targets were claimed', () => {
  const target = `${LAKE}.legacy`;
  let old: FastifyInstance;
  beforeAll(async () => {
    // The loads table as the first builds left it: bare names, an owner by its bare API key name or by its id.
    const file = join(dir, 'old-state.db');
    const db = new Database(file);
    db.exec(`CREATE TABLE topicgate_loads (name TEXT NOT NULL PRIMARY KEY, topic TEXT NOT NULL,
      definition TEXT NOT NULL, pos_ts TEXT NULL, owner TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL)`);
    const row = db.prepare('INSERT INTO topicgate_loads VALUES (?, ?, ?, NULL, ?, ?, ?)');
    const def = JSON.stringify({ topic: TOPIC, target, start: 'earliest', settle: '30s' });
    row.run('legacy', TOPIC, def, 'alice', '2026-11-01T00:00:00.000Z', '2026-11-01T00:00:00.000Z');
    row.run('legacy-later', TOPIC, def, 'key:bob', '2026-11-02T00:00:00.000Z', '2026-11-02T00:00:00.000Z');
    db.close();
    const env = { TOPICGATE_SCHEMAS: SCHEMA, TOPICGATE_STATE_URL: `sqlite:${file}` };
    old = await buildApp(testConfig({ ...env, TOPICGATE_CONFIG: configFile() }), { logger: false });
  }, 60_000);
  afterAll(() => old?.close());

  it("keep working for their owner; a later load of the same target is refused, and is no one else's to see", async () => {
    const as = (who: Who) => ({ 'x-api-key': KEYS[who] });
    const run = (who: Who, name: string) =>
      old.inject({ method: 'POST', url: `/v1/loads/${name}/runs`, headers: as(who), payload: {} });
    expect((await old.inject({ url: '/v1/loads/legacy', headers: as('alice') })).json()).toMatchObject({
      name: 'legacy',
      definition: { target },
    });
    expect((await run('alice', 'legacy')).json()).toMatchObject({ outcome: 'committed', rows: 60 });
    expect((await old.inject({ url: '/v1/loads/legacy', headers: as('bob') })).statusCode).toBe(404);
    expect(errorOf(await run('bob', 'legacy-later'))).toEqual(taken(target));
    expect(await count(target)).toBe(60);
  });
});

describe('two instances on one PostgreSQL store', () => {
  it('of two principals defining loads of one table at once, on different instances, one holds it', async () => {
    const env = { TOPICGATE_SCHEMAS: SCHEMA, TOPICGATE_STATE_URL: (await pgUp()).url, TOPICGATE_CONFIG: configFile() };
    const [one, two] = await Promise.all([0, 1].map(() => buildApp(testConfig(env), { logger: false })));
    try {
      const target = `${LAKE}.raced`;
      const define = (a: FastifyInstance, who: Who) =>
        a.inject({
          method: 'PUT',
          url: `/v1/loads/race-${id}`,
          headers: headers(who),
          payload: { topic: TOPIC, target },
        });
      const both = await Promise.all([define(one!, 'alice'), define(two!, 'bob')]);
      expect(both.map((r) => r.statusCode).sort(), both.map((r) => r.body).join('\n')).toEqual([201, 409]);
      expect(errorOf(both.find((r) => r.statusCode === 409)!)).toEqual(taken(target));
    } finally {
      await Promise.all([one?.close(), two?.close()]);
    }
  });
});
