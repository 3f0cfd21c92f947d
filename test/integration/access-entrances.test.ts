/**
 * One row scope at every entrance (API.md "Access", "Read sessions", "Following a topic", "Cursors", "Loads"),
 * against the real Trino, PostgreSQL-backed lake and Schema Registry: for each kind of principal (an API key, a JWT
 * with claims, a presigned stream, a principal with grants but no policy role, no credentials), every way in (events,
 * query, aggregates, downloads in CSV and Arrow, read sessions and their streams, follow, cursor batches, loads, the
 * explorer's calls: explain and schema inference) serves exactly the rows the caller's row policy allows, with the
 * policy on a topic, on its native expansion table and on a decoded Avro field. Expected rows come from Trino
 * directly (the topic tables) or from an unrestricted principal's read filtered here (decoded Avro fields).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { tableFromIPC } from 'apache-arrow';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { stringify } from 'yaml';
import { registerDemoSchemas } from '../../scripts/demo-avro.js';
import { apiKeyHash } from '../../src/access/api-keys.js';
import { parseLosslessJson } from '../../src/core/lossless-json.js';
import { buildApp } from '../../src/server/app.js';
import { sql, testConfig } from '../helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'topicgate-entrances-'));
const RUN = randomBytes(3).toString('hex');
const JWT_SECRET = 'entrances-jwt-secret-of-32-bytes-or-more';
const KEYS = {
  eu: 'key-entrances-eu-00000000000000000',
  all: 'key-entrances-all-0000000000000000',
  bystander: 'key-entrances-by-00000000000000000',
};
const W = { since: '2026-11-01T00:00:00Z', until: '2026-11-01T12:00:00Z' };
const QS = `since=${W.since}&until=${W.until}`;
const SQL_WINDOW = `timestamp_broker >= TIMESTAMP '2026-11-01 00:00:00' AND timestamp_broker < TIMESTAMP '2026-11-01 12:00:00'`;
const COUNTRY = `json_extract_scalar(from_utf8(value), '$.customer.address.country')`;

type Headers = Record<string, string>;
let app: FastifyInstance;
let jwtDE: Headers;

beforeAll(async () => {
  const registryUrl = inject('registryUrl');
  await registerDemoSchemas(registryUrl);
  writeFileSync(join(dir, 'jwt-secret'), JWT_SECRET);
  const file = join(dir, 'entrances.yaml');
  writeFileSync(
    file,
    stringify({
      schemaRegistry: { url: registryUrl },
      topics: {
        orders: {
          expand: { country: { path: '$.customer.address.country', type: 'varchar' } },
          expansionTable: 'orders_expanded',
        },
        payments_avro: { key: { format: 'avro' }, value: { format: 'avro' } },
      },
      auth: {
        apiKeys: [
          { principal: 'eu-1', sha256: apiKeyHash(KEYS.eu), roles: ['reader', 'eu'] },
          { principal: 'all-1', sha256: apiKeyHash(KEYS.all), roles: ['reader', 'all'] },
          { principal: 'bystander-1', sha256: apiKeyHash(KEYS.bystander), roles: ['reader'] },
        ],
        jwt: { secretFile: join(dir, 'jwt-secret'), issuer: 'https://idp.test/', audience: 'topicgate' },
      },
      access: [
        {
          roles: ['reader'],
          topics: ['orders', 'orders_expanded', 'payments_avro'],
          actions: ['read', 'explain', 'infer', 'cursors', 'loads'],
        },
      ],
      loads: { targets: ['lake.*'] },
      rowPolicies: {
        orders: [
          { roles: ['eu'], filter: 'country=in.(DE,FR)' },
          { roles: ['tenant'], filter: 'country=eq.{claims.country}' },
          { roles: ['all'], filter: 'timestamp_broker=not.is.null' },
        ],
        orders_expanded: [
          { roles: ['eu'], filter: 'customer__address__country=in.(DE,FR)' },
          { roles: ['tenant'], filter: 'customer__address__country=eq.{claims.country}' },
          { roles: ['all'], filter: 'order_id=not.is.null' },
        ],
        payments_avro: [
          { roles: ['eu'], filter: 'value.currency=eq.EUR' },
          { roles: ['tenant'], filter: 'value.customer.country=eq.{claims.country}' },
          { roles: ['all'], filter: 'timestamp_broker=not.is.null' },
        ],
      },
    }),
  );
  app = await buildApp(
    testConfig({
      TOPICGATE_CONFIG: file,
      TOPICGATE_CURSOR_SECRET: 'entrances-cursor-secret-0123456789abcdef',
      TOPICGATE_STATE_URL: `sqlite:${join(dir, 'state.db')}`,
    }),
    { logger: false },
  );
  const jwt = await new SignJWT({
    sub: `tenant-de-${RUN}`,
    roles: ['reader', 'tenant'],
    country: 'DE',
    iss: 'https://idp.test/',
    aud: 'topicgate',
  })
    .setProtectedHeader({ alg: 'HS256' })
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(JWT_SECRET));
  jwtDE = { authorization: `Bearer ${jwt}` };
});
afterAll(async () => {
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Sorted, so two multisets of keys compare equal exactly when they hold the same keys as often. */
const sorted = (keys: readonly string[]) => [...keys].sort();

