/**
 * The load store's contract, on both stores (SQLite, and PostgreSQL in a schema of the test's own): a load is
 * created once with its target's claim, its position moves only from where a run started (compare-and-set, with the
 * run written in the same transaction), runs are listed newest first, deleting takes the runs too and lets go of the
 * target for its owner alone, no two loads hold one target (across instances on PostgreSQL, at once), a store made
 * before claims gives each target to the load that named it first, and one run of a load holds its lock, across
 * instances on PostgreSQL, until released or until its instance's connection is gone.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgUp } from '../../scripts/local-postgres.js';
import type { LoadRun, LoadStore } from '../../src/loads/load-store.js';
import { openLoadStore } from '../../src/loads/open-load-store.js';

const dir = mkdtempSync(join(tmpdir(), 'topicgate-load-store-'));
const schema = `loads_${randomBytes(4).toString('hex')}`;
let pgUrl = '';
beforeAll(async () => {
  pgUrl = (await pgUp()).url;
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  const client = new pg.Client({ connectionString: pgUrl });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await client.end();
});

const run = (name: string, runId: string, startedAt: string, over: Partial<LoadRun> = {}): LoadRun => ({
  name,
  runId,
  from: null,
  until: '2026-11-20 00:00:00.000',
  rows: null,
  queryIds: [],
  startedAt,
  finishedAt: null,
  outcome: 'running',
  error: null,
  ...over,
});

describe.each(['sqlite', 'postgres'])('the load store on %s', (kind) => {
  const open = () =>
    kind === 'sqlite' ? openLoadStore(`sqlite:${join(dir, 'state.db')}`) : openLoadStore(pgUrl, { schema });
  let store: LoadStore;
  beforeAll(async () => {
    store = await open();
  });
  afterAll(() => store.close());
  const def = { name: 'l1', topic: 'orders', definition: '{"topic":"orders"}', position: null, owner: 'o' };
  const fresh = (target: string) => ({ target, tableExists: false });

  it('creates a load once with its claim, reads it back', async () => {
    const first = await store.create(def, fresh('lake.s.l1'));
    expect(first).toMatchObject({ created: true, record: { name: 'l1', position: null, owner: 'o' } });
    const again = await store.create({ ...def, definition: '{}' }, fresh('lake.s.other'));
    expect(again).toMatchObject({ created: false, record: { definition: '{"topic":"orders"}' } });
    expect(await store.get('nope')).toBeNull();
    expect(await store.claimOf('lake.s.l1')).toMatchObject({
      target: 'lake.s.l1',
      load: 'l1',
      owner: 'o',
      created: false,
    });
    // The existing load's second create claimed nothing.
    expect(await store.claimOf('lake.s.other')).toBeNull();
  });

  it("no two loads hold one target; an existing table no load claimed is nobody's to take", async () => {
    expect(await store.create({ ...def, name: 'l1b', owner: 'p' }, fresh('lake.s.l1'))).toEqual({ taken: true });
    expect(await store.create({ ...def, name: 'l1c', owner: 'o' }, fresh('lake.s.l1'))).toEqual({ taken: true });
    expect(await store.create({ ...def, name: 'l1d' }, { target: 'lake.s.theirs', tableExists: true })).toEqual({
      taken: true,
    });
    for (const name of ['l1b', 'l1c', 'l1d']) expect(await store.get(name), name).toBeNull();
    expect(await store.claimOf('lake.s.theirs')).toBeNull();
    expect((await store.claimOf('lake.s.l1'))!.load).toBe('l1');
  });

  it('marks a target made only for the load holding it', async () => {
    expect(await store.markCreated('lake.s.l1', 'l1b', true)).toBe(false);
    expect(await store.markCreated('lake.s.l1', 'l1', true)).toBe(true);
    expect((await store.claimOf('lake.s.l1'))!.created).toBe(true);
    expect(await store.markCreated('lake.s.l1', 'l1', false)).toBe(true);
    expect((await store.claimOf('lake.s.l1'))!.created).toBe(false);
  });

  it('finds the loads of one name, whoever owns them, and no name that merely starts with it', async () => {
    for (const [name, target] of [
      ['n/key%3Aa', 'lake.n.a'],
      ['n/key%3Ab', 'lake.n.b'],
      ['n2/key%3Aa', 'lake.n.c'],
      ['n', 'lake.n.d'],
    ]) {
      expect(await store.create({ ...def, name: name! }, fresh(target!))).toMatchObject({ created: true });
    }
    expect((await store.named('n')).map((l) => l.name)).toEqual(['n', 'n/key%3Aa', 'n/key%3Ab']);
    expect(await store.named('n/')).toEqual([]);
    expect(await store.named('nope')).toEqual([]);
  });

  it('moves the position only from where the run started, writing the run with it', async () => {
    const r = run('l1', 'r1', '2026-12-01T00:00:00.000Z');
    await store.saveRun(r);
    const done = {
      ...r,
      rows: 5,
      queryIds: ['q1', 'q2'],
      outcome: 'committed' as const,
      finishedAt: '2026-12-01T00:00:01.000Z',
    };
    expect(await store.commit('l1', null, '2026-11-20 00:00:00.000', done)).toBe(true);
    expect(await store.commit('l1', null, '2026-11-21 00:00:00.000', { ...done, runId: 'r2' })).toBe(false);
    expect((await store.get('l1'))!.position).toBe('2026-11-20 00:00:00.000');
    const later = run('l1', 'r3', '2026-12-01T00:01:00.000Z', { from: '2026-11-20 00:00:00.000' });
    expect(await store.commit('l1', '2026-11-20 00:00:00.000', '2026-11-22 00:00:00.000', later)).toBe(true);
    const runs = await store.runs('l1', 10);
    expect(runs.map((x) => x.runId)).toEqual(['r3', 'r1']);
    expect(runs[1]).toEqual(done);
    expect(await store.runs('l1', 1)).toHaveLength(1);
  });

  it('one run of a load holds its lock until released', async () => {
    const lock = await store.lock('l1');
    expect(lock).not.toBeNull();
    expect(await store.lock('l1')).toBeNull();
    const other = await store.lock('l2');
    expect(other).not.toBeNull();
    await lock!.release();
    await lock!.release();
    const again = await store.lock('l1');
    expect(again).not.toBeNull();
    await again!.release();
    await other!.release();
  });

  it("deletes a load with its runs; its target stays its owner's, for a later load of that owner only", async () => {
    await store.markCreated('lake.s.l1', 'l1', true);
    expect(await store.delete('l1')).toBe(true);
    expect(await store.delete('l1')).toBe(false);
    expect(await store.runs('l1', 10)).toEqual([]);
    expect(await store.get('l1')).toBeNull();
    expect(await store.claimOf('lake.s.l1')).toMatchObject({ load: null, owner: 'o', created: true });
    const table = { target: 'lake.s.l1', tableExists: true };
    expect(await store.create({ ...def, name: 'theirs', owner: 'p' }, table)).toEqual({ taken: true });
    expect(await store.create({ ...def, name: 'theirs', owner: 'p' }, fresh('lake.s.l1'))).toEqual({ taken: true });
    expect(await store.create({ ...def, name: 'again' }, table)).toMatchObject({ created: true });
    expect(await store.claimOf('lake.s.l1')).toMatchObject({ load: 'again', owner: 'o', created: true });
  });
});

describe('the load store on postgres, claims from several instances at once', () => {
  it('of loads claiming one target at once, one holds it', async () => {
    const stores = await Promise.all([0, 1, 2, 3].map(() => openLoadStore(pgUrl, { schema })));
    try {
      const made = await Promise.all(
        stores.map((s, i) =>
          s.create(
            { name: `race-${i}`, topic: 'orders', definition: '{}', position: null, owner: `o${i}` },
            { target: 'lake.race.t', tableExists: false },
          ),
        ),
      );
      const winners = made.flatMap((m, i) => ('taken' in m ? [] : [i]));
      expect(winners).toHaveLength(1);
      expect((await stores[0]!.claimOf('lake.race.t'))!.load).toBe(`race-${winners[0]}`);
      for (const [i] of made.entries()) {
        expect(await stores[0]!.get(`race-${i}`), `race-${i}`).toEqual(i === winners[0] ? expect.anything() : null);
      }
    } finally {
      await Promise.all(stores.map((s) => s.close()));
    }
  });
});

describe('a load store made before targets were claimed', () => {
  /** The loads table as it was, with three loads: two of one target (the earlier named it first), one of another. */
  const OLD = (table: string) => `CREATE TABLE ${table} (
    name TEXT NOT NULL PRIMARY KEY, topic TEXT NOT NULL, definition TEXT NOT NULL, pos_ts TEXT NULL,
    owner TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL)`;
  const row = (name: string, owner: string, target: string, at: string) =>
    `('${name}', 'orders', '${JSON.stringify({ topic: 'orders', target })}', NULL, '${owner}', '${at}', '${at}')`;
  const ROWS = [
    row('second', 'key:bob', 'lake.old.t', '2026-11-02T00:00:00.000Z'),
    row('first', 'alice', 'lake.old.t', '2026-11-01T00:00:00.000Z'),
    row('own', 'key:carol', 'lake.old.u', '2026-11-03T00:00:00.000Z'),
  ].join(', ');
  const expectClaims = async (store: LoadStore) => {
    expect(await store.claimOf('lake.old.t')).toMatchObject({ load: 'first', owner: 'key:alice', created: true });
    expect(await store.claimOf('lake.old.u')).toMatchObject({ load: 'own', owner: 'key:carol', created: true });
    expect(await store.get('second')).toMatchObject({ owner: 'key:bob' });
  };

  it('SQLite: each target goes to the load that named it first, as made', async () => {
    const file = join(dir, 'old-loads.db');
    const db = new Database(file);
    db.exec(OLD('topicgate_loads'));
    db.exec(`INSERT INTO topicgate_loads VALUES ${ROWS}`);
    db.close();
    for (let i = 0; i < 2; i++) {
      const store = await openLoadStore(`sqlite:${file}`);
      await expectClaims(store);
      await store.close();
    }
  });

  it('PostgreSQL: the same', async () => {
    const old = `${schema}_old`;
    const admin = new pg.Client({ connectionString: pgUrl });
    await admin.connect();
    try {
      await admin.query(`CREATE SCHEMA "${old}"`);
      await admin.query(OLD(`"${old}".topicgate_loads`));
      await admin.query(`INSERT INTO "${old}".topicgate_loads VALUES ${ROWS}`);
      await admin.query(`CREATE TABLE "${old}".topicgate_load_runs (name text, run_id text)`);
      for (let i = 0; i < 2; i++) {
        const store = await openLoadStore(pgUrl, { schema: old });
        await expectClaims(store);
        await store.close();
      }
    } finally {
      await admin.query(`DROP SCHEMA IF EXISTS "${old}" CASCADE`);
      await admin.end();
    }
  });
});

describe('the load store on postgres, several instances', () => {
  it('holds a lock across instances, and an instance that goes away frees its locks', async () => {
    const a = await openLoadStore(pgUrl, { schema });
    const b = await openLoadStore(pgUrl, { schema });
    const held = await a.lock('shared');
    expect(held).not.toBeNull();
    expect(await b.lock('shared')).toBeNull();
    // Its connections closed (the instance killed): the lock goes with its session.
    await a.close();
    // The server ends the session once it sees the connection closed, a moment after the client let go.
    let taken = await b.lock('shared');
    for (let i = 0; !taken && i < 100; i++) {
      await new Promise((r) => setTimeout(r, 100));
      taken = await b.lock('shared');
    }
    expect(taken).not.toBeNull();
    await taken!.release();
    await b.close();
  });
});
