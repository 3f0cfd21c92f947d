/**
 * The load store's contract, on both stores (SQLite, and PostgreSQL in a schema of the test's own): a load is
 * created once, its position moves only from where a run started (compare-and-set, with the run written in the same
 * transaction), runs are listed newest first, deleting takes the runs too, and one run of a load holds its lock,
 * across instances on PostgreSQL, until released or until its instance's connection is gone.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

  it('creates a load once, reads it back', async () => {
    const first = await store.create(def);
    expect(first.created).toBe(true);
    expect(first.record).toMatchObject({ name: 'l1', position: null, owner: 'o' });
    const again = await store.create({ ...def, definition: '{}' });
    expect(again).toMatchObject({ created: false, record: { definition: '{"topic":"orders"}' } });
    expect(await store.get('nope')).toBeNull();
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

  it('deletes a load with its runs', async () => {
    expect(await store.delete('l1')).toBe(true);
    expect(await store.delete('l1')).toBe(false);
    expect(await store.runs('l1', 10)).toEqual([]);
    expect(await store.get('l1')).toBeNull();
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