function ndjsonRows(body: string): Record<string, unknown>[] {
  return body
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => parseLosslessJson(l) as Record<string, unknown>);
}

async function ok(opts: InjectOptions, status = 200) {
  const r = await app.inject(opts);
  expect(r.statusCode, r.body.slice(0, 400)).toBe(status);
  return r;
}

/** The keys of the rows one entrance serves for `topic` over the window W. */
type Entrance = (topic: string, h: Headers) => Promise<string[]>;

/**
 * A key as comparable text: raw bytes as lower-case hex (text formats show valid UTF-8 as text and other bytes as
 * `\x..`), a decoded Avro key (a record) as its JSON, a null key as `null`.
 */
function keyText(k: unknown): string {
  if (k === null || k === undefined) return 'null';
  if (k instanceof Uint8Array) return Buffer.from(k).toString('hex');
  if (typeof k !== 'string') return JSON.stringify(k);
  return k.startsWith('\\x') ? k.slice(2).toLowerCase() : Buffer.from(k, 'utf8').toString('hex');
}
const keysOf = (body: string) => ndjsonRows(body).map((r) => keyText(r.key));

const ENTRANCES: Record<string, Entrance> = {
  'GET events': async (t, h) =>
    keysOf((await ok({ url: `/v1/topics/${t}/events?${QS}&limit=all&format=ndjson&select=key`, headers: h })).body),
  'GET events, paged': async (t, h) => {
    const keys: string[] = [];
    let url: string | null = `/v1/topics/${t}/events?${QS}&limit=500&select=key`;
    while (url) {
      const page = (await ok({ url, headers: h })).json() as { rows: { key: string }[]; next: string | null };
      keys.push(...page.rows.map((r) => keyText(r.key)));
      url = page.next;
    }
    return keys;
  },
  'POST query': async (t, h) =>
    keysOf(
      (
        await ok({
          method: 'POST',
          url: `/v1/topics/${t}/query?format=ndjson`,
          headers: h,
          payload: { select: ['key'], ...W, limit: 'all' },
        })
      ).body,
    ),
  'CSV download': async (t, h) => {
    const body = (await ok({ url: `/v1/topics/${t}/events?${QS}&limit=all&format=csv&select=key`, headers: h })).body;
    return body
      .split('\r\n')
      .slice(1)
      .slice(0, -1)
      .map((l) => (l === '' ? null : l.replace(/^"|"$/g, '').replace(/""/g, '"')))
      .map(keyText);
  },
  'Arrow download': async (t, h) => {
    const r = await ok({ url: `/v1/topics/${t}/events?${QS}&limit=all&format=arrow&select=key`, headers: h });
    return tableFromIPC(r.rawPayload)
      .toArray()
      .map((row) => keyText((row.toJSON() as { key: unknown }).key));
  },
  'read session': (t, h) => sessionKeys(t, h, false),
  'read session, presigned': (t, h) => sessionKeys(t, h, true),
  'follow (a closed window)': async (t, h) =>
    keysOf((await ok({ url: `/v1/topics/${t}/events?${QS}&follow=true&format=ndjson`, headers: h })).body),
};

