/**
 * A heap attack (requests that would each hold a large decoded result), on the server process as `npm start` runs it (with a 512 MB heap, so the
 * attack is cheap to mount) against the real Trino and Schema Registry: twelve concurrent requests from one API key,
 * each sorting or aggregating a decoded Avro field over a window of 10,000 events of 8 KB each (a view that
 * generates them, framed as Confluent's serializer writes them). Held whole, each would keep about 90 MB of the
 * gateway's heap, and the twelve together twice the heap. With the limits' defaults (16 queries at once per
 * caller, `limits.maxGatewayBytes` a quarter of the heap) each is answered 4xx (422 TG_TOO_EXPENSIVE, or 429
 * TG_TOO_MANY_REQUESTS) naming the limit that refused it, `/healthz` answers 200 all along, and the gateway serves a
 * normal read afterwards.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { stringify } from 'yaml';
import { apiKeyHash } from '../../src/access/api-keys.js';
import { HttpTrino } from '../../src/trino/http-trino.js';
import { serverCommand, trinoUrl } from '../helpers.js';

const SCHEMA = 'heap_attack|kafka_topics';
const TOPIC = 'big_avro';
const EVENTS = 10_000;
/** Characters of each event's string field. */
const TEXT = 8_000;
const HEAP_MB = 512;
const KEY = 'key-attacker-000000000000000000000000';
const BASE = Date.UTC(2026, 10, 1);
const WINDOW = { since: new Date(BASE).toISOString(), until: new Date(BASE + EVENTS * 10).toISOString() };
const registryUrl = inject('registryUrl');
const trino = new HttpTrino({ server: trinoUrl(), user: 'test' });
const dir = mkdtempSync(join(tmpdir(), 'topicgate-heap-'));
let proc: ChildProcess | undefined;
let url = '';

/** Avro's zigzag varint of a long, as hex. */
function varint(n: number): string {
  let z = n * 2;
  let hex = '';
  while (z >= 0x80) {
    hex += ((z & 0x7f) | 0x80).toString(16).padStart(2, '0');
    z = Math.floor(z / 0x80);
  }
  return hex + z.toString(16).padStart(2, '0');
}

async function register(): Promise<number> {
  const schema = JSON.stringify({ type: 'record', name: 'Big', fields: [{ name: 's', type: 'string' }] });
  const res = await fetch(`${registryUrl}/subjects/${TOPIC}-value/versions`, {
    method: 'POST',
    headers: { 'content-type': 'application/vnd.schemaregistry.v1+json' },
    body: JSON.stringify({ schema }),
  });
  expect(res.status, await res.clone().text()).toBe(200);
  return ((await res.json()) as { id: number }).id;
}

function startGateway(config: string): Promise<string> {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('TOPICGATE_')) env[k] = v;
  const server = serverCommand();
  const child = spawn(server.command, [`--max-old-space-size=${HEAP_MB}`, ...server.args], {
    cwd: server.cwd,
    env: {
      ...env,
      TOPICGATE_TRINO_URL: trinoUrl(),
      TOPICGATE_SCHEMAS: SCHEMA,
      TOPICGATE_CONFIG: config,
      TOPICGATE_CURSOR_SECRET: 'heap-attack-cursor-secret-0123456789abcdef',
      TOPICGATE_STATE_URL: 'sqlite::memory:',
      TOPICGATE_PORT: '0',
      TOPICGATE_LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  proc = child;
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`the gateway did not start: ${out}`)), 60_000);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /"url":"(http:[^"]+)"/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    child.on('exit', (code) => reject(new Error(`the gateway exited ${code}: ${out.slice(-2000)}`)));
  });
}

