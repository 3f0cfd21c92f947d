/**
 * The registry client over real HTTP against a small stand-in server (a fake in a unit test; the integration tests
 * use Apicurio): basic auth sent, schemas cached by id (one request for many callers), at most `maxConcurrent`
 * requests in flight, an unknown id as null, failures as 502 TG_SCHEMA_REGISTRY that are not cached (recovery).
 */
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SchemaRegistry } from '../../src/blob/avro/schema-registry.js';

const dir = mkdtempSync(join(tmpdir(), 'topicgate-sr-'));
const passwordFile = join(dir, 'pw');
writeFileSync(passwordFile, 's3cret\nignored\n');

let server: Server;
let url = '';
let requests: { path: string; auth: string | undefined }[] = [];
let inFlight = 0;
let maxInFlight = 0;
let failing = false;

beforeAll(async () => {
  server = createServer((req, res) => {
    requests.push({ path: req.url ?? '', auth: req.headers.authorization });
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    setTimeout(() => {
      inFlight--;
      const id = /\/schemas\/ids\/(\d+)$/.exec(req.url ?? '')?.[1];
      if (failing) return void res.writeHead(500).end('boom');
      if (id === '404' || Number(id) >= 100_000) return void res.writeHead(404).end('{"error_code":40403}');
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ schema: `"string"` }));
    }, 20);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const a = server.address();
  url = `http://127.0.0.1:${typeof a === 'object' && a ? a.port : 0}/apis/ccompat/v7`;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
  rmSync(dir, { recursive: true, force: true });
});
beforeEach(() => {
  requests = [];
  maxInFlight = 0;
  failing = false;
});

const client = (o: { auth?: boolean; maxConcurrent?: number; maxCachedSchemas?: number } = {}) =>
  new SchemaRegistry({
    url,
    username: o.auth ? 'gateway' : undefined,
    passwordFile: o.auth ? passwordFile : undefined,
    maxConcurrent: o.maxConcurrent ?? 4,
    timeoutMs: 2000,
    maxCachedSchemas: o.maxCachedSchemas ?? 1000,
    unknownIdTtlMs: 60_000,
  });
const asked = (id: number) => requests.filter((r) => r.path.endsWith(`/schemas/ids/${id}`)).length;

describe('SchemaRegistry', () => {
  it('sends basic auth from the password file, and caches a schema by id', async () => {
    const r = client({ auth: true });
    const all = await Promise.all([r.byId(1), r.byId(1), r.byId(1)]);
    expect(all.every((s) => s?.schema === '"string"' && s.schemaType === 'AVRO')).toBe(true);
    await r.byId(1);
    expect(requests).toEqual([
      { path: '/apis/ccompat/v7/schemas/ids/1', auth: `Basic ${Buffer.from('gateway:s3cret').toString('base64')}` },
    ]);
  });

  it('keeps at most maxConcurrent requests in flight', async () => {
    const r = client({ maxConcurrent: 2 });
    await Promise.all(Array.from({ length: 8 }, (_, i) => r.byId(i + 10)));
    expect(requests).toHaveLength(8);
    expect(maxInFlight).toBe(2);
  });

  it('an unknown id is null; a failing registry is a 502 that is not cached', async () => {
    const r = client();
    expect(await r.byId(404)).toBeNull();
    failing = true;
    await expect(r.byId(5)).rejects.toMatchObject({ code: 'TG_SCHEMA_REGISTRY', status: 502 });
    failing = false;
    expect((await r.byId(5))?.schema).toBe('"string"');
  });

  it('an unknown id is remembered for unknownIdTtlMs, then asked again', async () => {
    const r = client();
    const now = Date.now();
    expect(await r.byId(100_001, now)).toBeNull();
    expect(await r.byId(100_001, now + 59_000)).toBeNull();
    expect(asked(100_001)).toBe(1);
    expect(await r.byId(100_001, now + 61_000)).toBeNull();
    expect(asked(100_001)).toBe(2);
  });

  it('a flood of unknown ids keeps the cache at maxCachedSchemas, least recently used out first', async () => {
    const r = client({ maxCachedSchemas: 10 });
    expect((await r.byId(1))?.schema).toBe('"string"');
    for (let id = 100_000; id < 100_100; id++) {
      await r.byId(id);
      // The schema in use stays cached: each use makes it the most recent.
      await r.byId(1);
    }
    expect(r.cached).toBe(10);
    expect([asked(1), asked(100_000)]).toEqual([1, 1]);
    // The oldest unknown ids went first: asking again is a request again; a recent one is still remembered.
    await r.byId(100_000);
    await r.byId(100_099);
    expect([asked(100_000), asked(100_099)]).toEqual([2, 1]);
  });
});
