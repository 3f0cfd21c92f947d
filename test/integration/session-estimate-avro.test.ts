/**
 * A session's `estimatedRows` is no oracle (API.md "Read sessions"): a row policy on a decoded Avro field runs in
 * the gateway after decoding, so the count query Trino runs before it cannot apply it. Such a caller's session
 * shows no estimate and is cut by time alone, never by counts of rows it may not read; its streams are still
 * exactly its `limit=all` read. A caller whose policies all run in Trino keeps its estimate.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { stringify } from 'yaml';
import { registerDemoSchemas } from '../../scripts/demo-avro.js';
import { apiKeyHash } from '../../src/access/api-keys.js';
import { buildApp } from '../../src/server/app.js';
import { testConfig } from '../helpers.js';
import { bulkRead, createSession, expectUnionIsBulk, ndjsonLines } from '../session-reads.js';

const dir = mkdtempSync(join(tmpdir(), 'topicgate-session-estimate-'));
const registryUrl = inject('registryUrl');
const WINDOW = { since: '2026-11-01T00:00:00Z', until: '2026-11-04T00:00:00Z' };
const KEYS = { authorized: 'key-estimate-authorized-0000000000', all: 'key-estimate-all-00000000000000000' };
const TOPIC = 'payments_avro';

let app: FastifyInstance;
beforeAll(async () => {
  await registerDemoSchemas(registryUrl);
  const file = join(dir, 'avro.yaml');
  writeFileSync(
    file,
    stringify({
      schemaRegistry: { url: registryUrl },
      topics: { [TOPIC]: { key: { format: 'avro' }, value: { format: 'avro' } } },
      auth: {
        apiKeys: [
          { principal: 'authorized-1', sha256: apiKeyHash(KEYS.authorized), roles: ['authorized'] },
          { principal: 'all-1', sha256: apiKeyHash(KEYS.all), roles: ['all'] },
        ],
      },
      access: [{ roles: ['authorized', 'all'], topics: [TOPIC], actions: ['read'] }],
      rowPolicies: { default: 'allow', [TOPIC]: [{ roles: ['authorized'], filter: 'value.status=eq.AUTHORIZED' }] },
    }),
  );
  const config = testConfig({
    TOPICGATE_CONFIG: file,
    TOPICGATE_CURSOR_SECRET: 'session-estimate-cursor-secret-0123456789',
  });
  app = await buildApp(config, { logger: false });
});
afterAll(async () => {
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

const headers = (who: keyof typeof KEYS) => ({ 'x-api-key': KEYS[who] });
type Estimated = { estimatedRows?: number };

describe('estimatedRows under a decoded-field row policy', () => {
  it('tells nothing of rows the policy hides: no estimate, whatever the request narrows to', async () => {
    const body = { ...WINDOW, select: ['key', 'value.status'], streams: 4 };
    const mine = ndjsonLines(await bulkRead(app, TOPIC, body, 'ndjson', headers('authorized')));
    const everyone = ndjsonLines(await bulkRead(app, TOPIC, body, 'ndjson', headers('all')));
    // The policy hides rows here: an estimate from the count before decoding would be the window's, not the caller's.
    expect(mine.length).toBeGreaterThan(0);
    expect(everyone.length).toBeGreaterThan(mine.length);
    const s = await createSession(app, TOPIC, body, headers('authorized'));
    for (const stream of s.streams as Estimated[]) expect(stream.estimatedRows).toBeUndefined();
    // A probe for a status the policy hides: whether such rows exist is not told either.
    const probe = { ...body, where: { field: 'value.status', op: 'neq', value: 'AUTHORIZED' }, streams: 2 };
    const hidden = await createSession(app, TOPIC, probe, headers('authorized'));
    expect(hidden.streams.map((x) => (x as Estimated).estimatedRows)).toEqual([undefined, undefined]);
  });

  it('cut by time alone: equal widths, and still exactly its limit=all read', async () => {
    const body = { ...WINDOW, select: ['key', 'value.status', 'timestamp_broker'], streams: 3 };
    const { session, rows } = await expectUnionIsBulk(app, TOPIC, body, headers('authorized'));
    expect(rows).toBeGreaterThan(0);
    const widths = session.streams.map((x) => Date.parse(x.until) - Date.parse(x.since));
    expect(Math.max(...widths) - Math.min(...widths)).toBeLessThanOrEqual(1);
  });

  it('a caller whose policies all run in Trino keeps its estimate, the rows it reads', async () => {
    const body = { ...WINDOW, select: ['key'], streams: 2 };
    const s = await createSession(app, TOPIC, body, headers('all'));
    const rows = ndjsonLines(await bulkRead(app, TOPIC, body, 'ndjson', headers('all'))).length;
    expect(s.streams.reduce((a, x) => a + x.estimatedRows, 0)).toBe(rows);
  });
});
