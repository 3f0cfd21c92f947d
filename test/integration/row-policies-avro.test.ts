/**
 * The row-policy matrix on decoded fields against the real Trino and Schema Registry: a policy
 * on a decoded Avro field is evaluated in the gateway, so dedupe runs there too, after it. A caller's deduped read is
 * its own events deduped, whatever the window's end: bisecting `until` reveals nothing of other callers' events.
 * Expected answers come from the whole window decoded for an unrestricted caller and deduped here, in the test.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { stringify } from 'yaml';
import { buildApp } from '../../src/server/app.js';
import { apiKeyHash } from '../../src/access/api-keys.js';
import { parseLosslessJson } from '../../src/core/lossless-json.js';
import { registerDemoSchemas } from '../../scripts/demo-avro.js';
import { testConfig } from '../helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'topicgate-rows-avro-'));
const registryUrl = inject('registryUrl');
const BASE = Date.UTC(2026, 10, 1);
const EVENTS = 400;
const STEP_MS = 30_000;
const KEYS = { authorized: 'key-authorized-000000000000000000', all: 'key-all-avro-000000000000000000000' };
const URL_ = '/v1/topics/payments_avro';

type Row = { key: string | null; timestamp_broker: string; value: { status?: string } | null };
let app: FastifyInstance;
let all: Row[];

beforeAll(async () => {
  await registerDemoSchemas(registryUrl);
  const file = join(dir, 'avro.yaml');
  writeFileSync(
    file,
    stringify({
      schemaRegistry: { url: registryUrl },
      topics: { payments_avro: { key: { format: 'avro' }, value: { format: 'avro' } } },
      auth: {
        apiKeys: [
          { principal: 'authorized-1', sha256: apiKeyHash(KEYS.authorized), roles: ['authorized'] },
          { principal: 'all-1', sha256: apiKeyHash(KEYS.all), roles: ['all'] },
        ],
      },
      access: [{ roles: ['authorized', 'all'], topics: ['payments_avro'], actions: ['read'] }],
      rowPolicies: {
        default: 'allow',
        payments_avro: [{ roles: ['authorized'], filter: 'value.status=eq.AUTHORIZED' }],
      },
    }),
  );
  app = await buildApp(testConfig({ TOPICGATE_CONFIG: file, TOPICGATE_GATEWAY_MAX_ROWS: '1000' }), { logger: false });
  const until = new Date(BASE + EVENTS * STEP_MS).toISOString();
  const r = await app.inject({
    url: `${URL_}/events?since=${new Date(BASE).toISOString()}&until=${until}&limit=all&format=ndjson`,
    headers: { 'x-api-key': KEYS.all },
  });
  expect(r.statusCode, r.body).toBe(200);
  all = r.body
    .split('\n')
    .filter(Boolean)
    .map((l) => parseLosslessJson(l) as Row);
  expect(all).toHaveLength(EVENTS);
});
afterAll(async () => {
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The caller's deduped read of [BASE, until): key and broker time of one event per key. */
async function deduped(untilMs: number, keep: 'latest' | 'earliest') {
  const r = await app.inject({
    method: 'POST',
    url: `${URL_}/query?format=ndjson`,
    headers: { 'x-api-key': KEYS.authorized },
    payload: {
      select: ['key', 'timestamp_broker'],
      dedupe: { by: ['key'], keep },
      since: new Date(BASE).toISOString(),
      until: new Date(untilMs).toISOString(),
      limit: 1000,
    },
  });
  expect(r.statusCode, r.body).toBe(200);
  // A decoded key comes with its companion columns (key_schema_id, ...): the key and the time are compared.
  return r.body
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Row)
    .map((x) => ({ key: x.key, timestamp_broker: x.timestamp_broker }));
}

/** The same, computed here: the caller's own events of the window, one per key, in broker-time order. */
function expected(untilMs: number, keep: 'latest' | 'earliest') {
  const mine = all.filter((r) => Date.parse(r.timestamp_broker) < untilMs && r.value?.status === 'AUTHORIZED');
  const byKey = new Map<string | null, Row>();
  for (const r of mine) if (keep === 'latest' || !byKey.has(r.key)) byKey.set(r.key, r);
  return [...byKey.values()]
    .sort((a, b) => Date.parse(a.timestamp_broker) - Date.parse(b.timestamp_broker))
    .map((r) => ({ key: r.key, timestamp_broker: r.timestamp_broker }));
}

describe('dedupe after a policy on a decoded field (finding 5)', () => {
  it.each(['latest', 'earliest'] as const)(
    'keep %s: the caller own events deduped, the null key included',
    async (keep) => {
      const end = BASE + EVENTS * STEP_MS;
      const want = expected(end, keep);
      // Events without a key share one partition, whose latest event is another caller's (event 350 is REFUNDED).
      expect(want.some((r) => r.key === null)).toBe(true);
      expect(await deduped(end, keep)).toEqual(want);
    },
  );

  it('bisecting until around other callers events changes nothing the caller may not see', async () => {
    // Events 300 (AUTHORIZED, no key) and 350 (REFUNDED, no key): an until on either side of 350.
    for (const i of [301, 349, 350, 351, 399]) {
      const untilMs = BASE + i * STEP_MS + 1;
      expect(await deduped(untilMs, 'latest')).toEqual(expected(untilMs, 'latest'));
    }
  });
});
