/**
 * The cursor store contract (src/cursors/cursor-store.ts), one suite run against both implementations:
 * SQLite on a temp file, and the real local PostgreSQL (scripts/local-postgres.ts) in a schema of this run's own,
 * dropped afterwards. Several gateway instances are simulated by several store instances on the same backing store
 * (separate pools for PostgreSQL, separate connections to one file for SQLite).
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgUp } from '../../scripts/local-postgres.js';
import type { CursorRecord, CursorStore, HistoryEntry, Position } from '../../src/cursors/cursor-store.js';
import { openStore } from '../../src/cursors/open-store.js';
import { PostgresCursorStore } from '../../src/cursors/postgres-store.js';
import { quotePgIdent } from '../../src/state/postgres.js';
import { SqliteCursorStore } from '../../src/cursors/sqlite-store.js';

const RUN = randomBytes(6).toString('hex');
const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** One place cursors are kept (a file, a schema); each open() is another instance on it (another "gateway"). */
interface Backing {
  open(): Promise<CursorStore>;
}

interface Backend {
  /** How many instances the concurrency test spreads its commits over. */
  instances: number;
  setup(): Promise<void>;
  fresh(): Promise<Backing>;
  teardown(): Promise<void>;
}

function sqliteBackend(): Backend {
  let dir = '';
  let n = 0;
  const stores: CursorStore[] = [];
  return {
    instances: 2,
    async setup() {
      dir = mkdtempSync(join(tmpdir(), 'topicgate-cursors-'));
    },
    async fresh() {
      // A directory that does not exist yet: the store creates it.
      const file = join(dir, `backing-${++n}`, 'state', 'cursors.db');
      return {
        async open() {
          const store = new SqliteCursorStore(`sqlite:${file}`);
          stores.push(store);
          await store.init();
          return store;
        },
      };
    },
    async teardown() {
      for (const s of stores) await s.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

function postgresBackend(): Backend {
  let url = '';
  let n = 0;
  const schemas: string[] = [];
  const stores: CursorStore[] = [];
  return {
    instances: 4,
    async setup() {
      // Idempotent: the global setup normally started it already. Never skipped.
      url = (await pgUp()).url;
    },
    async fresh() {
      // A quote and a space in the schema name: every identifier must be quoted.
      const schema = `tg cursors "${RUN}" ${++n}`;
      schemas.push(schema);
      return {
        async open() {
          const store = new PostgresCursorStore(url, { schema, pool: { max: 4 } });
          stores.push(store);
          await store.init();
          return store;
        },
      };
    },
    async teardown() {
      for (const s of stores) await s.close();
      if (!url || schemas.length === 0) return;
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      try {
        for (const s of schemas) await admin.query(`DROP SCHEMA IF EXISTS ${quotePgIdent(s)} CASCADE`);
      } finally {
        await admin.end();
      }
    },
  };
}

const T0 = '2026-11-01 06:00:00.000';
const T1 = '2026-11-01 06:05:00.000';
const T2 = '2026-11-01 06:10:00.000';
const T3 = '2026-11-01 06:15:00.000';
const P0: Position = { ts: T0, skip: 0 };
const P1: Position = { ts: T1, skip: 2 };
const P2: Position = { ts: T2, skip: 0 };
const P3: Position = { ts: T3, skip: 1 };
const START: Position = { ts: null, skip: 0 };

function cursor(
  name: string,
  over: Partial<Omit<CursorRecord, 'createdAt' | 'updatedAt'>> = {},
): Omit<CursorRecord, 'createdAt' | 'updatedAt'> {
  return {
    name,
    topic: 'orders',
    definition: JSON.stringify({ topic: 'orders', start: 'earliest', settle: '30s' }),
    position: START,
    generation: 0,
    pending: null,
    owner: 'loader-1',
    incarnation: `inc-${name}`,
    ...over,
  };
}

function entry(
  name: string,
  batchId: string,
  from: Position,
  to: Position,
  rows: number,
  committedAt = '2026-11-30T10:00:00.000Z',
): HistoryEntry {
  return { name, batchId, from, to, rows, committedAt };
}

describe.each([
  ['SQLite', sqliteBackend()],
  ['PostgreSQL', postgresBackend()],
] as const)('%s cursor store', (_label, backend) => {
  let backing: Backing;
  let store: CursorStore;

  beforeAll(async () => {
    await backend.setup();
    backing = await backend.fresh();
    store = await backing.open();
  });

  afterAll(async () => {
    await backend.teardown();
  });

  it('knows nothing of an unknown cursor', async () => {
    expect(await store.get('unknown')).toBeNull();
    expect(await store.history('unknown', 10)).toEqual([]);
    expect(await store.findBatch('unknown', 'b1')).toBeNull();
    expect(await store.setPending('unknown', 0, '{}')).toBe(false);
    expect(await store.commit('unknown', 0, START, P1, entry('unknown', 'b1', START, P1, 1))).toBe(false);
    expect(await store.seek('unknown', P1)).toBe(false);
    expect(await store.delete('unknown')).toBe(false);
    expect(await store.get('unknown')).toBeNull();
    expect(await store.history('unknown', 10)).toEqual([]);
  });

  it('creates a cursor once: a second create returns created:false and the original record', async () => {
    const before = Date.now();
    const first = await store.create(cursor('c-create', { position: P1, generation: 3, pending: '{"p":1}' }));
    const after = Date.now();
    expect(first).toEqual({
      created: true,
      record: {
        name: 'c-create',
        topic: 'orders',
        definition: '{"topic":"orders","start":"earliest","settle":"30s"}',
        position: { ts: T1, skip: 2 },
        generation: 3,
        pending: '{"p":1}',
        owner: 'loader-1',
        incarnation: 'inc-c-create',
        createdAt: expect.stringMatching(ISO_MS),
        updatedAt: expect.stringMatching(ISO_MS),
      },
    });
    expect(first.record.updatedAt).toBe(first.record.createdAt);
    const created = Date.parse(first.record.createdAt);
    expect(created).toBeGreaterThanOrEqual(before - 2000);
    expect(created).toBeLessThanOrEqual(after + 2000);
    expect(await store.get('c-create')).toEqual(first.record);

    const second = await store.create(
      cursor('c-create', {
        topic: 'payments',
        definition: '{"other":true}',
        position: P3,
        generation: 0,
        owner: 'someone-else',
        incarnation: 'other',
      }),
    );
    expect(second).toEqual({ created: false, record: first.record });
    expect(await store.get('c-create')).toEqual(first.record);
  });

  it('named: the cursor stored under a name and those keyed under it by owner, nothing else', async () => {
    for (const k of ['nm', 'nm/key%3Aa', 'nm/jwt%3Ax', 'nm-2/key%3Aa', 'nmx', 'n_/key%3Aa', 'n%'])
      await store.create(cursor(k));
    expect((await store.named('nm')).map((c) => c.name)).toEqual(['nm', 'nm/jwt%3Ax', 'nm/key%3Aa']);
    // Wildcards of LIKE are plain characters here.
    expect((await store.named('n_')).map((c) => c.name)).toEqual(['n_/key%3Aa']);
    expect((await store.named('n%')).map((c) => c.name)).toEqual(['n%']);
    expect(await store.named('n')).toEqual([]);
    expect((await store.named('nm'))[1]).toEqual(await store.get('nm/jwt%3Ax'));
  });

  it('sets the pending batch only in the current generation', async () => {
    const { record } = await store.create(cursor('c-pending', { position: P0 }));
    expect(await store.setPending('c-pending', 1, '{"batch":"wrong"}')).toBe(false);
    expect(await store.get('c-pending')).toEqual(record);

    expect(await store.setPending('c-pending', 0, '{"batch":"b1"}')).toBe(true);
    const pending = await store.get('c-pending');
    expect(pending).toEqual({ ...record, pending: '{"batch":"b1"}', updatedAt: expect.stringMatching(ISO_MS) });
    expect(Date.parse(pending!.updatedAt)).toBeGreaterThanOrEqual(Date.parse(record.createdAt));

    expect(await store.setPending('c-pending', 0, null)).toBe(true);
    expect((await store.get('c-pending'))?.pending).toBeNull();
  });

  it('commits as a compare-and-set on generation and position', async () => {
    const { record } = await store.create(cursor('c-commit', { position: P0 }));
    expect(await store.setPending('c-commit', 0, '{"batch":"b1"}')).toBe(true);
    const e1 = entry('c-commit', 'b1', P0, P1, 10);

    expect(await store.commit('c-commit', 0, { ts: T0, skip: 1 }, P1, e1)).toBe(false); // other skip
    expect(await store.commit('c-commit', 0, { ts: '2026-11-01 06:00:00.001', skip: 0 }, P1, e1)).toBe(false);
    expect(await store.commit('c-commit', 0, START, P1, e1)).toBe(false); // null is not T0
    expect(await store.commit('c-commit', 1, P0, P1, e1)).toBe(false); // other generation
    const unchanged = await store.get('c-commit');
    expect(unchanged).toMatchObject({ position: P0, generation: 0, pending: '{"batch":"b1"}' });
    expect(await store.history('c-commit', 10)).toEqual([]);
    expect(await store.findBatch('c-commit', 'b1')).toBeNull();

    expect(await store.commit('c-commit', 0, P0, P1, e1)).toBe(true);
    const moved = await store.get('c-commit');
    expect(moved).toEqual({
      ...record,
      position: { ts: T1, skip: 2 },
      pending: null,
      updatedAt: expect.stringMatching(ISO_MS),
    });
    expect(await store.history('c-commit', 10)).toEqual([
      { name: 'c-commit', batchId: 'b1', from: P0, to: P1, rows: 10, committedAt: '2026-11-30T10:00:00.000Z' },
    ]);

    // The same commit again: the cursor is no longer at P0.
    expect(await store.commit('c-commit', 0, P0, P1, e1)).toBe(false);
    expect(await store.commit('c-commit', 0, P0, P2, entry('c-commit', 'b1x', P0, P2, 5))).toBe(false);
    expect((await store.get('c-commit'))?.position).toEqual(P1);
    expect(await store.history('c-commit', 10)).toEqual([e1]);
  });

  it('lists the history newest first, per cursor, limited; findBatch finds one batch', async () => {
    await store.create(cursor('c-hist'));
    await store.create(cursor('c-hist-other'));
    const e1 = entry('c-hist', 'b1', START, P0, 3, '2026-11-30T10:00:00.000Z');
    const e2 = entry('c-hist', 'b2', P0, P1, 7, '2026-11-30T10:01:00.000Z');
    // The same instant as e2: order is still the commit order.
    const e3 = entry('c-hist', 'b3', P1, P2, 0, '2026-11-30T10:01:00.000Z');
    const other = entry('c-hist-other', 'b1', START, P3, 99, '2026-11-30T11:00:00.000Z');
    expect(await store.commit('c-hist', 0, START, P0, e1)).toBe(true);
    expect(await store.commit('c-hist-other', 0, START, P3, other)).toBe(true);
    expect(await store.commit('c-hist', 0, P0, P1, e2)).toBe(true);
    expect(await store.commit('c-hist', 0, P1, P2, e3)).toBe(true);

    expect(await store.history('c-hist', 10)).toEqual([e3, e2, e1]);
    expect(await store.history('c-hist', 2)).toEqual([e3, e2]);
    expect(await store.history('c-hist', 0)).toEqual([]);
    expect(await store.history('c-hist-other', 10)).toEqual([other]);

    expect(await store.findBatch('c-hist', 'b2')).toEqual(e2);
    expect(await store.findBatch('c-hist', 'b1')).toEqual(e1);
    expect(await store.findBatch('c-hist-other', 'b1')).toEqual(other);
    expect(await store.findBatch('c-hist', 'b4')).toBeNull();
    expect(await store.findBatch('c-hist-other', 'b2')).toBeNull();
  });

  it('seek sets the position, bumps the generation and clears the pending batch; older tokens fail', async () => {
    await store.create(cursor('c-seek', { position: P0 }));
    const e1 = entry('c-seek', 'b1', P0, P1, 4);
    expect(await store.commit('c-seek', 0, P0, P1, e1)).toBe(true);
    expect(await store.setPending('c-seek', 0, '{"batch":"b2"}')).toBe(true);
    const before = await store.get('c-seek');

    const S: Position = { ts: '2026-10-01 00:00:00.000', skip: 0 };
    expect(await store.seek('c-seek', S)).toBe(true);
    const sought = await store.get('c-seek');
    expect(sought).toEqual({ ...before, position: S, generation: 1, pending: null, updatedAt: expect.any(String) });

    // A token of generation 0 fails even where it would fit the position.
    expect(await store.setPending('c-seek', 0, '{"batch":"old"}')).toBe(false);
    expect(await store.commit('c-seek', 0, P1, P2, entry('c-seek', 'b2', P1, P2, 1))).toBe(false);
    expect(await store.commit('c-seek', 0, S, P2, entry('c-seek', 'b2', S, P2, 1))).toBe(false);
    expect(await store.get('c-seek')).toEqual(sought);
    expect(await store.history('c-seek', 10)).toEqual([e1]);

    const e2 = entry('c-seek', 'b3', S, P2, 6, '2026-11-30T10:05:00.000Z');
    expect(await store.setPending('c-seek', 1, '{"batch":"b3"}')).toBe(true);
    expect(await store.commit('c-seek', 1, S, P2, e2)).toBe(true);
    expect(await store.get('c-seek')).toMatchObject({ position: P2, generation: 1, pending: null });
    expect(await store.history('c-seek', 10)).toEqual([e2, e1]);

    expect(await store.seek('c-seek', P2)).toBe(true);
    expect(await store.get('c-seek')).toMatchObject({ position: P2, generation: 2, pending: null });
  });

  it('a batch id committed again (after a seek back) replaces its entry and becomes the newest', async () => {
    await store.create(cursor('c-again'));
    const first = entry('c-again', 'same', START, P1, 5, '2026-11-30T10:00:00.000Z');
    const between = entry('c-again', 'mid', P1, P2, 1, '2026-11-30T10:01:00.000Z');
    expect(await store.commit('c-again', 0, START, P1, first)).toBe(true);
    expect(await store.commit('c-again', 0, P1, P2, between)).toBe(true);
    expect(await store.seek('c-again', START)).toBe(true);
    const again = entry('c-again', 'same', START, P3, 8, '2026-11-30T10:02:00.000Z');
    expect(await store.commit('c-again', 1, START, P3, again)).toBe(true);
    expect(await store.history('c-again', 10)).toEqual([again, between]);
    expect(await store.findBatch('c-again', 'same')).toEqual(again);
  });

  it('delete removes the cursor and its history, and nothing else', async () => {
    await store.create(cursor('c-del'));
    await store.create(cursor('c-keep'));
    expect(await store.commit('c-del', 0, START, P0, entry('c-del', 'b1', START, P0, 1))).toBe(true);
    expect(await store.commit('c-del', 0, P0, P1, entry('c-del', 'b2', P0, P1, 1))).toBe(true);
    const kept = entry('c-keep', 'b1', START, P0, 1);
    expect(await store.commit('c-keep', 0, START, P0, kept)).toBe(true);

    expect(await store.delete('c-del')).toBe(true);
    expect(await store.get('c-del')).toBeNull();
    expect(await store.history('c-del', 10)).toEqual([]);
    expect(await store.findBatch('c-del', 'b1')).toBeNull();
    expect(await store.delete('c-del')).toBe(false);
    // A token from before the delete does not revive anything.
    expect(await store.commit('c-del', 0, P1, P2, entry('c-del', 'b3', P1, P2, 1))).toBe(false);
    expect(await store.history('c-del', 10)).toEqual([]);

    expect(await store.get('c-keep')).toMatchObject({ position: P0 });
    expect(await store.history('c-keep', 10)).toEqual([kept]);

    const again = await store.create(cursor('c-del'));
    expect(again).toMatchObject({ created: true, record: { position: START, generation: 0, pending: null } });
    expect(await store.history('c-del', 10)).toEqual([]);
  });

  it('pruneHistory forgets only the entries committed before the instant', async () => {
    await store.create(cursor('c-prune'));
    const e1 = entry('c-prune', 'b1', START, P0, 1, '1990-01-01T00:00:00.000Z');
    const e2 = entry('c-prune', 'b2', P0, P1, 2, '1990-01-02T00:00:00.000Z');
    const e3 = entry('c-prune', 'b3', P1, P2, 3, '1990-01-03T00:00:00.000Z');
    expect(await store.commit('c-prune', 0, START, P0, e1)).toBe(true);
    expect(await store.commit('c-prune', 0, P0, P1, e2)).toBe(true);
    expect(await store.commit('c-prune', 0, P1, P2, e3)).toBe(true);
    const others = await store.history('c-commit', 10);
    expect(others).toHaveLength(1);

    expect(await store.pruneHistory('1989-12-31T23:59:59.999Z')).toBe(0);
    // Strictly before: the entry committed at that very instant stays.
    expect(await store.pruneHistory('1990-01-02T00:00:00.000Z')).toBe(1);
    expect(await store.history('c-prune', 10)).toEqual([e3, e2]);
    expect(await store.pruneHistory('1990-01-02T00:00:00.001Z')).toBe(1);
    expect(await store.history('c-prune', 10)).toEqual([e3]);
    // An offset is an instant like any other: 1990-01-03T01:00+02:00 is 1990-01-02T23:00Z, before e3.
    expect(await store.pruneHistory('1990-01-03T01:00:00+02:00')).toBe(0);
    expect(await store.history('c-prune', 10)).toEqual([e3]);
    expect(await store.findBatch('c-prune', 'b1')).toBeNull();
    // The cursor itself and newer entries of other cursors are untouched.
    expect(await store.get('c-prune')).toMatchObject({ position: P2 });
    expect(await store.history('c-commit', 10)).toEqual(others);
  });

  it('keeps committedAt as a normalised ISO instant and rejects instants without a zone', async () => {
    await store.create(cursor('c-instant'));
    const e = entry('c-instant', 'b1', START, P0, 1, '2026-11-30T12:00:00+02:00');
    expect(await store.commit('c-instant', 0, START, P0, e)).toBe(true);
    expect(await store.findBatch('c-instant', 'b1')).toEqual({ ...e, committedAt: '2026-11-30T10:00:00.000Z' });
    await expect(store.pruneHistory('2026-11-30 10:00:00')).rejects.toThrow(/zone/);
    await expect(
      store.commit('c-instant', 0, P0, P1, entry('c-instant', 'b2', P0, P1, 1, 'yesterday')),
    ).rejects.toThrow(/zone/);
    expect((await store.get('c-instant'))?.position).toEqual(P0);
  });

  it('round-trips positions at the beginning (ts null), distinct from any text', async () => {
    const { record } = await store.create(cursor('c-null'));
    expect(record.position).toEqual({ ts: null, skip: 0 });
    expect((await store.get('c-null'))?.position).toEqual({ ts: null, skip: 0 });

    const toNull5: Position = { ts: null, skip: 5 };
    expect(await store.commit('c-null', 0, { ts: '', skip: 0 }, toNull5, entry('c-null', 'x', START, toNull5, 5))).toBe(
      false,
    );
    expect(
      await store.commit('c-null', 0, { ts: 'null', skip: 0 }, toNull5, entry('c-null', 'x', START, toNull5, 5)),
    ).toBe(false);
    const e1 = entry('c-null', 'b1', START, toNull5, 5);
    expect(await store.commit('c-null', 0, START, toNull5, e1)).toBe(true);
    expect((await store.get('c-null'))?.position).toEqual({ ts: null, skip: 5 });
    const e2 = entry('c-null', 'b2', toNull5, P0, 1);
    expect(await store.commit('c-null', 0, START, P0, e2)).toBe(false); // skip 0 is not skip 5
    expect(await store.commit('c-null', 0, toNull5, P0, e2)).toBe(true);
    expect(await store.history('c-null', 10)).toEqual([
      { name: 'c-null', batchId: 'b2', from: { ts: null, skip: 5 }, to: P0, rows: 1, committedAt: e2.committedAt },
      {
        name: 'c-null',
        batchId: 'b1',
        from: { ts: null, skip: 0 },
        to: { ts: null, skip: 5 },
        rows: 5,
        committedAt: e1.committedAt,
      },
    ]);
    expect(await store.seek('c-null', START)).toBe(true);
    expect(await store.get('c-null')).toMatchObject({ position: { ts: null, skip: 0 }, generation: 1 });

    // An empty-string ts is a position of its own, not the beginning.
    await store.create(cursor('c-empty-ts', { position: { ts: '', skip: 0 } }));
    expect((await store.get('c-empty-ts'))?.position).toEqual({ ts: '', skip: 0 });
    expect(await store.commit('c-empty-ts', 0, START, P0, entry('c-empty-ts', 'b1', START, P0, 1))).toBe(false);
    const e = entry('c-empty-ts', 'b1', { ts: '', skip: 0 }, P0, 1);
    expect(await store.commit('c-empty-ts', 0, { ts: '', skip: 0 }, P0, e)).toBe(true);
    expect(await store.findBatch('c-empty-ts', 'b1')).toEqual(e);
  });

  it('treats names and values with quotes, unicode and SQL as plain data', async () => {
    const names = [
      "it's",
      'say "hi"',
      "x'; DROP TABLE topicgate_cursors; --",
      'Robert"); DROP TABLE topicgate_cursor_history; --',
      'ünïcødé 名前 🚀',
      'back\\slash\\',
      '%_ like *',
      ' spaced ',
      '$1 ?',
    ];
    for (const name of names) {
      const definition = JSON.stringify({ topic: name, filter: { q: 'a\'b"c' } });
      const r = await store.create(cursor(name, { topic: name, definition, pending: `'"${name}` }));
      expect(r).toMatchObject({ created: true, record: { name, topic: name, definition, pending: `'"${name}` } });
      expect(await store.get(name)).toEqual(r.record);
      const to: Position = { ts: `'${name}"`, skip: 1 };
      const e = entry(name, `batch ${name} '"`, START, to, 1);
      expect(await store.setPending(name, 0, name)).toBe(true);
      expect(await store.commit(name, 0, START, to, e)).toBe(true);
      expect(await store.get(name)).toMatchObject({ name, position: to, pending: null });
      expect(await store.history(name, 10)).toEqual([e]);
      expect(await store.findBatch(name, e.batchId)).toEqual(e);
    }
    // No pattern semantics anywhere.
    expect(await store.get('%')).toBeNull();
    expect(await store.get('%_ like %')).toBeNull();
    expect(await store.history('%', 10)).toEqual([]);
    // The tables are intact and the other cursors still there.
    expect(await store.get('c-commit')).toMatchObject({ position: P1 });
    for (const name of names) expect(await store.delete(name)).toBe(true);
    for (const name of names) expect(await store.get(name)).toBeNull();
    expect(await store.history('c-commit', 10)).toHaveLength(1);
  });

  it('another instance on the same backing store sees the same state', async () => {
    const other = await backing.open();
    expect(await other.get('c-create')).toEqual(await store.get('c-create'));
    expect(await other.history('c-hist', 10)).toEqual(await store.history('c-hist', 10));
    // init() is idempotent.
    await other.init();
    await store.init();
    expect(await other.get('c-seek')).toMatchObject({ generation: 2 });
  });

  it('of 20 concurrent commits from one position, across instances, exactly one wins, round after round', async () => {
    // A fresh backing store: the instances also race to create the schema.
    const fresh = await backend.fresh();
    const instances = await Promise.all(Array.from({ length: backend.instances }, () => fresh.open()));
    const name = 'c-race';
    expect((await instances[0]!.create(cursor(name))).created).toBe(true);

    let at: Position = START;
    const winners: HistoryEntry[] = [];
    for (let round = 0; round < 3; round++) {
      const entries = Array.from({ length: 20 }, (_, i) => {
        const to: Position = { ts: `2026-11-01 0${7 + round}:00:${String(i).padStart(2, '0')}.000`, skip: i };
        return entry(name, `r${round}-b${i}`, at, to, i + 1);
      });
      const results = await Promise.all(
        entries.map((e, i) => instances[i % instances.length]!.commit(name, 0, at, e.to, e)),
      );
      expect(results.filter((r) => r)).toHaveLength(1);
      const won = entries[results.indexOf(true)]!;
      winners.unshift(won);
      for (const s of instances) {
        expect(await s.get(name)).toMatchObject({ position: won.to, generation: 0 });
        expect(await s.history(name, 100)).toEqual(winners);
      }
      at = won.to;
    }
  });
});

describe('openStore', () => {
  let dir: string;
  let pgUrl: string;
  const schema = `tg_open_store_${RUN}`;
  const stores: CursorStore[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'topicgate-open-store-'));
    pgUrl = (await pgUp()).url;
  });

  afterAll(async () => {
    for (const s of stores) await s.close();
    rmSync(dir, { recursive: true, force: true });
    const admin = new pg.Client({ connectionString: pgUrl });
    await admin.connect();
    await admin.query(`DROP SCHEMA IF EXISTS ${quotePgIdent(schema)} CASCADE`).finally(() => admin.end());
  });

  it('opens sqlite:<file> in WAL mode, creating the directory and the schema', async () => {
    const file = join(dir, 'a', 'b', 'state.db');
    const store = await openStore(`sqlite:${file}`);
    stores.push(store);
    expect(store).toBeInstanceOf(SqliteCursorStore);
    expect(existsSync(file)).toBe(true);
    expect((await store.create(cursor('x'))).created).toBe(true);
    const raw = new Database(file, { readonly: true });
    try {
      expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
      const tables = raw.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all();
      expect(tables).toEqual(['topicgate_cursor_history', 'topicgate_cursors']);
    } finally {
      raw.close();
    }
  });

  it('opens sqlite::memory:', async () => {
    const store = await openStore('sqlite::memory:');
    stores.push(store);
    expect(store).toBeInstanceOf(SqliteCursorStore);
    expect((await store.create(cursor('m'))).created).toBe(true);
    expect((await store.get('m'))?.name).toBe('m');
  });

  it('opens postgres:// and postgresql:// URLs', async () => {
    const a = await openStore(pgUrl, { postgres: { schema, pool: { max: 2 } } });
    stores.push(a);
    expect(a).toBeInstanceOf(PostgresCursorStore);
    expect((await a.create(cursor('p'))).created).toBe(true);
    const b = await openStore(pgUrl.replace(/^postgres:/, 'postgresql:'), { postgres: { schema, pool: { max: 2 } } });
    stores.push(b);
    expect(b).toBeInstanceOf(PostgresCursorStore);
    expect(await b.get('p')).toEqual(await a.get('p'));
  });

  it('rejects other schemes without echoing the URL', async () => {
    await expect(openStore('mysql://user:s3cret@host/db')).rejects.toThrow(/unsupported state URL scheme mysql:/);
    await expect(openStore('mysql://user:s3cret@host/db')).rejects.not.toThrow(/s3cret/);
    await expect(openStore('/var/lib/state.db')).rejects.toThrow(/unsupported/);
    await expect(openStore('sqlite:')).rejects.toThrow(/names no file/);
  });
});

