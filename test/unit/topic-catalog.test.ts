/**
 * The catalog's listing (read/topic-catalog.ts): kept for its time to live, then answered from the last listing
 * while the next one loads (no request waits for Trino's metadata), until it is too old to answer; a model per
 * listed table, built once per listing.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TopicCatalog } from '../../src/read/topic-catalog.js';
import type { TrinoPort, TrinoRows } from '../../src/trino/trino-port.js';

const TTL = 1000;
const LAYOUT = [
  ['key', 'varbinary'],
  ['value', 'varbinary'],
  ['timestamp_broker', 'timestamp(3)'],
];

/** A port whose `all` answers the listing of these tables, each call held until `release()` (or failing). */
function listingPort() {
  const state = { calls: 0, tables: ['orders'], fail: false, pending: [] as (() => void)[] };
  const all = async (): Promise<TrinoRows> => {
    state.calls++;
    await new Promise<void>((resolve) => state.pending.push(resolve));
    if (state.fail) throw new Error('Trino is not reachable');
    const rows = state.tables.flatMap((t) => LAYOUT.map(([c, type]) => ['demo', t, c, type]));
    return { columns: [], rows };
  };
  const release = async () => {
    for (const r of state.pending.splice(0)) r();
    await new Promise((r) => setImmediate(r));
  };
  return { state, release, port: { all } as unknown as TrinoPort };
}

const config = { catalog: 'vast', schemas: ['demo'], topics: {} };
let now = 0;
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime((now = 1_000_000));
});
afterEach(() => vi.useRealTimers());
const later = (ms: number) => vi.setSystemTime((now += ms));

/** Loads the first listing. */
async function loaded() {
  const t = listingPort();
  const catalog = new TopicCatalog(t.port, config, TTL);
  const first = catalog.tables();
  await t.release();
  expect([...(await first).keys()]).toEqual(['orders']);
  return { ...t, catalog };
}

describe('the listing', () => {
  it('is kept for its time to live: no query', async () => {
    const { state, catalog } = await loaded();
    later(TTL - 1);
    expect([...(await catalog.tables()).keys()]).toEqual(['orders']);
    expect(state.calls).toBe(1);
  });

  it('past it, the last listing answers at once while the next loads; then the next answers', async () => {
    const { state, catalog, release } = await loaded();
    state.tables = ['orders', 'clicks'];
    later(TTL);
    // Not held by the load in flight (which `release` has not let finish).
    expect([...(await catalog.tables()).keys()]).toEqual(['orders']);
    expect([...(await catalog.tables()).keys()]).toEqual(['orders']);
    expect(state.calls).toBe(2); // one load for both
    await release();
    expect([...(await catalog.tables()).keys()]).toEqual(['orders', 'clicks']);
    expect(state.calls).toBe(2);
  });

  it('a failed load is tried again by the next request; a listing too old is waited for, and its failure thrown', async () => {
    const { state, catalog, release } = await loaded();
    state.fail = true;
    later(TTL);
    expect([...(await catalog.tables()).keys()]).toEqual(['orders']);
    await release();
    expect([...(await catalog.tables()).keys()]).toEqual(['orders']);
    expect(state.calls).toBe(3);
    await release();
    later(TTL * 6);
    const waited = expect(catalog.tables()).rejects.toThrow('not reachable');
    await release();
    await waited;
    state.fail = false;
    const next = catalog.get('orders');
    await release();
    expect((await next).id).toBe('orders');
  });
});

describe('model', () => {
  it('is the same object for as long as the listing lasts, and a new one with the next listing', async () => {
    const { catalog, release } = await loaded();
    const m = await catalog.model('orders');
    expect(m.id).toBe('orders');
    expect(m.time?.name).toBe('timestamp_broker');
    expect(await catalog.model('orders')).toBe(m);
    later(TTL);
    await catalog.tables();
    await release();
    const next = await catalog.model('orders');
    expect(next).not.toBe(m);
    expect(next).toEqual(m);
    await expect(catalog.model('nosuch')).rejects.toMatchObject({ code: 'TG_TOPIC_NOT_FOUND' });
  });
});
