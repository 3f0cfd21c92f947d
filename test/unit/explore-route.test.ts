/**
 * The explorer's routes (src/routes/explore.ts): one page shell for both pages under a CSP that allows only this
 * origin's scripts and styles (no inline code), the built assets with an ETag, and the `docs` route group (public
 * where `auth.public` lists docs, else a credential is needed, as for Swagger UI). The shell holds no topic data.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/server/load-config.js';
import errorsPlugin from '../../src/server/plugins/error-plugin.js';
import accessPlugin from '../../src/server/plugins/access-plugin.js';
import { apiKeyHash } from '../../src/access/api-keys.js';
import exploreRoutes, { EXPLORE_CSP, EXPLORE_SHELL } from '../../src/routes/explore.js';

const dir = mkdtempSync(join(tmpdir(), 'topicgate-explore-route-'));
const built = join(dir, 'built');
mkdirSync(built);
writeFileSync(join(built, 'explore.js'), 'console.log("explorer");\n');
writeFileSync(join(built, 'explore.css'), 'body{margin:0}\n');
const KEY = 'key-explore-0123456789abcdef01234';
const apps: FastifyInstance[] = [];
afterAll(async () => {
  for (const app of apps) await app.close();
  rmSync(dir, { recursive: true, force: true });
});

async function appWith(yaml: string | undefined, assets = built): Promise<FastifyInstance> {
  const file = join(dir, `c${apps.length}.yaml`);
  if (yaml) writeFileSync(file, yaml);
  const config = loadConfig(yaml ? { TOPICGATE_CONFIG: file } : {});
  const app = Fastify({ logger: false });
  apps.push(app);
  await app.register(errorsPlugin);
  await app.register(accessPlugin, { config });
  await app.register(exploreRoutes, { assets: pathToFileURL(`${assets}/`) });
  await app.ready();
  return app;
}

const AUTH = `auth:\n  apiKeys:\n    - { principal: p, sha256: "${apiKeyHash(KEY)}", roles: [r] }\n`;

describe('the explorer routes', () => {
  it('both pages are the shell, under a CSP with no inline script or style and nothing from elsewhere', async () => {
    const app = await appWith(undefined);
    for (const url of ['/explore', '/explore/orders', '/explore/a%20b']) {
      const r = await app.inject(url);
      expect([r.statusCode, r.headers['content-type'], r.body]).toEqual([
        200,
        'text/html; charset=utf-8',
        EXPLORE_SHELL,
      ]);
      expect(r.headers['content-security-policy']).toBe(EXPLORE_CSP);
    }
    expect(EXPLORE_CSP).toContain("script-src 'self';");
    expect(EXPLORE_CSP).toContain("style-src 'self';");
    expect(EXPLORE_CSP).not.toContain('unsafe');
    // The shell loads its own two assets and nothing inline.
    expect(EXPLORE_SHELL.match(/<script[^>]*>/g)).toEqual(['<script type="module" src="/explore/assets/explore.js">']);
    expect(EXPLORE_SHELL).not.toMatch(/<style|\sstyle=|\son[a-z]+=/);
  });

  it('serves the built assets with their type and an ETag (304 when it matches); anything else is a 404', async () => {
    const app = await appWith(undefined);
    const js = await app.inject('/explore/assets/explore.js');
    expect([js.statusCode, js.headers['content-type'], js.body]).toEqual([
      200,
      'text/javascript; charset=utf-8',
      'console.log("explorer");\n',
    ]);
    const again = await app.inject({
      url: '/explore/assets/explore.js',
      headers: { 'if-none-match': js.headers.etag },
    });
    expect([again.statusCode, again.body]).toEqual([304, '']);
    expect((await app.inject('/explore/assets/explore.css')).headers['content-type']).toBe('text/css; charset=utf-8');
    for (const url of ['/explore/assets/..%2Fpackage.json', '/explore/assets/constructor', '/explore/assets/x.js']) {
      const r = await app.inject(url);
      expect([r.statusCode, r.json().error.code]).toEqual([404, 'TG_NOT_FOUND']);
    }
  });

  it('assets not built: a 404 that says to build them', async () => {
    const app = await appWith(undefined, join(dir, 'nothing'));
    const r = await app.inject('/explore/assets/explore.js');
    expect([r.statusCode, r.json().error]).toEqual([
      404,
      { code: 'TG_NOT_FOUND', status: 404, message: "the explorer's explore.js is not built: run npm run build" },
    ]);
  });

  it('in the docs route group: open when auth.public lists docs, else 401 without a credential', async () => {
    const closed = await appWith(AUTH);
    expect((await closed.inject('/explore')).statusCode).toBe(401);
    expect((await closed.inject({ url: '/explore/orders', headers: { 'x-api-key': KEY } })).statusCode).toBe(200);
    const open = await appWith(`${AUTH}  public: [health, docs]\n`);
    for (const url of ['/explore', '/explore/orders', '/explore/assets/explore.js']) {
      expect((await open.inject(url)).statusCode, url).toBe(200);
    }
  });
});