beforeAll(async () => {
  const id = await register();
  await trino.all(`CREATE SCHEMA IF NOT EXISTS vast."${SCHEMA}"`);
  // Event i at BASE + 10i ms, its value the record {s: i padded with x to TEXT characters}, Confluent-framed.
  const frame = `X'00' || to_big_endian_32(${id}) || X'${varint(TEXT)}'`;
  await trino.all(
    `CREATE OR REPLACE VIEW vast."${SCHEMA}".${TOPIC} AS SELECT to_utf8('k' || CAST(i AS varchar)) AS key,
      ${frame} || to_utf8(lpad(CAST(i AS varchar), ${TEXT}, 'x')) AS value,
      date_add('millisecond', 10 * i, TIMESTAMP '2026-11-01 00:00:00.000') AS timestamp_broker,
      date_add('millisecond', 10 * i, TIMESTAMP '2026-11-01 00:00:00.000') AS timestamp_producer,
      CAST(ARRAY[] AS array(row(key varchar, value varbinary))) AS headers
    FROM UNNEST(sequence(0, ${EVENTS - 1})) AS t(i)`,
  );
  const config = join(dir, 'c.yaml');
  writeFileSync(
    config,
    stringify({
      auth: { apiKeys: [{ principal: 'attacker', sha256: apiKeyHash(KEY), roles: ['reader'] }] },
      access: [{ roles: ['reader'], topics: ['*'], actions: ['read'] }],
      schemaRegistry: { url: registryUrl },
      topics: { [TOPIC]: { value: { format: 'avro' } } },
    }),
  );
  url = await startGateway(config);
}, 120_000);

afterAll(async () => {
  if (proc && proc.exitCode === null) proc.kill('SIGKILL');
  await trino.all(`DROP VIEW IF EXISTS vast."${SCHEMA}".${TOPIC}`);
  await trino.all(`DROP SCHEMA IF EXISTS vast."${SCHEMA}"`);
  rmSync(dir, { recursive: true, force: true });
});

const headers = { 'x-api-key': KEY, 'content-type': 'application/json' };

/** The n-th attacker: sorts (even) or aggregates (odd) by the decoded field over the whole window. */
function attack(n: number): Promise<{ status: number; body: string }> {
  const body =
    n % 2 === 0
      ? { select: ['key', 'value.s'], order: [{ field: 'value.s', dir: 'desc' }], limit: 10, ...WINDOW }
      : { select: ['value.s', { fn: 'count', as: 'n' }], groupBy: ['value.s'], limit: 10, ...WINDOW };
  return fetch(`${url}/v1/topics/${TOPIC}/query`, { method: 'POST', headers, body: JSON.stringify(body) }).then(
    async (res) => ({ status: res.status, body: await res.text() }),
  );
}

describe('twelve heavy requests from one key', () => {
  it('are each answered 4xx naming a limit, while /healthz keeps answering', async () => {
    const health: number[] = [];
    let done = false;
    const probing = (async () => {
      while (!done) {
        health.push(
          await fetch(`${url}/healthz`).then(
            (r) => r.status,
            () => 0,
          ),
        );
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    const answers = await Promise.all(Array.from({ length: 12 }, (_, n) => attack(n))).finally(() => {
      done = true;
    });
    await probing;
    for (const a of answers) {
      expect([422, 429], a.body.slice(0, 300)).toContain(a.status);
      const { code, details } = JSON.parse(a.body).error;
      expect(code).toBe(a.status === 422 ? 'TG_TOO_EXPENSIVE' : 'TG_TOO_MANY_REQUESTS');
      expect(['limits.maxGatewayBytes', 'concurrentQueries']).toContain(details.limit);
    }
    expect(answers.some((a) => JSON.parse(a.body).error.details.limit === 'limits.maxGatewayBytes')).toBe(true);
    expect(health.length).toBeGreaterThan(0);
    expect(health.every((s) => s === 200)).toBe(true);
    expect(proc!.exitCode).toBeNull();
    // The same key's ordinary read is served afterwards.
    const q = `since=${WINDOW.since}&until=${WINDOW.until}&limit=3&select=key,value.s&format=ndjson`;
    const ok = await fetch(`${url}/v1/topics/${TOPIC}/events?${q}`, { headers });
    expect(ok.status).toBe(200);
    expect((await ok.text()).split('\n').filter(Boolean)).toHaveLength(3);
  }, 300_000);
});
