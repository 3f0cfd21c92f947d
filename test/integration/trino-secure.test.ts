/**
 * The gateway against a Trino configured like production (scripts/secure-trino.ts): HTTPS with a
 * certificate from a CA the test made, password and JWT authentication, file-based access control with
 * impersonation and table rules. Started once for this file (its own port), stopped after; the denied load's cases
 * (test/secure-load-cases.ts) run on it too, so a test run starts one such Trino for both.
 */
import { request as httpsRequest } from 'node:https';
import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { generateKeyPairSync } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/server/app.js';
import { loadConfig } from '../../src/server/load-config.js';
import { startServer } from '../../src/server.js';
import {
  loadSecureTopics,
  secureClient,
  secureDown,
  secureGatewayEnv,
  secureJwt,
  secureLayout,
  secureUp,
  type SecureUser,
} from '../../scripts/secure-trino.js';
import { describeDeniedLoad } from '../secure-load-cases.js';

// Light queries only: C1 alone compiles them for less CPU (scripts/secure-trino.ts, `jit`).
const l = secureLayout({
  ...process.env,
  TOPICGATE_SECURE_TRINO_PORT: '18443',
  TOPICGATE_SECURE_TRINO_JIT: 'quick',
  TOPICGATE_SECURE_TRINO_GC: 'parallel',
});
const dir = mkdtempSync(join(tmpdir(), 'topicgate-secure-'));
const SINCE = 'since=2026-11-01T00:00:00Z';
let started = false;

beforeAll(async () => {
  started = (await secureUp(l)).started;
  await loadSecureTopics(l, { orders: 500, clicks: 2000 });
}, 300_000);

afterAll(async () => {
  if (started) await secureDown(l);
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

const password = (user: SecureUser) => readFileSync(l.passwordFile(user), 'utf8').trim();

function env(extra: Record<string, string> = {}): Record<string, string> {
  return {
    ...secureGatewayEnv(l),
    // The gateway runs in the test's process, whose event loop the test itself holds at times.
    TOPICGATE_MAX_EVENT_LOOP_DELAY_MS: '0',
    TOPICGATE_STATE_URL: 'sqlite::memory:',
    ...extra,
  };
}

/** An app on the secure Trino; its log lines are kept (to check what is logged, and what never is). */
async function app(extra: Record<string, string> = {}): Promise<{ app: FastifyInstance; logs: string[] }> {
  const logs: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      logs.push(String(chunk));
      done();
    },
  });
  const a = await buildApp(loadConfig(env(extra)), { logger: { level: 'info', stream } });
  // Stands in for the access plugin's authentication: a test header names the principal, as an API key's (whose
  // principal is its Trino user under impersonation).
  a.addHook('onRequest', async (request) => {
    const as = request.headers['x-test-principal'];
    if (typeof as === 'string') {
      request.principal = { id: `key:${as}`, name: as, via: 'api-key', roles: [], claims: { sub: as } };
    }
  });
  return { app: a, logs };
}

/** GET /v1/query/{id} on the secure Trino as admin: the query's session (user, source, client tags). */
function queryInfo(queryId: string): Promise<{
  session: { user: string; source: string; clientTags: string[]; systemProperties: Record<string, string> };
}> {
  return new Promise((resolve, reject) => {
    const auth = Buffer.from(`admin:${password('admin')}`).toString('base64');
    const req = httpsRequest(
      `${l.url}/v1/query/${queryId}`,
      { ca: readFileSync(l.caFile), headers: { Authorization: `Basic ${auth}`, 'X-Trino-User': 'admin' } },
      (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (d: string) => (body += d));
        res.on('end', () => (res.statusCode === 200 ? resolve(JSON.parse(body)) : reject(new Error(body))));
      },
    );
    req.on('error', reject).end();
  });
}

describe('TLS', () => {
  it('verified against TOPICGATE_TRINO_CA_FILE: the gateway starts and reads', async () => {
    const { app: a, logs } = await app();
    try {
      const ready = await a.inject('/readyz');
      expect([ready.statusCode, ready.json().status]).toEqual([200, 'ready']);
      const r = await a.inject(`/v1/topics/orders/events?${SINCE}&limit=3&format=ndjson`);
      expect(r.statusCode, `${r.body.slice(0, 400)}\n${logs.join('').slice(-2000)}`).toBe(200);
      expect(r.body.trimEnd().split('\n')).toHaveLength(3);
    } finally {
      await a.close();
    }
  });

  it.each([
    ['no CA file (Node bundled CAs)', { TOPICGATE_TRINO_CA_FILE: '' }],
    ['a CA that did not sign the certificate', { TOPICGATE_TRINO_CA_FILE: l.otherCaFile }],
  ])('refused with %s: start-up names the certificate problem, reads are 503', async (_label, extra) => {
    await expect(startServer(loadConfig(env({ ...extra, TOPICGATE_PORT: '0' })))).rejects.toThrow(
      `TOPICGATE_TRINO_URL=${l.url}: Trino is not reachable (UNABLE_TO_VERIFY_LEAF_SIGNATURE)`,
    );
    const { app: a } = await app(extra);
    try {
      const r = await a.inject(`/v1/topics/orders/events?${SINCE}&limit=1`);
      expect([r.statusCode, r.json().error.code, r.headers['retry-after']]).toEqual([503, 'TG_TRINO_UNAVAILABLE', '5']);
    } finally {
      await a.close();
    }
  });
});

