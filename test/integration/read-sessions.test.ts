/**
 * Read sessions (API.md "Read sessions") against the real Trino: the streams' union is exactly the
 * `limit=all` read of the same body (NDJSON byte for byte, Arrow value for value) over the demo topics' hard cases
 * (ten-way ties, identical duplicates, bytes that are not UTF-8, declared expansions, JSON arrow paths), in index
 * order with order `time`; the split, its caps and its refusals.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { stringify } from 'yaml';
import { sql, testApp } from '../helpers.js';
import { createSession, expectUnionIsBulk, ndjsonLines, readStream } from '../session-reads.js';

const dir = mkdtempSync(join(tmpdir(), 'topicgate-sessions-'));
let app: FastifyInstance;
beforeAll(async () => {
  const file = join(dir, 'topics.yaml');
  const expand = { country: { path: '$.customer.address.country', type: 'varchar' } };
  writeFileSync(file, stringify({ topics: { orders: { expand, parallel: 2 } }, limits: { maxSessionStreams: 16 } }));
  app = await testApp({ TOPICGATE_CONFIG: file });
});
afterAll(async () => {
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

const SINCE = '2026-11-01T00:00:00Z';
const UNTIL = '2026-11-04T00:00:00Z';
const WINDOW = { since: SINCE, until: UNTIL };

describe('the union of the streams is the limit=all read', () => {
  it.each([
    ['four streams, every column', { ...WINDOW, streams: 4 }],
    ['sixteen streams', { ...WINDOW, streams: 16 }],
    ['one stream', { ...WINDOW, streams: 1 }],
    ['the default count', WINDOW],
    [
      'an expansion and a JSON path selected, a filter',
      {
        ...WINDOW,
        select: ['key', 'country', 'status:value->>status', 'timestamp_broker'],
        where: { field: 'country', op: 'in', value: ['DE', 'FR', 'BR'] },
        streams: 5,
      },
    ],
    ['order none', { ...WINDOW, order: 'none', streams: 3 }],
  ])('orders, %s', async (_what, body) => {
    const { session, rows } = await expectUnionIsBulk(app, 'orders', body);
    expect(rows).toBeGreaterThan(1000);
    expect(session.order).toBe((body as { order?: string }).order ?? 'time');
    // The estimates are counts of the same rows: they add up to the rows read.
    expect(session.streams.reduce((a, s) => a + s.estimatedRows, 0)).toBe(rows);
  });

  it('the ten-way tie and the identical duplicates: never split, never lost, whatever the cut', async () => {
    const [[tie]] = (await sql(
      `SELECT to_unixtime(timestamp_broker) * 1000 FROM orders GROUP BY timestamp_broker HAVING count(*) >= 10 LIMIT 1`,
    )) as [[number]];
    const at = Math.round(Number(tie));
    // A window of a few milliseconds around the tie, cut into as many streams as it has milliseconds.
    const body = { since: new Date(at - 2).toISOString(), until: new Date(at + 3).toISOString(), streams: 16 };
    const { session, rows } = await expectUnionIsBulk(app, 'orders', body);
    expect(session.streams).toHaveLength(5);
    expect(rows).toBeGreaterThanOrEqual(10);
    const holding = session.streams.filter((s) => Date.parse(s.since) <= at && at < Date.parse(s.until));
    expect(holding).toHaveLength(1);
    expect(holding[0]!.estimatedRows).toBeGreaterThanOrEqual(10);
  });

  it('bytes that are not UTF-8 keep every byte, as the bulk read shows them', async () => {
    const body = { ...WINDOW, select: ['key', 'value'], streams: 3 };
    // The streams' NDJSON lines as expectUnionIsBulk read them (reading them again would be the same queries).
    const { lines } = await expectUnionIsBulk(app, 's3_events', body);
    const orders = await Promise.all(
      (await createSession(app, 'orders', { ...body, streams: 2 })).streams.map((s) =>
        readStream(app, s.url, 'ndjson'),
      ),
    );
    expect([...lines, ...orders.flatMap(ndjsonLines)].some((l) => l.includes('"\\\\x'))).toBe(true);
  });

  it('streams are balanced by the counted rows', async () => {
    const s = await createSession(app, 'orders', { ...WINDOW, streams: 4 });
    const sizes = s.streams.map((x) => x.estimatedRows);
    const mean = sizes.reduce((a, b) => a + b, 0) / sizes.length;
    for (const n of sizes) expect(Math.abs(n - mean)).toBeLessThan(mean * 0.1);
  });

  /** A session of two streams, for the tests that read its streams (made once: each session is counted in Trino). */
  let two: ReturnType<typeof createSession> | undefined;
  const twoStreams = () => (two ??= createSession(app, 'orders', { ...WINDOW, streams: 2 }));

  it('a stream can be read again, with the same bytes', async () => {
    const s = await twoStreams();
    const [a, b] = [await readStream(app, s.streams[1]!.url, 'csv'), await readStream(app, s.streams[1]!.url, 'csv')];
    expect(a.equals(b)).toBe(true);
  });

  it('every format streams a part; parquet is a whole file', async () => {
    const s = await twoStreams();
    for (const format of ['json', 'csv', 'parquet']) {
      const body = await readStream(app, s.streams[0]!.url, format);
      if (format === 'json') expect(JSON.parse(body.toString()).complete).toBe(true);
      if (format === 'parquet') expect(body.subarray(-4).toString()).toBe('PAR1');
    }
  });
});

