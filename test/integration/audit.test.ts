/**
 * The audit line: one structured log line per data request with principal, topic, action, Trino
 * query id, rows, bytes, duration and outcome; no key, token or password in any log line.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { buildApp } from '../../src/server/app.js';
import { apiKeyHash } from '../../src/access/api-keys.js';
import { testConfig } from '../helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'topicgate-audit-'));
const KEY = 'key-audited-000000000000000000000';
const lines: Record<string, unknown>[] = [];
let app: FastifyInstance;

beforeAll(async () => {
  const file = join(dir, 'audit.yaml');
  writeFileSync(
    file,
    stringify({
      auth: { apiKeys: [{ principal: 'auditor-1', sha256: apiKeyHash(KEY), roles: ['r'] }] },
      access: [{ roles: ['r'], topics: ['orders'], actions: ['read'] }],
    }),
  );
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString().split('\n').filter(Boolean))
        lines.push(JSON.parse(l) as Record<string, unknown>);
      done();
    },
  });
  app = await buildApp(testConfig({ TOPICGATE_CONFIG: file }), { logger: { level: 'info', stream } });
});
afterAll(async () => {
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

const audits = () => lines.filter((l) => l.msg === 'audit').map((l) => l.audit as Record<string, unknown>);

describe('audit', () => {
  it('one line per data request: who, what, the Trino query, rows, bytes, duration, outcome', async () => {
    const r = await app.inject({
      url: '/v1/topics/orders/events?since=2026-11-01T00:00:00Z&until=2026-11-01T01:00:00Z&limit=7&format=ndjson',
      headers: { 'x-api-key': KEY },
    });
    expect(r.statusCode).toBe(200);
    const mine = audits().filter((a) => a.queryId === r.headers['x-trino-query-id']);
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({
      principal: 'auditor-1',
      via: 'api-key',
      topic: 'orders',
      action: 'read',
      route: 'GET /v1/topics/:topic/events',
      rows: 7,
      status: 200,
      outcome: 'ok',
    });
    expect(mine[0]!.durationMs).toEqual(expect.any(Number));
    expect(mine[0]!.bytes).toEqual(expect.any(Number));
  });

  it('a refused data request is audited too; no credential appears in any log line', async () => {
    const before = audits().length;
    const r = await app.inject({ url: '/v1/topics/orders/schema/infer', headers: { 'x-api-key': KEY } });
    expect(r.statusCode).toBe(403);
    expect(audits().slice(before)).toEqual([
      expect.objectContaining({
        principal: 'auditor-1',
        topic: 'orders',
        action: 'infer',
        status: 403,
        outcome: 'refused',
      }),
    ]);
    await app.inject({ url: '/v1/topics', headers: { 'x-api-key': 'key-wrong-secret-0000000000000000' } });
    await app.inject({ url: '/v1/topics', headers: { authorization: 'Bearer key-wrong-secret-0000000000000000' } });
    const all = JSON.stringify(lines);
    expect(all).not.toContain(KEY);
    expect(all).not.toContain('key-wrong-secret');
    expect(lines.some((l) => l.msg === 'credentials refused')).toBe(true);
  });
});
