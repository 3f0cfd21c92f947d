/**
 * The HTTP surface as an attacker finds it, against the real Trino:
 * - DNS rebinding: a page whose name resolves to 127.0.0.1 sends its requests to an open loopback gateway with its
 *   own name in `Host`: 421 `TG_MISDIRECTED` and none of the data;
 * - shared caches: every GET route of the OpenAPI document answers a caller with `Cache-Control: private` (and
 *   `no-store` unless it carries a validator) and `Vary: Authorization, X-API-Key`; only the docs and the
 *   explorer's pages, asked without credentials, keep their own caching;
 * - CSV injection: keys, payloads and text fields that begin like a spreadsheet formula come out behind a `'`
 *   (numbers stay numbers), or as stored with TOPICGATE_CSV_FORMULAS=keep.
 * Events of its own topic, in a schema of the shared Trino's memory catalog created and dropped here.
 */
import { request as httpRequest } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { apiKeyHash } from '../../src/access/api-keys.js';
import { buildApp } from '../../src/server/app.js';
import { HttpTrino } from '../../src/trino/http-trino.js';
import { TOPIC_COLUMNS } from '../../scripts/demo-data.js';
import { testConfig, trinoUrl } from '../helpers.js';

const SCHEMA = 'http_surface|kafka_topics';
const TABLE = `vast."${SCHEMA}".formulas`;
const trino = new HttpTrino({ server: trinoUrl(), user: 'test' });
const dir = mkdtempSync(join(tmpdir(), 'topicgate-http-surface-'));
const KEY = 'http-surface-key-0123456789abcdef01';
const WINDOW = 'since=2026-11-01T00:00:00Z&until=2026-11-01T00:01:00Z';

/** Each event: its key and payload text (a formula, a number-like text, plain text) and its second. */
const EVENTS: [key: string, value: string][] = [
  ["=cmd|' /C calc'!A0", '{"amount":-5,"note":"=HYPERLINK(\\"http://evil.example\\",\\"x\\")"}'],
  ['+1+1', "@SUM(1+1)*cmd|' /C calc'!A0"],
  ['-2+3', '{"amount":7,"note":"-5"}'],
  ['plain', '\tfoo'],
];

const apps: FastifyInstance[] = [];
async function app(env: Record<string, string> = {}): Promise<FastifyInstance> {
  const a = await buildApp(testConfig({ TOPICGATE_SCHEMAS: SCHEMA, ...env }), { logger: false });
  apps.push(a);
  return a;
}

function configFile(): string {
  const file = join(dir, 'config.yaml');
  writeFileSync(
    file,
    stringify({
      topics: {
        formulas: {
          expand: { amount: { path: '$.amount', type: 'bigint' }, note: { path: '$.note', type: 'varchar' } },
        },
      },
      auth: {
        apiKeys: [{ principal: 'reader-1', sha256: apiKeyHash(KEY), roles: ['reader'] }],
        public: ['health', 'docs'],
      },
      access: [{ roles: ['reader'], topics: ['formulas'], actions: ['read', 'explain', 'infer', 'cursors', 'loads'] }],
    }),
  );
  return file;
}

beforeAll(async () => {
  await trino.all(`CREATE SCHEMA IF NOT EXISTS vast."${SCHEMA}"`);
  await trino.all(`DROP TABLE IF EXISTS ${TABLE}`);
  await trino.all(`CREATE TABLE ${TABLE} (${TOPIC_COLUMNS})`);
  const text = (s: string) => `to_utf8('${s.replaceAll("'", "''")}')`;
  const rows = EVENTS.map(
    ([k, v], i) =>
      `(${text(k)}, ${text(v)}, TIMESTAMP '2026-11-01 00:00:00.000' + INTERVAL '${i}' SECOND, ` +
      `TIMESTAMP '2026-11-01 00:00:00.000', CAST(ARRAY[] AS array(row(key varchar, value varbinary))))`,
  );
  await trino.all(`INSERT INTO ${TABLE} VALUES ${rows.join(', ')}`);
}, 60_000);
afterAll(async () => {
  await Promise.all(apps.map((a) => a.close()));
  await trino.all(`DROP TABLE IF EXISTS ${TABLE}`);
  await trino.all(`DROP SCHEMA IF EXISTS vast."${SCHEMA}"`);
  rmSync(dir, { recursive: true, force: true });
});

