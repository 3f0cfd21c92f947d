/**
 * Row policies against the real Trino: every read path (events, paging, query, aggregates,
 * dedupe, explain, infer, cursor batches and lag) returns exactly what the same SQL written by hand returns with
 * the policy's condition; nothing in a request (or, not., a replayed page token, a claim with grammar in it)
 * widens it; explain says a policy applies without showing it; the guardrail judges the request's own filters.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignJWT } from 'jose';
import { stringify } from 'yaml';
import { buildApp } from '../../src/server/app.js';
import { apiKeyHash } from '../../src/access/api-keys.js';
import { sql, testConfig } from '../helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'topicgate-rows-'));
const SECRET = 'row-policy-test-secret-of-32-bytes-or-more';
const EU = 'key-eu-000000000000000000000000000';
const ALL = 'key-all-00000000000000000000000000';
const SINCE = '2026-11-01T00:00:00Z';
const UNTIL = '2026-11-04T00:00:00Z';
const WINDOW = `timestamp_broker >= TIMESTAMP '2026-11-01 00:00:00' AND timestamp_broker < TIMESTAMP '2026-11-04 00:00:00'`;
/** The policy's condition, written by hand. */
const EU_SQL = `json_extract_scalar(from_utf8(value), '$.customer.address.country') IN ('DE', 'FR')`;

