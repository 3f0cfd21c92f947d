/**
 * A topic and its native expansion table hold the same events, against the real Trino: a row policy set only on the
 * expansion table restricts reads of the topic too (the caller reads the topic directly and sees no row the
 * policy hides); one the topic cannot take is refused at start-up with the reason; and `expansionTable` may name a
 * table of another served schema (`<schema>:<table>`), whose policy then restricts the topic as well. Expected
 * answers are the same SQL written by hand.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { buildApp } from '../../src/server/app.js';
import { startServer } from '../../src/server.js';
import { ConfigError } from '../../src/config/config.js';
import { apiKeyHash } from '../../src/access/api-keys.js';
import { sql, testConfig } from '../helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'topicgate-expansion-policy-'));
const DEMO = 'demo|kafka_topics';
const OTHER = 'policyx|kafka_topics';
const KEYS = { eu: 'key-eu-expansion-00000000000000000', all: 'key-all-expansion-0000000000000000' };
const CURSOR_SECRET = 'a-cursor-secret-of-at-least-32-bytes-for-this-test';
const WINDOW = 'since=2026-11-01T00:00:00Z&until=2026-11-02T00:00:00Z';
const WINDOW_SQL = `timestamp_broker >= TIMESTAMP '2026-11-01 00:00:00' AND timestamp_broker < TIMESTAMP '2026-11-02 00:00:00'`;
const COUNTRY = 'customer__address__country';
const EXPAND = { expand: { [COUNTRY]: { path: '$.customer.address.country', type: 'varchar' } } };
const EU = [{ roles: ['eu'], filter: `${COUNTRY}=in.(DE,FR)` }];
const AUTH = {
  apiKeys: [
    { principal: 'eu-1', sha256: apiKeyHash(KEYS.eu), roles: ['eu'] },
    { principal: 'all-1', sha256: apiKeyHash(KEYS.all), roles: ['all'] },
  ],
};
const ACCESS = [{ roles: ['eu', 'all'], topics: ['*'], actions: ['read'] }];

function config(name: string, doc: object): string {
  const f = join(dir, name);
  writeFileSync(f, stringify(doc));
  return f;
}

let one: FastifyInstance;
let two: FastifyInstance;
beforeAll(async () => {
  // A copy of the demo's expansion table in a second served schema.
  await sql(`CREATE SCHEMA IF NOT EXISTS vast."${OTHER}"`);
  await sql(`CREATE TABLE IF NOT EXISTS vast."${OTHER}".orders_wide AS SELECT * FROM vast."${DEMO}".orders_expanded`);
  const onlyExpanded = config('only-expanded.yaml', {
    topics: { orders: EXPAND },
    auth: AUTH,
    access: ACCESS,
    rowPolicies: { default: 'allow', orders_expanded: EU },
  });
  one = await buildApp(testConfig({ TOPICGATE_CONFIG: onlyExpanded, TOPICGATE_MAX_LIMIT: '20000' }), { logger: false });
  const otherSchema = config('other-schema.yaml', {
    topics: { [`${DEMO}:orders`]: { ...EXPAND, expansionTable: `${OTHER}:orders_wide` } },
    auth: AUTH,
    access: ACCESS,
    rowPolicies: { default: 'allow', [`${OTHER}:orders_wide`]: EU },
  });
  two = await buildApp(
    testConfig({
      TOPICGATE_CONFIG: otherSchema,
      TOPICGATE_SCHEMAS: `${DEMO},${OTHER}`,
      TOPICGATE_MAX_LIMIT: '20000',
    }),
    { logger: false },
  );
});
afterAll(async () => {
  await Promise.all([one?.close(), two?.close()]);
  rmSync(dir, { recursive: true, force: true });
});

/** The countries of the topic's events in the window, as the caller reads them. */
async function countries(app: FastifyInstance, topic: string, key: string): Promise<string[]> {
  const url = `/v1/topics/${encodeURIComponent(topic)}/events?${WINDOW}&select=key,${COUNTRY}&limit=20000&format=ndjson`;
  const r = await app.inject({ url, headers: { 'x-api-key': key } });
  expect(r.statusCode, r.body.slice(0, 300)).toBe(200);
  return r.body
    .split('\n')
    .filter(Boolean)
    .map((l) => (JSON.parse(l) as Record<string, string>)[COUNTRY]!);
}

/** How many events of the window the policy keeps, written by hand. */
async function euCount(): Promise<number> {
  const [[n]] = (await sql(
    `SELECT count(*) FROM orders WHERE ${WINDOW_SQL} AND json_extract_scalar(from_utf8(value), '$.customer.address.country') IN ('DE', 'FR')`,
  )) as [[number]];
  return Number(n);
}

describe('a policy only on the expansion table', () => {
  it('restricts reading the topic directly: no row the policy hides', async () => {
    const eu = await countries(one, 'orders', KEYS.eu);
    expect(new Set(eu)).toEqual(new Set(['DE', 'FR']));
    expect(eu).toHaveLength(await euCount());
    const all = await countries(one, 'orders', KEYS.all);
    expect(all.some((c) => c !== 'DE' && c !== 'FR')).toBe(true);
  });

  it('is refused at start-up, with the reason, when the topic cannot take it', async () => {
    const file = config('unfit.yaml', {
      topics: { orders: EXPAND },
      auth: AUTH,
      access: ACCESS,
      rowPolicies: { orders_expanded: [{ roles: ['eu'], filter: 'order_id=lt.1000100' }] },
    });
    const err = await startServer(
      testConfig({
        TOPICGATE_CONFIG: file,
        TOPICGATE_PORT: '0',
        TOPICGATE_LOG_LEVEL: 'silent',
        TOPICGATE_CURSOR_SECRET: CURSOR_SECRET,
      }),
    ).then(
      async ({ app }) => {
        await app.close();
        return undefined;
      },
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).problems).toEqual([
      `TOPICGATE_CONFIG=${file}: rowPolicies.orders_expanded[0].filter applies to orders too (the same events): orders has no column "order_id"; give orders row policies of its own (rowPolicies.orders)`,
    ]);
  });
});

describe('expansionTable in another served schema', () => {
  it('the topic names it, and its policy restricts both', async () => {
    const topic = `${DEMO}:orders`;
    const r = await two.inject({
      url: `/v1/topics/${encodeURIComponent(topic)}`,
      headers: { 'x-api-key': KEYS.all },
    });
    expect(r.statusCode, r.body).toBe(200);
    expect(r.json().expansionTable).toMatchObject({ name: `${OTHER}:orders_wide`, found: true });
    const eu = await countries(two, topic, KEYS.eu);
    expect(new Set(eu)).toEqual(new Set(['DE', 'FR']));
    expect(eu).toHaveLength(await euCount());
    const wide = await two.inject({
      url: `/v1/topics/${encodeURIComponent(`${OTHER}:orders_wide`)}/events?select=${COUNTRY}&limit=20000&format=ndjson`,
      headers: { 'x-api-key': KEYS.eu },
    });
    expect(wide.statusCode, wide.body.slice(0, 300)).toBe(200);
    const rows = wide.body.split('\n').filter(Boolean);
    expect(rows.length).toBeGreaterThan(0);
    expect(new Set(rows.map((l) => (JSON.parse(l) as Record<string, string>)[COUNTRY]))).toEqual(new Set(['DE', 'FR']));
  });
});