describe('what a session says and refuses', () => {
  it('columns, id, expiry, and relative times pinned to instants', async () => {
    const s = await createSession(app, 'orders', { since: SINCE, until: 'now', select: ['key', 'country'] });
    expect(s.columns).toEqual([
      { name: 'key', type: 'varbinary' },
      { name: 'country', type: 'varchar' },
    ]);
    expect(s.streams[0]!.since).toBe('2026-11-01T00:00:00.000Z');
    expect(Date.parse(s.streams.at(-1)!.until)).toBeLessThanOrEqual(Date.now());
    expect(Date.parse(s.expiresAt) - Date.now()).toBeGreaterThan(3_500_000);
  });

  it.each([
    [{ until: UNTIL }, 400, 'TG_BAD_REQUEST', 'since'],
    [{ since: SINCE }, 400, 'TG_BAD_REQUEST', 'until'],
    [{ ...WINDOW, streams: 17 }, 422, 'TG_TOO_EXPENSIVE', 'streams'],
    [{ ...WINDOW, streams: 0 }, 400, 'TG_BAD_REQUEST', 'streams'],
    [{ ...WINDOW, order: 'key' }, 400, 'TG_BAD_REQUEST', 'order'],
    [{ ...WINDOW, limit: 5 }, 400, 'TG_BAD_REQUEST', 'limit'],
    [{ ...WINDOW, select: [{ fn: 'count' }] }, 400, 'TG_BAD_REQUEST', 'select.0'],
    [{ ...WINDOW, select: ['nope'] }, 400, 'TG_UNKNOWN_COLUMN', undefined],
    [{ since: 'yesterday', until: UNTIL }, 400, 'TG_BAD_TIME', 'since'],
    [{ since: UNTIL, until: SINCE }, 400, 'TG_BAD_TIME', 'until'],
    [
      {
        ...WINDOW,
        where: { field: 'value->>status', op: 'eq', value: 'paid' },
        until: '2027-01-01T00:00:00Z',
        since: '2026-01-01T00:00:00Z',
      },
      400,
      'TG_TIME_BOUND_REQUIRED',
      undefined,
    ],
  ])('%j -> %d %s', async (body, status, code, culprit) => {
    const res = await app.inject({ method: 'POST', url: '/v1/topics/orders/sessions', payload: body });
    const e = res.json().error;
    expect([res.statusCode, e.code], res.body).toEqual([status, code]);
    if (culprit) expect(e.details.parameter ?? e.details.field).toBe(culprit);
  });

  it('an unknown topic is a 404', async () => {
    const res = await app.inject({ method: 'POST', url: '/v1/topics/nope/sessions', payload: WINDOW });
    expect([res.statusCode, res.json().error.code]).toEqual([404, 'TG_TOPIC_NOT_FOUND']);
  });
});