let app: FastifyInstance;
beforeAll(async () => {
  writeFileSync(join(dir, 'secret'), SECRET);
  const file = join(dir, 'rows.yaml');
  writeFileSync(
    file,
    stringify({
      topics: {
        orders: {
          expand: {
            country: { path: '$.customer.address.country', type: 'varchar' },
            status: { path: '$.status', type: 'varchar' },
          },
        },
      },
      auth: {
        apiKeys: [
          { principal: 'eu-1', sha256: apiKeyHash(EU), roles: ['analyst', 'analyst-eu'] },
          { principal: 'all-1', sha256: apiKeyHash(ALL), roles: ['analyst'] },
        ],
        jwt: { secretFile: join(dir, 'secret'), issuer: 'https://idp.test/', audience: 'topicgate' },
      },
      access: [{ roles: ['analyst', 'tenant'], topics: ['orders*'], actions: ['read', 'explain', 'infer', 'cursors'] }],
      rowPolicies: {
        default: 'allow',
        orders: [
          { roles: ['analyst-eu'], filter: 'country=in.(DE,FR)' },
          { roles: ['tenant'], filter: 'key=in.({claims.order_keys})' },
        ],
      },
    }),
  );
  app = await buildApp(testConfig({ TOPICGATE_CONFIG: file, TOPICGATE_MAX_LIMIT: '20000' }), { logger: false });
});
afterAll(async () => {
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

const tenant = (claims: Record<string, unknown>) =>
  new SignJWT({
    sub: 'tenant-1',
    roles: ['tenant'],
    iss: 'https://idp.test/',
    aud: 'topicgate',
    exp: 4_000_000_000,
    ...claims,
  })
    .setProtectedHeader({ alg: 'HS256' })
    .sign(new TextEncoder().encode(SECRET));

const ndjson = (body: string) =>
  body
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
const get = (url: string, headers: Record<string, string>) => app.inject({ url, headers });
const count = async (where: string) =>
  Number((await sql(`SELECT count(*) FROM orders WHERE ${WINDOW} AND ${where}`))[0]![0]);

describe('every read path gets the policy, and equals the hand-written SQL', () => {
  it('events: the same rows as SQL with the policy condition', async () => {
    const r = await get(
      `/v1/topics/orders/events?since=${SINCE}&until=${UNTIL}&limit=20000&format=ndjson&select=key,timestamp_broker,country`,
      { 'x-api-key': EU },
    );
    expect(r.statusCode, r.body).toBe(200);
    const rows = ndjson(r.body);
    expect(rows.length).toBe(await count(EU_SQL));
    expect(new Set(rows.map((x) => x.country))).toEqual(new Set(['DE', 'FR']));
    const unrestricted = await get(
      `/v1/topics/orders/events?since=${SINCE}&until=${UNTIL}&limit=20000&format=ndjson&select=key`,
      { 'x-api-key': ALL },
    );
    expect(ndjson(unrestricted.body).length).toBe(await count('true'));
  });

  it('paging: following next returns exactly the policy rows once', async () => {
    let url: string | null =
      `/v1/topics/orders/events?since=${SINCE}&until=${UNTIL}&limit=1000&select=key,timestamp_broker`;
    let n = 0;
    for (let i = 0; url && i < 20; i++) {
      const r = await get(url, { 'x-api-key': EU });
      expect(r.statusCode, r.body).toBe(200);
      n += r.json().rows.length;
      url = r.json().next;
    }
    expect(n).toBe(await count(EU_SQL));
  });

  it('aggregates: counts per status equal SQL', async () => {
    const r = await app.inject({
      method: 'POST',
      url: '/v1/topics/orders/query',
      headers: { 'x-api-key': EU },
      payload: {
        select: ['status', { fn: 'count', as: 'n' }],
        groupBy: ['status'],
        since: SINCE,
        until: UNTIL,
        limit: 100,
      },
    });
    expect(r.statusCode, r.body).toBe(200);
    const got = Object.fromEntries(
      (r.json().rows as { status: string | null; n: number }[]).map((x) => [String(x.status), Number(x.n)]),
    );
    const want = await sql(
      `SELECT json_extract_scalar(from_utf8(value), '$.status'), count(*) FROM orders WHERE ${WINDOW} AND ${EU_SQL} GROUP BY 1`,
    );
    expect(got).toEqual(Object.fromEntries(want.map(([s, n]) => [String(s), Number(n)])));
  });

  it('dedupe: one event per key among the policy rows, as SQL', async () => {
    const r = await app.inject({
      method: 'POST',
      url: '/v1/topics/orders/query',
      headers: { 'x-api-key': EU },
      payload: {
        select: ['key'],
        dedupe: { by: ['key'], keep: 'latest' },
        since: SINCE,
        until: UNTIL,
        limit: 20000,
        format: 'ndjson',
      },
    });
    expect(r.statusCode, r.body).toBe(200);
    const want = await sql(
      `SELECT count(DISTINCT coalesce(to_hex(key), 'null')) FROM orders WHERE ${WINDOW} AND ${EU_SQL}`,
    );
    expect(ndjson(r.body).length).toBe(Number(want[0]![0]));
  });

  it('explain: says a row policy applies, never its condition', async () => {
    const r = await get(`/v1/topics/orders/events?since=${SINCE}&until=${UNTIL}&explain=true`, { 'x-api-key': EU });
    expect(r.statusCode, r.body).toBe(200);
    expect(r.json().rowPolicy).toBe('applied');
    expect(r.body).not.toContain(`IN ('DE', 'FR')`);
  });

  it('infer: samples only the policy rows', async () => {
    const r = await get(`/v1/topics/orders/schema/infer?since=${SINCE}&until=2026-11-02T00:00:00Z&sample=10000`, {
      'x-api-key': EU,
    });
    expect(r.statusCode, r.body).toBe(200);
    const want = Number(
      (
        await sql(
          `SELECT count(*) FROM orders WHERE timestamp_broker >= TIMESTAMP '2026-11-01 00:00:00' AND timestamp_broker < TIMESTAMP '2026-11-02 00:00:00' AND ${EU_SQL}`,
        )
      )[0]![0],
    );
    expect(r.json().sampled).toBe(want);
  });

  it('cursor batches and lag: only the policy rows', async () => {
    const h = { 'x-api-key': EU };
    const put = await app.inject({
      method: 'PUT',
      url: '/v1/cursors/eu-loader',
      headers: h,
      payload: { topic: 'orders', start: SINCE },
    });
    expect(put.statusCode, put.body).toBe(201);
    const lag = (await get('/v1/cursors/eu-loader', h)).json().lag;
    const all = await count(EU_SQL);
    expect(lag.events).toBe(
      Number(
        (
          await sql(
            `SELECT count(*) FROM orders WHERE timestamp_broker >= TIMESTAMP '2026-11-01 00:00:00' AND ${EU_SQL}`,
          )
        )[0]![0],
      ),
    );
    const r = await app.inject({
      method: 'POST',
      url: '/v1/cursors/eu-loader/read?limit=20000&format=ndjson',
      headers: h,
    });
    expect(r.statusCode, r.body).toBe(200);
    const rows = ndjson(r.body);
    expect(rows.length).toBe(all);
  });
});

describe('nothing in a request widens the policy', () => {
  it.each([
    [
      'or= with another country',
      'or=(country.eq.US,country.eq.DE)',
      `${EU_SQL} AND json_extract_scalar(from_utf8(value), '$.customer.address.country') IN ('US', 'DE')`,
    ],
    ['not. the policy', 'country=not.in.(DE,FR)', 'false'],
    ['an or that is always true', 'or=(key.is.null,key.not.is.null)', EU_SQL],
  ])('%s', async (_label, filter, where) => {
    const r = await get(
      `/v1/topics/orders/events?since=${SINCE}&until=${UNTIL}&limit=20000&format=ndjson&select=key&${filter}`,
      { 'x-api-key': EU },
    );
    expect(r.statusCode, r.body).toBe(200);
    expect(ndjson(r.body).length).toBe(await count(where));
  });

  it('a page token from another caller is refused, both ways', async () => {
    const page = (key: string, cursor?: string) =>
      get(
        `/v1/topics/orders/events?since=${SINCE}&until=${UNTIL}&limit=5${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        { 'x-api-key': key },
      );
    const euNext = new URL((await page(EU)).json().next, 'http://x').searchParams.get('cursor')!;
    const allNext = new URL((await page(ALL)).json().next, 'http://x').searchParams.get('cursor')!;
    for (const [key, token] of [
      [ALL, euNext],
      [EU, allNext],
    ] as const) {
      const r = await page(key, token);
      expect([r.statusCode, r.json().error.code]).toEqual([400, 'TG_BAD_CURSOR']);
    }
    expect((await page(EU, euNext)).statusCode).toBe(200);
  });

  it('claims are values: a claim holding grammar matches nothing; a missing claim matches nothing', async () => {
    const events = async (t: string) =>
      ndjson(
        (
          await get(`/v1/topics/orders/events?since=${SINCE}&until=${UNTIL}&limit=20000&format=ndjson&select=key`, {
            authorization: `Bearer ${t}`,
          })
        ).body,
      );
    const mine = await events(await tenant({ order_keys: ['order-1000003', 'order-1000503'] }));
    expect(mine.length).toBe(await count(`key IN (to_utf8('order-1000003'), to_utf8('order-1000503'))`));
    expect(new Set(mine.map((r) => r.key))).toEqual(new Set(['order-1000003', 'order-1000503']));
    expect(await events(await tenant({ order_keys: ['x),or=(key.not.is.null'] }))).toEqual([]);
    expect(await events(await tenant({ order_keys: 'order-1000003,order-1000503' }))).toEqual([]);
    expect(await events(await tenant({}))).toEqual([]);
  });

  // That it stays pushed is checked on the plan (test/unit/row-policy-plan.test.ts): explain does not show it.
  it('a pushable policy does not let a residual-only request skip the guardrail', async () => {
    const t = await tenant({ order_keys: ['order-1000003'] });
    const r = await get('/v1/topics/orders/events?status=eq.paid', { authorization: `Bearer ${t}` });
    expect([r.statusCode, r.json().error.code]).toEqual([400, 'TG_TIME_BOUND_REQUIRED']);
  });
});