/** A GET over a real socket with the Host a browser would send for `host`. */
function get(port: number, path: string, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, headers: { host } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('DNS rebinding against an open loopback gateway', () => {
  it('a page under another name gets 421 TG_MISDIRECTED and no data; the loopback names are served', async () => {
    const a = await app();
    await a.listen({ host: '127.0.0.1', port: 0 });
    const port = (a.server.address() as { port: number }).port;
    for (const path of ['/v1/topics', `/v1/topics/formulas/events?${WINDOW}&format=csv`, '/docs/topics']) {
      const r = await get(port, path, `rebind.evil.example:${port}`);
      expect([r.status, JSON.parse(r.body).error.code], path).toEqual([421, 'TG_MISDIRECTED']);
      expect(r.body, path).toContain('TOPICGATE_ALLOWED_HOSTS');
      expect(r.body, path).not.toMatch(/formulas|calc/);
    }
    const own = await get(port, '/v1/topics', `127.0.0.1:${port}`);
    expect([own.status, own.body.includes('formulas')]).toEqual([200, true]);
    expect((await get(port, '/v1/topics', `localhost:${port}`)).status).toBe(200);
  });
});

describe('caller-dependent answers are private to the caller', () => {
  let gateway: FastifyInstance;
  const paths = new Map<string, string>();
  let streamUrl = '';
  const statuses = new Map<string, number>();
  beforeAll(async () => {
    gateway = await app({ TOPICGATE_CONFIG: configFile() });
    const headers = { 'x-api-key': KEY };
    const cursor = await gateway.inject({
      method: 'PUT',
      url: '/v1/cursors/surface',
      headers,
      payload: { topic: 'formulas', start: 'earliest' },
    });
    expect(cursor.statusCode, cursor.body).toBeLessThan(300);
    const session = await gateway.inject({
      method: 'POST',
      url: '/v1/topics/formulas/sessions',
      headers,
      payload: { since: '2026-11-01T00:00:00Z', until: '2026-11-01T00:01:00Z', streams: 1 },
    });
    expect(session.statusCode, session.body).toBe(201);
    // The stream's URL as the session gave it (its query carries the signed description).
    streamUrl = session.json().streams[0].url;
    paths.set('name', 'surface').set('topic', 'formulas');
  });

  /** Every GET of the committed OpenAPI document, its parameters filled for this topic, cursor and session. */
  const document = JSON.parse(readFileSync(new URL('../../openapi/openapi.json', import.meta.url), 'utf8')) as {
    paths: Record<string, Record<string, unknown>>;
  };
  const routes = Object.keys(document.paths).filter((p) => 'get' in document.paths[p]!);

  it('the document has the routes this table is about', () => {
    expect(routes).toEqual(expect.arrayContaining(['/v1/topics', '/v1/topics/{topic}/schema/infer', '/docs/topics']));
  });

  it.each(routes)('GET %s with credentials: private, varying on them', async (route) => {
    let url = route.replace(/\{(\w+)\}/g, (_m, name: string) => paths.get(name) ?? name);
    if (route.includes('/events') || route.includes('/infer')) url += `?${WINDOW}`;
    if (route.includes('/streams/')) url = streamUrl;
    const r = await gateway.inject({ url, headers: { 'x-api-key': KEY } });
    statuses.set(route, r.statusCode);
    const cacheControl = String(r.headers['cache-control'] ?? '');
    const vary = String(r.headers.vary ?? '')
      .split(',')
      .map((s) => s.trim());
    const what = `${url} -> ${r.statusCode} ${cacheControl}`;
    expect(cacheControl.split(', ')[0], what).toBe('private');
    expect(cacheControl, what).not.toMatch(/public|s-maxage/);
    if (r.headers.etag === undefined && r.headers['last-modified'] === undefined) {
      expect(cacheControl, what).toMatch(/no-store/);
    }
    expect(vary, what).toEqual(expect.arrayContaining(['Authorization', 'X-API-Key']));
  });

  it('the table above reached the answers themselves, not only refusals', () => {
    const ok = [...statuses].filter(([, status]) => status === 200).map(([route]) => route);
    expect(ok).toEqual(
      expect.arrayContaining([
        '/v1/topics',
        '/v1/topics/{topic}',
        '/v1/topics/{topic}/events',
        '/v1/topics/{topic}/sessions/{session}/streams/{index}',
        '/v1/cursors/{name}',
        '/v1/cursors/{name}/history',
        '/v1/topics/{topic}/schema/infer',
        '/docs/topics',
      ]),
    );
  });

  it('a settled window keeps its validator and freshness, private', async () => {
    const url = `/v1/topics/formulas/events?${WINDOW}`;
    const r = await gateway.inject({ url, headers: { authorization: `Bearer ${KEY}` } });
    expect([r.statusCode, r.headers['cache-control']]).toEqual([
      200,
      expect.stringMatching(/^private, max-age=\d+, immutable$/),
    ]);
    expect(r.headers.etag).toMatch(/^"/);
  });

  it('a refusal is private too, and only the docs asked without credentials keep their own caching', async () => {
    const refused = await gateway.inject({ url: '/v1/topics' });
    expect([refused.statusCode, refused.headers['cache-control']]).toEqual([401, 'private, no-store']);
    expect(String(refused.headers.vary)).toContain('X-API-Key');
    const page = await gateway.inject({ url: '/explore' });
    expect([page.statusCode, page.headers['cache-control'], page.headers.vary]).toEqual([200, 'no-cache', undefined]);
    const doc = await gateway.inject({ url: '/openapi.json' });
    expect([doc.statusCode, doc.headers['cache-control']]).toEqual([200, undefined]);
  });
});

describe('CSV downloads and spreadsheet formulas', () => {
  const url = `/v1/topics/formulas/events?${WINDOW}&format=csv&select=key,value,amount,note`;
  const config = () => configFile();

  it('cells of text that begin like a formula get a quote before them; numbers stay numbers', async () => {
    const a = await app({ TOPICGATE_CONFIG: config() });
    const r = await a.inject({ url, headers: { 'x-api-key': KEY } });
    expect(r.statusCode, r.body).toBe(200);
    expect(r.body.split('\r\n')).toEqual([
      'key,value,amount,note',
      `"'=cmd|' /C calc'!A0","{""amount"":-5,""note"":""=HYPERLINK(\\""http://evil.example\\"",\\""x\\"")""}",-5,"'=HYPERLINK(""http://evil.example"",""x"")"`,
      `"'+1+1","'@SUM(1+1)*cmd|' /C calc'!A0",,`,
      `"'-2+3","{""amount"":7,""note"":""-5""}",7,"'-5"`,
      `plain,"'\tfoo",,`,
      '',
    ]);
  });

  it('TOPICGATE_CSV_FORMULAS=keep writes them as stored', async () => {
    const a = await app({ TOPICGATE_CONFIG: config(), TOPICGATE_CSV_FORMULAS: 'keep' });
    const r = await a.inject({ url, headers: { 'x-api-key': KEY } });
    expect(r.body.split('\r\n').slice(1, 5)).toEqual([
      `=cmd|' /C calc'!A0,"{""amount"":-5,""note"":""=HYPERLINK(\\""http://evil.example\\"",\\""x\\"")""}",-5,"=HYPERLINK(""http://evil.example"",""x"")"`,
      `+1+1,@SUM(1+1)*cmd|' /C calc'!A0,,`,
      `-2+3,"{""amount"":7,""note"":""-5""}",7,-5`,
      `plain,\tfoo,,`,
    ]);
  });
});