/** A session's streams read one by one; a presigned one read with no credentials at all. */
async function sessionKeys(topic: string, h: Headers, presign: boolean): Promise<string[]> {
  const s = (
    await ok(
      {
        method: 'POST',
        url: `/v1/topics/${topic}/sessions`,
        headers: h,
        payload: { select: ['key'], ...W, streams: 3, presign },
      },
      201,
    )
  ).json() as { streams: { url: string }[] };
  const keys: string[] = [];
  for (const stream of s.streams) {
    const r = await ok({ url: `${stream.url}&format=ndjson`, headers: presign ? {} : h });
    expect(r.headers['cache-control']).toContain('no-store');
    keys.push(...keysOf(r.body));
  }
  return keys;
}

/** The country sets the tests ask `ordersKeys` about (null: every row). */
const SCOPES: readonly (readonly string[] | null)[] = [null, ['DE', 'FR'], ['DE']];
let scopedKeys: Promise<Map<string, string[]>> | undefined;

/**
 * The keys of `orders` in W whose payload's country passes `countries` (every row when null), from Trino: one query
 * answers every scope of SCOPES (an `array_agg ... FILTER` each), asked once per file instead of once per test.
 */
async function ordersKeys(countries: readonly string[] | null): Promise<string[]> {
  const name = (c: readonly string[] | null) => JSON.stringify(c);
  scopedKeys ??= (async () => {
    const aggs = SCOPES.map((c) =>
      c === null ? 'array_agg(k)' : `array_agg(k) FILTER (WHERE c IN (${c.map((x) => `'${x}'`).join(', ')}))`,
    );
    const [row] = await sql(
      `SELECT ${aggs.join(', ')} FROM (SELECT coalesce(lower(to_hex(key)), 'null') AS k, ${COUNTRY} AS c FROM orders WHERE ${SQL_WINDOW})`,
    );
    return new Map(SCOPES.map((c, i) => [name(c), ((row![i] as string[] | null) ?? []).map(String)]));
  })();
  const keys = (await scopedKeys).get(name(countries));
  if (keys === undefined) throw new Error(`no oracle for the scope ${name(countries)}: add it to SCOPES`);
  return keys;
}

