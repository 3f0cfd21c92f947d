/**
 * Every read path runs the same planning passes: the residual-scan guardrail and the limits apply to
 * cursor batches, cursor lag and seeks as they do to events, and a cursor whose filters are all evaluated after
 * the scan reads its backlog in bounded windows without losing or repeating an event.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { stringify } from 'yaml';
import { sql, testApp } from '../helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'topicgate-policy-'));
const config = join(dir, 'topics.yaml');
writeFileSync(config, stringify({ topics: { orders: { expand: { status: { path: '$.status', type: 'varchar' } } } } }));

let app: FastifyInstance;
beforeAll(async () => {
  app = await testApp({
    TOPICGATE_CONFIG: config,
    TOPICGATE_RESIDUAL_SCAN_MAX_WINDOW: '2d',
    TOPICGATE_MAX_LIMIT: '5000',
  });
});
afterAll(async () => {
  await app.close();
  rmSync(dir, { recursive: true, force: true });
});

const PAID = { field: 'status', op: 'eq', value: 'paid' };
const put = (name: string, payload: object) => app.inject({ method: 'PUT', url: `/v1/cursors/${name}`, payload });

describe('the guardrail on cursors', () => {
  it('a cursor whose filters are all residual cannot start (or seek) at earliest', async () => {
    const res = await put('p-earliest', { topic: 'orders', start: 'earliest', filter: PAID });
    expect([res.statusCode, res.json().error.code]).toEqual([400, 'TG_TIME_BOUND_REQUIRED']);
    expect(res.json().error.message).toContain('start it at an instant');
    expect((await app.inject('/v1/cursors/p-earliest')).statusCode).toBe(404);

    expect((await put('p-seek', { topic: 'orders', start: '2026-11-01T00:00:00Z', filter: PAID })).statusCode).toBe(
      201,
    );
    const seek = await app.inject({ method: 'POST', url: '/v1/cursors/p-seek/seek', payload: { to: 'earliest' } });
    expect([seek.statusCode, seek.json().error.code]).toEqual([400, 'TG_TIME_BOUND_REQUIRED']);
    expect((await app.inject('/v1/cursors/p-seek')).json().position.timestamp).toBe('2026-11-01T00:00:00.000Z');
  });

  it('a pushed filter from earliest is fine', async () => {
    const res = await put('p-pushed', { topic: 'orders', filter: { field: 'key', op: 'is', value: null } });
    expect(res.statusCode).toBe(201);
  });

  it('reads the backlog in windows of at most the guardrail width, every matching event exactly once', async () => {
    expect((await put('p-paid', { topic: 'orders', start: '2026-11-01T00:00:00Z', filter: PAID })).statusCode).toBe(
      201,
    );
    // Its lag is counted over the guardrail window only, and says where the count stopped.
    const shown = (await app.inject('/v1/cursors/p-paid')).json();
    const lag = shown.lag;
    expect(lag.countedUntil).toBe('2026-11-03T00:00:00.000Z');
    expect(lag.events).toBeGreaterThan(0);
    const seen: string[] = [];
    const windows: [string | null, string | null][] = [];
    // Where each read starts: the position shown above, then where the commit before it left the cursor (only this
    // loop moves it; reading it again with GET would count its lag, a Trino query, each time).
    let before = shown.position as { timestamp: string | null; skip: number };
    for (let i = 0; i < 40; i++) {
      const res = await app.inject({ method: 'POST', url: '/v1/cursors/p-paid/read?format=ndjson&limit=5000' });
      expect(res.statusCode).toBe(200);
      const rows = res.body.split('\n').filter(Boolean);
      seen.push(...rows);
      const commit = await app.inject({
        method: 'POST',
        url: '/v1/cursors/p-paid/commit',
        payload: { batch: res.headers['topicgate-batch'] },
      });
      expect(commit.statusCode).toBe(200);
      const after = commit.json().position;
      windows.push([before.timestamp, after.timestamp]);
      if (rows.length === 0 && after.timestamp === before.timestamp && after.skip === before.skip) break;
      before = after;
    }
    expect((await app.inject('/v1/cursors/p-paid')).json().position).toEqual(before);
    // Each step moved at most two days past where it started.
    for (const [from, to] of windows.slice(0, -1)) {
      expect(Date.parse(to!) - Date.parse(from!)).toBeLessThanOrEqual(2 * 86_400_000);
      expect(Date.parse(to!)).toBeGreaterThan(Date.parse(from!));
    }
    expect(windows.length).toBeGreaterThan(3);
    const [[expected]] = (await sql(
      `SELECT count(*) FROM orders WHERE json_extract_scalar(CASE WHEN to_utf8(from_utf8(value)) = value THEN from_utf8(value) END, '$.status') = 'paid'`,
    )) as [[number]];
    expect(seen.length).toBe(Number(expected));
    expect(new Set(seen.map((l) => JSON.stringify(JSON.parse(l).status))).size).toBe(1);
  });
});

describe('limits on cursor reads', () => {
  it('more than the maximum is a 422 naming it, as on /events (it was silently capped)', async () => {
    expect((await put('p-limit', { topic: 'clicks' })).statusCode).toBe(201);
    const res = await app.inject({ method: 'POST', url: '/v1/cursors/p-limit/read?limit=5001' });
    expect([res.statusCode, res.json().error.code, res.json().error.details]).toEqual([
      422,
      'TG_TOO_EXPENSIVE',
      { parameter: 'limit', max: 5000 },
    ]);
    const events = await app.inject('/v1/topics/clicks/events?limit=5001');
    expect([events.statusCode, events.json().error.code]).toEqual([422, 'TG_TOO_EXPENSIVE']);
  });

  it('the default batch is capped by the maximum, not refused', async () => {
    const res = await app.inject({ method: 'POST', url: '/v1/cursors/p-limit/read?format=ndjson' });
    expect(res.statusCode).toBe(200);
    expect(Number(res.headers['topicgate-batch-rows'])).toBe(5000);
  });
});
