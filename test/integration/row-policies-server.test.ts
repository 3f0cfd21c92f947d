/**
 * A row policy on a decoded Avro field in the server people run (`npm start`: dist/server.js as a child process),
 * against the real Trino and Schema Registry. Start-up checks every policy against the served tables, the decoded
 * fields of an Avro topic included, and then two callers whose claims differ each read only their own rows.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { SignJWT } from 'jose';
import { stringify } from 'yaml';
import { apiKeyHash } from '../../src/access/api-keys.js';
import { registerDemoSchemas } from '../../scripts/demo-avro.js';
import { GatewayProcess } from '../gateway-process.js';
import { trinoUrl } from '../helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'topicgate-rows-server-'));
const registryUrl = inject('registryUrl');
const SECRET = 'row-policy-server-secret-of-32-bytes-or-more';
const ALL = 'key-all-server-00000000000000000000';
const SINCE = new Date(Date.UTC(2026, 10, 1)).toISOString();
const UNTIL = new Date(Date.UTC(2026, 10, 1) + 400 * 30_000).toISOString();

type Row = { value: { customer: { country: string } } | null };
let gateway: GatewayProcess;

beforeAll(async () => {
  await registerDemoSchemas(registryUrl);
  writeFileSync(join(dir, 'secret'), SECRET);
  const file = join(dir, 'server.yaml');
  writeFileSync(
    file,
    stringify({
      schemaRegistry: { url: registryUrl },
      topics: { payments_avro: { key: { format: 'avro' }, value: { format: 'avro' } } },
      auth: {
        apiKeys: [{ principal: 'all-1', sha256: apiKeyHash(ALL), roles: ['all'] }],
        jwt: { secretFile: join(dir, 'secret'), issuer: 'https://idp.test/', audience: 'topicgate' },
      },
      access: [{ roles: ['all', 'tenant'], topics: ['payments_avro'], actions: ['read'] }],
      rowPolicies: {
        default: 'allow',
        payments_avro: [{ roles: ['tenant'], filter: 'value.customer.country=eq.{claims.country}' }],
      },
    }),
  );
  gateway = new GatewayProcess({
    TOPICGATE_TRINO_URL: trinoUrl(),
    TOPICGATE_CONFIG: file,
    TOPICGATE_STATE_URL: `sqlite:${join(dir, 'state.db')}`,
    TOPICGATE_CURSOR_SECRET: 'a-cursor-secret-of-at-least-32-bytes-for-this-test',
    TOPICGATE_LOG_LEVEL: 'info',
  });
  await gateway.start();
});
afterAll(async () => {
  await gateway?.kill();
  rmSync(dir, { recursive: true, force: true });
});

const token = (country: string) =>
  new SignJWT({ sub: `tenant-${country}`, roles: ['tenant'], country, iss: 'https://idp.test/', aud: 'topicgate' })
    .setProtectedHeader({ alg: 'HS256' })
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(SECRET));

async function countries(authorization: string): Promise<string[]> {
  const url = `${gateway.url}/v1/topics/payments_avro/events?since=${SINCE}&until=${UNTIL}&limit=all&format=ndjson`;
  const r = await fetch(url, { headers: { authorization } });
  const body = await r.text();
  expect(r.status, body).toBe(200);
  return body
    .split('\n')
    .filter(Boolean)
    .map((l) => (JSON.parse(l) as Row).value?.customer.country ?? 'none');
}

describe('a row policy on a decoded Avro field under npm start', () => {
  it('starts, and each caller reads only the rows its claims allow', async () => {
    const all = await countries(`Bearer ${ALL}`);
    expect([...new Set(all)]).toEqual(expect.arrayContaining(['DE', 'FR', 'US', 'JP', 'BR']));
    const de = await countries(`Bearer ${await token('DE')}`);
    const fr = await countries(`Bearer ${await token('FR')}`);
    expect(de).toEqual(all.filter((c) => c === 'DE'));
    expect(fr).toEqual(all.filter((c) => c === 'FR'));
    expect(de.length).toBeGreaterThan(0);
    expect(fr.length).toBeGreaterThan(0);
  });
});