describe('credentials', () => {
  it('a wrong password: 502 TG_TRINO_AUTH (not "unreachable"), logged loudly, the password nowhere', async () => {
    const wrong = join(dir, 'wrong.password');
    writeFileSync(wrong, 'not-the-password-7f3a\n');
    const { app: a, logs } = await app({ TOPICGATE_TRINO_PASSWORD_FILE: wrong });
    try {
      const r = await a.inject(`/v1/topics/orders/events?${SINCE}&limit=1`);
      expect([r.statusCode, r.json().error.code]).toEqual([502, 'TG_TRINO_AUTH']);
      expect(r.headers['retry-after']).toBeUndefined();
      const text = logs.join('');
      expect(text).toContain('TRINO REFUSED THE GATEWAY CREDENTIALS');
      expect(`${text}${r.body}`).not.toContain('not-the-password-7f3a');
      expect(`${text}${r.body}`).not.toContain(Buffer.from('topicgate:not-the-password-7f3a').toString('base64'));
    } finally {
      await a.close();
    }
  });

  it('a wrong password stops start-up with one line (the catalog check), not "unreachable"', async () => {
    const wrong = join(dir, 'wrong-start.password');
    writeFileSync(wrong, 'not-the-password-9c1e\n');
    const err = await startServer(loadConfig(env({ TOPICGATE_TRINO_PASSWORD_FILE: wrong, TOPICGATE_PORT: '0' }))).catch(
      (e: unknown) => e as Error,
    );
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toBe("Trino did not accept the gateway's credentials (HTTP 401)");
  });

  it('the password is in no response: explain, metrics, errors', async () => {
    const secret = password('topicgate');
    const { app: a, logs } = await app({ TOPICGATE_LOG_LEVEL: 'debug' });
    try {
      const bodies = await Promise.all(
        [
          `/v1/topics/orders/events?${SINCE}&limit=1&explain=true`,
          `/v1/topics/orders/events?${SINCE}&limit=1&format=csv`,
          '/v1/topics/nope/events',
          '/readyz',
          '/metrics',
        ].map(async (url) => (await a.inject(url)).body),
      );
      expect(bodies[0]).toContain('"plan"');
      const basic = Buffer.from(`topicgate:${secret}`).toString('base64');
      for (const text of [...bodies, logs.join('')]) {
        expect(text).not.toContain(secret);
        expect(text).not.toContain(basic);
      }
    } finally {
      await a.close();
    }
  });

  it('the right password from TOPICGATE_TRINO_PASSWORD works the same as the file', async () => {
    const { app: a } = await app({
      TOPICGATE_TRINO_PASSWORD_FILE: '',
      TOPICGATE_TRINO_PASSWORD: password('topicgate'),
    });
    try {
      expect((await a.inject(`/v1/topics/orders/events?${SINCE}&limit=1`)).statusCode).toBe(200);
    } finally {
      await a.close();
    }
  });

  it('a bearer token file rotated while the gateway runs is picked up, both ways', async () => {
    const tokenFile = join(dir, 'trino.token');
    const foreign = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({
      type: 'pkcs8',
      format: 'pem',
    });
    const rotate = (token: string) => {
      // As a secret manager does: write a new file, then rename it over the old one.
      writeFileSync(`${tokenFile}.new`, `${token}\n`);
      renameSync(`${tokenFile}.new`, tokenFile);
    };
    rotate(secureJwt(l, 'topicgate', { keyPem: String(foreign) }));
    const { app: a, logs } = await app({ TOPICGATE_TRINO_PASSWORD_FILE: '', TOPICGATE_TRINO_TOKEN_FILE: tokenFile });
    try {
      const read = () => a.inject(`/v1/topics/orders/events?${SINCE}&limit=1`);
      expect((await read()).json().error.code).toBe('TG_TRINO_AUTH');
      const good = secureJwt(l, 'topicgate');
      rotate(good);
      expect((await read()).statusCode).toBe(200);
      rotate(secureJwt(l, 'topicgate', { keyPem: String(foreign) }));
      // The port checks the file at most every second (a 401 re-reads it at once, here still refused).
      await new Promise((r) => setTimeout(r, 1100));
      // The catalog listing is cached for 10 s: ask for a topic read, which always queries Trino.
      expect((await read()).json().error.code).toBe('TG_TRINO_AUTH');
      expect(logs.join('')).not.toContain(good.split('.')[2]);
    } finally {
      await a.close();
    }
  });
});

