/**
 * The per-caller limits counted in PostgreSQL (access/pg-query-slots.ts, access/pg-rate-store.ts), against the real
 * local PostgreSQL, each "instance" a pool of its own as two gateways would have: query slots are exclusive across
 * pools, all or none, free again when their holder gives them back or its connection dies; request counts lose no
 * concurrent increment; an unreachable store is a 503 TG_STATE_UNAVAILABLE, never "unlimited".
 */
import { randomBytes } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgUp } from '../../scripts/local-postgres.js';
import { PgQuerySlots } from '../../src/access/pg-query-slots.js';
import { PgRateCounts } from '../../src/access/pg-rate-store.js';
import { ApiError } from '../../src/core/errors.js';
import { storeTimeouts } from '../../src/state/store-failures.js';
import Fastify from 'fastify';
import { sharedQuotas } from '../../src/access/shared-quotas.js';
import { loadConfig } from '../../src/server/load-config.js';
import errorsPlugin from '../../src/server/plugins/error-plugin.js';
import accessPlugin from '../../src/server/plugins/access-plugin.js';
import { FakeTrinoPort } from '../fakes/fake-trino-port.js';

let url = '';
const run = randomBytes(4).toString('hex');
const pools: pg.Pool[] = [];
const slotSets: PgQuerySlots[] = [];

beforeAll(async () => {
  url = (await pgUp()).url;
});
afterAll(async () => {
  // A pool ends once every hold has given its connection back: a hold left open would hang here.
  await Promise.all([...slotSets.map((s) => s.close()), ...pools.map((p) => p.end())]);
}, 20_000);

/** An instance's query slots (its own pool), named so the test can find its connections. */
function slots(limit: number, name = 'topicgate-slots-test', stateUrl = url): PgQuerySlots {
  const s = new PgQuerySlots({
    limit,
    waitMs: 0,
    namespace: `test-${run}`,
    pool: { ...storeTimeouts(2_000), connectionString: stateUrl, application_name: name, max: 8 },
  });
  slotSets.push(s);
  return s;
}

function counts(stateUrl = url): PgRateCounts {
  const pool = new pg.Pool({ ...storeTimeouts(2_000), connectionString: stateUrl, max: 4 });
  pool.on('error', () => {});
  pools.push(pool);
  return new PgRateCounts(pool, 'public');
}

/** A closed port: nothing listens there. */
const DOWN_URL = 'postgres://topicgate:topicgate@127.0.0.1:9/topicgate';

describe('query slots in PostgreSQL (advisory locks)', () => {
  it('are exclusive across instances, per caller, and free again when given back', async () => {
    const [a, b] = [slots(2), slots(2)];
    const held = [a.open('alice'), b.open('alice')];
    expect(await held[0]!.take(1)).toBe(true);
    expect(await held[1]!.take(1)).toBe(true);
    const third = a.open('alice');
    expect(await third.take(1)).toBe(false);
    // Another caller has its own slots.
    const bob = b.open('bob');
    expect(await bob.take(2)).toBe(true);
    await held[1]!.release();
    await held[1]!.release(); // twice: nothing more
    expect(await third.take(1)).toBe(true);
    await Promise.all([held[0]!.release(), third.release(), bob.release()]);
  });

  it('takes n slots all or none, and a hold grows', async () => {
    const [a, b] = [slots(3), slots(3)];
    const one = a.open('carol');
    expect(await one.take(1)).toBe(true);
    const three = b.open('carol');
    expect(await three.take(3)).toBe(false);
    await three.release();
    // The failed take left the two free slots free.
    const two = b.open('carol');
    expect(await two.take(2)).toBe(true);
    expect(await one.take(2)).toBe(false); // one grows to two: none left
    await two.release();
    expect(await one.take(3)).toBe(true);
    await one.release();
  });

  it("frees a slot when its holder's connection dies (an instance killed)", async () => {
    const dying = slots(1, `topicgate-slots-dying-${run}`);
    const held = dying.open('dave');
    expect(await held.take(1)).toBe(true);
    const other = slots(1).open('dave');
    expect(await other.take(1)).toBe(false);
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [
        `topicgate-slots-dying-${run}`,
      ]);
    } finally {
      await admin.end();
    }
    await expect.poll(() => other.take(1), { timeout: 10_000 }).toBe(true);
    await other.release();
    await held.release(); // its connection is gone: given back without a word
  });

  it('an unreachable store is a 503 TG_STATE_UNAVAILABLE', async () => {
    const err = await slots(2, 'topicgate-slots-down', DOWN_URL)
      .open('erin')
      .take(1)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe('TG_STATE_UNAVAILABLE');
  });
});

describe('request counts in PostgreSQL (one upsert a request)', () => {
  it('counts one window per key across instances, losing no concurrent request', async () => {
    const [a, b] = [counts(), counts()];
    const key = `principal:frank-${run}`;
    const got = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).increment(key, 60_000)));
    expect(got.map((g) => g.current).sort((x, y) => x - y)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    for (const g of got) expect(g.ttl).toBeGreaterThan(0);
    for (const g of got) expect(g.ttl).toBeLessThanOrEqual(60_000);
    expect((await a.increment(`principal:grace-${run}`, 60_000)).current).toBe(1);
  });

  it('starts a new window once the last one is over', async () => {
    const c = counts();
    const key = `principal:heidi-${run}`;
    expect((await c.increment(key, 1)).current).toBe(1);
    await new Promise((r) => setTimeout(r, 20));
    expect((await c.increment(key, 60_000)).current).toBe(1);
    expect((await c.increment(key, 60_000)).current).toBe(2);
  });

  it("the plugin's store reports an unreachable store as 503 TG_STATE_UNAVAILABLE", async () => {
    const Store = counts(DOWN_URL).storeClass();
    const store = new Store({});
    const err = await new Promise((resolve) => store.incr('principal:ivan', (e) => resolve(e), 60_000, 10));
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe('TG_STATE_UNAVAILABLE');
  });
});

describe('the gateway with its limits counted in an unreachable store', () => {
  it('answers 503 TG_STATE_UNAVAILABLE with Retry-After: neither limit is skipped', async () => {
    for (const limits of ['requestsPerMinute: 100', 'concurrentQueries: 2']) {
      const file = `/tmp/topicgate-shared-quotas-${run}.yaml`;
      writeFileSync(file, `limits: { ${limits} }\n`);
      const config = loadConfig({
        TOPICGATE_CONFIG: file,
        TOPICGATE_STATE_URL: DOWN_URL,
        TOPICGATE_STATE_TIMEOUT_MS: '1000',
      });
      const quotas = sharedQuotas(config)!;
      const app = Fastify({ logger: false });
      app.decorate('tg', { trino: new FakeTrinoPort() } as never);
      await app.register(errorsPlugin);
      await app.register(accessPlugin, { config, quotas });
      // A data route running one query: it takes the caller's slot first.
      app.get('/v1/data', { config: { data: true } }, async (request) => {
        await request.trino.hold(1);
        return { ok: true };
      });
      try {
        const r = await app.inject('/v1/data');
        expect([limits, r.statusCode, r.json().error.code]).toEqual([limits, 503, 'TG_STATE_UNAVAILABLE']);
        expect(Number(r.headers['retry-after'])).toBeGreaterThan(0);
        expect(r.body).not.toContain('topicgate:topicgate');
      } finally {
        await app.close();
        await quotas.close();
        rmSync(file, { force: true });
      }
    }
  });
});