describe('a policy on a topic: every entrance serves the same rows', () => {
  const principals: Record<string, { headers: () => Headers; countries: readonly string[] | null }> = {
    'API key with a policy (country in DE, FR)': { headers: () => ({ 'x-api-key': KEYS.eu }), countries: ['DE', 'FR'] },
    'JWT with a claim (country = DE)': { headers: () => jwtDE, countries: ['DE'] },
    'API key with an always-true policy': { headers: () => ({ 'x-api-key': KEYS.all }), countries: null },
    'API key with grants but no policy role (default deny)': {
      headers: () => ({ 'x-api-key': KEYS.bystander }),
      countries: [],
    },
  };
  for (const [who, p] of Object.entries(principals)) {
    it.each(Object.keys(ENTRANCES))(`${who}: %s`, async (entrance) => {
      const want = p.countries?.length === 0 ? [] : await ordersKeys(p.countries);
      if (p.countries !== null && p.countries.length > 0) expect(want.length).toBeGreaterThan(0);
      expect(sorted(await ENTRANCES[entrance]!('orders', p.headers()))).toEqual(sorted(want));
    });
  }

  it('an aggregate counts only the rows in scope', async () => {
    const r = await ok({
      method: 'POST',
      url: '/v1/topics/orders/query',
      headers: { 'x-api-key': KEYS.eu },
      payload: { select: ['country', { fn: 'count', as: 'n' }], groupBy: ['country'], ...W },
    });
    const byCountry = Object.fromEntries(
      (r.json() as { rows: { country: string; n: number }[] }).rows.map((x) => [x.country, Number(x.n)]),
    );
    expect(Object.keys(byCountry).sort()).toEqual(['DE', 'FR']);
    expect(byCountry.DE! + byCountry.FR!).toBe((await ordersKeys(['DE', 'FR'])).length);
  });

  it("the explorer's calls: explain shows the policy in the SQL, inference samples only rows in scope", async () => {
    const explain = await ok({ url: `/v1/topics/orders/events?${QS}&explain=true`, headers: jwtDE });
    // The policy's text is the operator's, not the caller's: explain says it applies without showing it.
    expect(explain.json().rowPolicy).toBe('applied');
    const infer = await ok({ url: `/v1/topics/orders/schema/infer?${QS}&sample=10000`, headers: jwtDE });
    expect(infer.json().sampled).toBe((await ordersKeys(['DE'])).length);
  });

  it('a cursor batch holds only rows in scope', async () => {
    const put = await app.inject({
      method: 'PUT',
      url: `/v1/cursors/entrances-${RUN}`,
      headers: jwtDE,
      payload: { topic: 'orders', start: W.since },
    });
    expect(put.statusCode, put.body).toBe(201);
    const r = await ok({
      method: 'POST',
      url: `/v1/cursors/entrances-${RUN}/read?limit=200&format=ndjson`,
      headers: jwtDE,
    });
    const keys = keysOf(r.body);
    expect(keys).toHaveLength(200);
    const allowed = new Set(await ordersKeys(['DE']));
    expect(keys.filter((k) => !allowed.has(k))).toEqual([]);
  });

  it("a load lands only the owner's rows in scope", async () => {
    const table = `entrances_${RUN}`;
    const name = `entrances-${RUN}`;
    const put = await app.inject({
      method: 'PUT',
      url: `/v1/loads/${name}`,
      headers: { 'x-api-key': KEYS.eu },
      payload: { topic: 'orders', target: `lake.entrances.${table}`, start: W.since, select: ['key'] },
    });
    expect(put.statusCode, put.body).toBe(201);
    const run = await app.inject({
      method: 'POST',
      url: `/v1/loads/${name}/runs`,
      headers: { 'x-api-key': KEYS.eu },
      payload: { until: W.until },
    });
    expect(run.statusCode, run.body).toBe(200);
    const landed = (await sql(`SELECT coalesce(lower(to_hex(key)), 'null') FROM lake.entrances.${table}`)).map((r) =>
      String(r[0]),
    );
    expect(sorted(landed)).toEqual(sorted(await ordersKeys(['DE', 'FR'])));
    await sql(`DROP TABLE lake.entrances.${table}`);
  });

  it("another principal, an expired or forged JWT and a shared cache cannot reach a principal's load", async () => {
    const name = `entrances-others-${RUN}`;
    const put = await app.inject({
      method: 'PUT',
      url: `/v1/loads/${name}`,
      headers: { 'x-api-key': KEYS.eu },
      payload: { topic: 'orders', target: `lake.entrances.others_${RUN}`, start: W.since, select: ['key'] },
    });
    expect(put.statusCode, put.body).toBe(201);
    const sign = (secret: string, exp: number) =>
      new SignJWT({ sub: `tenant-de-${RUN}`, roles: ['reader', 'tenant'], iss: 'https://idp.test/', aud: 'topicgate' })
        .setProtectedHeader({ alg: 'HS256' })
        .setExpirationTime(exp)
        .sign(new TextEncoder().encode(secret));
    const now = Math.floor(Date.now() / 1000);
    const callers: [string, Headers, number, string][] = [
      ['another principal', jwtDE, 404, 'TG_LOAD_NOT_FOUND'],
      ['an expired JWT', { authorization: `Bearer ${await sign(JWT_SECRET, now - 3600)}` }, 401, 'TG_UNAUTHENTICATED'],
      [
        'a forged JWT',
        { authorization: `Bearer ${await sign(`${JWT_SECRET}-forged`, now + 3600)}` },
        401,
        'TG_UNAUTHENTICATED',
      ],
    ];
    for (const [who, headers, status, code] of callers) {
      for (const req of [
        { url: `/v1/loads/${name}` },
        { method: 'POST' as const, url: `/v1/loads/${name}/runs`, payload: { until: W.until } },
        { method: 'DELETE' as const, url: `/v1/loads/${name}` },
      ]) {
        const r = await app.inject({ ...req, headers });
        expect([r.statusCode, r.json().error.code], `${who}: ${req.url}`).toEqual([status, code]);
      }
    }
    // The owner's answer is its own: no shared cache may keep it for another caller.
    const own = await ok({ url: `/v1/loads/${name}`, headers: { 'x-api-key': KEYS.eu } });
    expect(own.headers['cache-control']).toContain('private');
    expect(String(own.headers.vary)).toMatch(/Authorization/i);
    expect(String(own.headers.vary)).toMatch(/X-API-Key/i);
    await ok({ method: 'DELETE', url: `/v1/loads/${name}`, headers: { 'x-api-key': KEYS.eu } }, 204);
  });
});

