/**
 * Several gateway instances sharing one PostgreSQL cursor store: concurrent commits of one cursor through
 * different instances give exactly one winner, and every instance sees the same position.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { testApp } from '../helpers.js';
import { pgUp } from '../../scripts/local-postgres.js';

let a: FastifyInstance;
let b: FastifyInstance;
let pgUrl = '';
const name = `shared-${randomBytes(4).toString('hex')}`;
beforeAll(async () => {
  const { url } = await pgUp();
  pgUrl = url;
  a = await testApp({ TOPICGATE_STATE_URL: url });
  b = await testApp({ TOPICGATE_STATE_URL: url });
});
afterAll(async () => {
  await a.inject({ method: 'DELETE', url: `/v1/cursors/${name}` });
  await Promise.all([a.close(), b.close()]);
});

describe('two instances, one PostgreSQL store', () => {
  it('a cursor made on one is read on the other; concurrent commits: one wins, the rest are no-ops', async () => {
    expect(
      (await a.inject({ method: 'PUT', url: `/v1/cursors/${name}`, payload: { topic: 'clicks' } })).statusCode,
    ).toBe(201);
    expect(
      (await b.inject({ method: 'PUT', url: `/v1/cursors/${name}`, payload: { topic: 'clicks' } })).statusCode,
    ).toBe(200);
    const batchA = await a.inject({ method: 'POST', url: `/v1/cursors/${name}/read?limit=100` });
    const batchB = await b.inject({ method: 'POST', url: `/v1/cursors/${name}/read?limit=100` });
    const token = batchA.headers['topicgate-batch'] as string;
    expect(batchB.headers['topicgate-batch']).toBe(token); // the pending batch is shared
    const commits = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        (i % 2 ? a : b).inject({ method: 'POST', url: `/v1/cursors/${name}/commit`, payload: { batch: token } }),
      ),
    );
    expect(commits.map((c) => c.statusCode)).toEqual(Array(10).fill(200));
    expect(commits.filter((c) => c.json().committed === true)).toHaveLength(1);
    const posA = (await a.inject(`/v1/cursors/${name}`)).json().position;
    expect((await b.inject(`/v1/cursors/${name}`)).json().position).toEqual(posA);
    expect(posA.skip).toBeGreaterThan(0);
    expect((await b.inject(`/v1/cursors/${name}/history`)).json().batches).toHaveLength(1);
  });

  it('a stale commit through the other instance is a 409 and moves nothing', async () => {
    const first = (await a.inject({ method: 'POST', url: `/v1/cursors/${name}/read?limit=5` })).headers[
      'topicgate-batch'
    ] as string;
    await b.inject({ method: 'POST', url: `/v1/cursors/${name}/seek`, payload: { to: 'earliest' } });
    const stale = await a.inject({ method: 'POST', url: `/v1/cursors/${name}/commit`, payload: { batch: first } });
    expect(stale.statusCode).toBe(409);
    expect(stale.json().error.code).toBe('TG_STALE_BATCH');
    expect((await b.inject(`/v1/cursors/${name}`)).json().position).toEqual({ timestamp: null, skip: 0 });
  });

  it('an instance with another secret replaces a pending batch it cannot verify, and refuses its token', async () => {
    const other = await testApp({ TOPICGATE_STATE_URL: pgUrl, TOPICGATE_CURSOR_SECRET: 'another secret' });
    const cursor = `${name}-key`;
    try {
      const put = await a.inject({ method: 'PUT', url: `/v1/cursors/${cursor}`, payload: { topic: 'clicks' } });
      expect(put.statusCode).toBe(201);
      const old = await a.inject({ method: 'POST', url: `/v1/cursors/${cursor}/read?limit=5` });
      const oldToken = old.headers['topicgate-batch'] as string;
      expect(old.json().batchRows).toBe(5);
      // Handing out the old batch again would leave the loader with a token this instance can never accept.
      const fresh = await other.inject({ method: 'POST', url: `/v1/cursors/${cursor}/read?limit=5` });
      const token = fresh.headers['topicgate-batch'] as string;
      expect(token).not.toBe(oldToken);
      expect(fresh.json().from).toEqual(old.json().from);
      const refused = await other.inject({
        method: 'POST',
        url: `/v1/cursors/${cursor}/commit`,
        payload: { batch: oldToken },
      });
      expect([refused.statusCode, refused.json().error.code]).toEqual([400, 'TG_BAD_BATCH']);
      const commit = (app: FastifyInstance) =>
        app.inject({ method: 'POST', url: `/v1/cursors/${cursor}/commit`, payload: { batch: token } });
      expect((await commit(a)).json().error.code).toBe('TG_BAD_BATCH');
      expect((await commit(other)).json()).toMatchObject({ committed: true, rows: 5 });
    } finally {
      await a.inject({ method: 'DELETE', url: `/v1/cursors/${cursor}` });
      await other.close();
    }
  });
});