describe('a store made before cursor ownership', () => {
  /** The cursors table as it was: no owner, no incarnation. */
  const OLD = (table: string) => `CREATE TABLE ${table} (
    name TEXT NOT NULL PRIMARY KEY, topic TEXT NOT NULL, definition TEXT NOT NULL, pos_ts TEXT NULL,
    pos_skip INTEGER NOT NULL, generation INTEGER NOT NULL, pending TEXT NULL,
    created_at TEXT NOT NULL, updated_at TEXT NOT NULL)`;
  const ROW = `('old', 'orders', '{}', NULL, 0, 0, NULL, '2026-11-01T00:00:00.000Z', '2026-11-01T00:00:00.000Z')`;

  it('SQLite: gains the columns; an old cursor belongs to anonymous, with no incarnation', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'topicgate-old-'));
    try {
      const file = join(dir, 'old.db');
      const db = new Database(file);
      db.exec(OLD('topicgate_cursors'));
      db.exec(`INSERT INTO topicgate_cursors VALUES ${ROW}`);
      db.close();
      for (let i = 0; i < 2; i++) {
        const store = new SqliteCursorStore(`sqlite:${file}`);
        await store.init();
        expect(await store.get('old')).toMatchObject({ name: 'old', owner: 'anonymous', incarnation: '' });
        await store.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('PostgreSQL: the same', async () => {
    const url = (await pgUp()).url;
    const schema = `tg old ${RUN}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      await admin.query(`CREATE SCHEMA ${quotePgIdent(schema)}`);
      const table = `${quotePgIdent(schema)}.topicgate_cursors`;
      await admin.query(
        OLD(table)
          .replace(/created_at TEXT/, 'created_at timestamptz')
          .replace(/updated_at TEXT/, 'updated_at timestamptz'),
      );
      await admin.query(`INSERT INTO ${table} VALUES ${ROW}`);
      // Both tables exist, as in a store that has run before: the columns must still be added.
      await admin.query(
        `CREATE TABLE ${quotePgIdent(schema)}.topicgate_cursor_history (name text, batch_id text, seq bigint, committed_at timestamptz)`,
      );
      for (let i = 0; i < 2; i++) {
        const store = new PostgresCursorStore(url, { schema });
        await store.init();
        expect(await store.get('old')).toMatchObject({ name: 'old', owner: 'anonymous', incarnation: '' });
        await store.close();
      }
    } finally {
      await admin.query(`DROP SCHEMA IF EXISTS ${quotePgIdent(schema)} CASCADE`);
      await admin.end();
    }
  });
});