describe('a policy on a topic covers its native expansion table', () => {
  const EXPANDED_COUNTRY = 'customer__address__country';
  const CASES = [
    ['API key (DE, FR)', () => ({ 'x-api-key': KEYS.eu }), ['DE', 'FR']],
    ['JWT (DE)', () => jwtDE, ['DE']],
  ] as const;
  /** Each case's expected count, from one query (a `count(*) FILTER` per case). */
  let counts: Promise<number[]> | undefined;
  const expectedCount = async (i: number) => {
    counts ??= sql(
      `SELECT ${CASES.map(([, , countries]) => `count(*) FILTER (WHERE ${EXPANDED_COUNTRY} IN (${countries.map((c) => `'${c}'`).join(', ')}))`).join(', ')} FROM orders_expanded`,
    ).then(([row]) => row!.map(Number));
    return (await counts)[i]!;
  };
  it.each(CASES.map((c, i) => [...c, i] as const))(
    '%s reads only its rows of orders_expanded',
    async (_who, headers, countries, i) => {
      const r = await ok({
        method: 'POST',
        url: '/v1/topics/orders_expanded/query?format=ndjson',
        headers: headers(),
        payload: { select: ['order_id', EXPANDED_COUNTRY], limit: 10_000 },
      });
      const rows = ndjsonRows(r.body);
      expect(rows).toHaveLength(await expectedCount(i));
      expect(new Set(rows.map((x) => x[EXPANDED_COUNTRY]))).toEqual(new Set(countries));
    },
  );
});

describe('a policy on a decoded Avro field: every entrance serves the same rows', () => {
  type Payment = { key: unknown; value: { currency?: string; customer?: { country?: string } } | null };
  let payments: Payment[];
  beforeAll(async () => {
    const r = await ok({
      url: `/v1/topics/payments_avro/events?${QS}&limit=all&format=ndjson&select=key,value`,
      headers: { 'x-api-key': KEYS.all },
    });
    payments = ndjsonRows(r.body) as Payment[];
    expect(payments.length).toBeGreaterThan(0);
  });

  const scoped: Record<string, { headers: () => Headers; keep: (p: Payment) => boolean }> = {
    'API key (currency = EUR)': { headers: () => ({ 'x-api-key': KEYS.eu }), keep: (p) => p.value?.currency === 'EUR' },
    'JWT (customer.country = DE)': { headers: () => jwtDE, keep: (p) => p.value?.customer?.country === 'DE' },
  };
  const AVRO_ENTRANCES = ['GET events', 'POST query', 'read session', 'read session, presigned'];
  for (const [who, p] of Object.entries(scoped)) {
    it.each(AVRO_ENTRANCES)(`${who}: %s`, async (entrance) => {
      const want = payments.filter(p.keep).map((x) => keyText(x.key));
      expect(want.length).toBeGreaterThan(0);
      expect(want.length).toBeLessThan(payments.length);
      const got = await ENTRANCES[entrance]!('payments_avro', p.headers());
      expect(sorted(got)).toEqual(sorted(want));
    });
  }

  it.each(Object.keys(scoped))('%s: follow is refused, never served unfiltered', async (who) => {
    // A decoded-field policy is applied by the gateway after decoding, which a follow's polls do not do.
    const r = await app.inject({
      url: `/v1/topics/payments_avro/events?${QS}&follow=true&format=ndjson`,
      headers: scoped[who]!.headers(),
    });
    expect(r.statusCode, r.body).toBe(400);
    expect(r.json().error.code).toBe('TG_BAD_REQUEST');
    expect(r.json().error.message).toContain('row policy');
  });

  it("a session's estimate never counts rows outside the scope", async () => {
    const r = await ok(
      {
        method: 'POST',
        url: '/v1/topics/payments_avro/sessions',
        headers: jwtDE,
        payload: { ...W, streams: 2 },
      },
      201,
    );
    const own = payments.filter(scoped['JWT (customer.country = DE)']!.keep).length;
    for (const s of (r.json() as { streams: { estimatedRows?: number }[] }).streams) {
      if (s.estimatedRows !== undefined) expect(s.estimatedRows).toBeLessThanOrEqual(own);
    }
  });
});

describe('no credentials: refused at every entrance', () => {
  it.each(Object.keys(ENTRANCES).filter((e) => !e.includes('presigned')))('%s', async (entrance) => {
    await expect(ENTRANCES[entrance]!('orders', {})).rejects.toThrow(/401/);
  });
});