describe('impersonation, source and client tags', () => {
  let a: FastifyInstance;
  beforeAll(async () => {
    const config = join(dir, 'topics.yaml');
    writeFileSync(config, 'topics:\n  orders:\n    session: { query_priority: 3 }\n    tags: [orders-team, read]\n');
    a = (await app({ TOPICGATE_TRINO_IMPERSONATE: 'true', TOPICGATE_CONFIG: config })).app;
  });
  afterAll(() => a.close());

  const read = (topic: string, as: string, extra = '') =>
    a.inject({ url: `/v1/topics/${topic}/events?${SINCE}&limit=2${extra}`, headers: { 'x-test-principal': as } });

  it('alice may read orders: the query runs as alice, source topicgate, tags and session from config', async () => {
    const r = await read('orders', 'alice');
    expect(r.statusCode).toBe(200);
    expect(r.json().rows).toHaveLength(2);
    const queryId = String(r.headers['x-trino-query-id']);
    const [[source, user]] = (
      await secureClient(l, 'admin').all(
        `SELECT source, "user" FROM system.runtime.queries WHERE query_id = '${queryId.replace(/[^a-z0-9_]/g, '')}'`,
      )
    ).rows as [[string, string]];
    expect([source, user]).toEqual(['topicgate', 'alice']);
    const info = await queryInfo(queryId);
    expect(info.session.clientTags.sort()).toEqual(['orders-team', 'read', 'topicgate']);
    expect(info.session.systemProperties.query_priority).toBe('3');
  });

  it('explain is tagged explain', async () => {
    const r = await read('orders', 'alice', '&explain=true');
    expect(r.statusCode).toBe(200);
    const rows = await secureClient(l, 'admin').all(
      `SELECT query_id FROM system.runtime.queries WHERE "user" = 'alice' AND query LIKE 'EXPLAIN %' ORDER BY created DESC LIMIT 1`,
    );
    const info = await queryInfo(String(rows.rows[0]![0]));
    expect(info.session.clientTags.sort()).toEqual(['explain', 'orders-team', 'read', 'topicgate']);
  });

  it.each([
    [
      'alice on clicks (no table rule)',
      'clicks',
      'alice',
      'Trino denied the query: Cannot select from table vast.topics.clicks',
    ],
    [
      'bob on orders (no table rule)',
      'orders',
      'bob',
      'Trino denied the query: Cannot select from table vast.topics.orders',
    ],
    [
      'carol (no impersonation rule)',
      'orders',
      'carol',
      'Trino denied the query: User topicgate cannot impersonate user carol',
    ],
  ])('%s: 403 TG_FORBIDDEN naming what was denied', async (_label, topic, as, message) => {
    const r = await read(topic, as);
    expect(r.statusCode).toBe(403);
    expect(r.json().error).toMatchObject({ code: 'TG_FORBIDDEN', status: 403, message });
  });

  it('every kind of read carries its action: infer and a cursor batch', async () => {
    const infer = await a.inject({
      url: `/v1/topics/orders/schema/infer?since=2026-11-01T00:00:00Z&until=2026-11-02T00:00:00Z&sample=10`,
      headers: { 'x-test-principal': 'alice' },
    });
    expect(infer.statusCode).toBe(200);
    const put = await a.inject({
      method: 'PUT',
      url: '/v1/cursors/alice-orders',
      payload: { topic: 'orders', start: 'earliest' },
      headers: { 'x-test-principal': 'alice' },
    });
    expect(put.statusCode).toBe(201);
    const batch = await a.inject({
      method: 'POST',
      url: '/v1/cursors/alice-orders/read?limit=5',
      headers: { 'x-test-principal': 'alice' },
    });
    expect(batch.statusCode).toBe(200);
    const info = await queryInfo(String(batch.headers['x-trino-query-id']));
    expect([info.session.user, info.session.clientTags.sort()]).toEqual([
      'alice',
      ['cursors', 'orders-team', 'read', 'topicgate'],
    ]);
    const rows = await secureClient(l, 'admin').all(
      `SELECT query_id FROM system.runtime.queries WHERE "user" = 'alice' AND query LIKE '%LIMIT 10%' ORDER BY created DESC LIMIT 1`,
    );
    expect((await queryInfo(String(rows.rows[0]![0]))).session.clientTags).toContain('infer');
  });
});

describeDeniedLoad(l);
