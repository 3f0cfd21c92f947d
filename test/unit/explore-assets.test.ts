/**
 * The explorer's assets as the route serves them (src/routes/explore.ts): the shell preloads the pages' code
 * (explore-app.js) beside its one script; each asset goes out precompressed as the build wrote it (brotli first, then
 * gzip, as Accept-Encoding allows), with `Vary: Accept-Encoding` and an ETag of the bytes sent, so a 304 answers
 * only the same coding; without an acceptable coding, or without the compressed file, the file as it is.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import errorsPlugin from '../../src/server/plugins/error-plugin.js';
import exploreRoutes, { EXPLORE_SHELL } from '../../src/routes/explore.js';

const dir = mkdtempSync(join(tmpdir(), 'topicgate-explore-assets-'));
const APP = 'export function start(){document.title="pages"}\n'.repeat(20);
mkdirSync(dir, { recursive: true });
writeFileSync(join(dir, 'explore.js'), 'import("./explore-app.js");\n');
writeFileSync(join(dir, 'explore.css'), 'body{margin:0}\n');
writeFileSync(join(dir, 'explore-app.js'), APP);
writeFileSync(join(dir, 'explore-app.js.br'), brotliCompressSync(APP));
writeFileSync(join(dir, 'explore-app.js.gz'), gzipSync(APP));
let app: FastifyInstance;
afterAll(async () => {
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function served(): Promise<FastifyInstance> {
  app ??= Fastify({ logger: false });
  if (!app.hasRoute({ method: 'GET', url: '/explore' })) {
    await app.register(errorsPlugin);
    await app.register(exploreRoutes, { assets: pathToFileURL(`${dir}/`) });
    await app.ready();
  }
  return app;
}

const get = async (file: string, headers: Record<string, string> = {}) =>
  (await served()).inject({ url: `/explore/assets/${file}`, headers });

describe("the explorer's assets", () => {
  it('the shell preloads the pages’ code beside its one script', () => {
    expect(EXPLORE_SHELL.match(/<link rel="modulepreload"[^>]*>/g)).toEqual([
      '<link rel="modulepreload" href="/explore/assets/explore-app.js">',
    ]);
  });

  it('sends brotli, else gzip, as the browser accepts; Vary and an ETag of the bytes sent', async () => {
    const br = await get('explore-app.js', { 'accept-encoding': 'gzip, deflate, br, zstd' });
    expect([br.statusCode, br.headers['content-encoding'], br.headers.vary, br.headers['content-type']]).toEqual([
      200,
      'br',
      'Accept-Encoding',
      'text/javascript; charset=utf-8',
    ]);
    expect(brotliDecompressSync(br.rawPayload).toString()).toBe(APP);
    const gz = await get('explore-app.js', { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.rawPayload).toString()).toBe(APP);
    const plain = await get('explore-app.js', { 'accept-encoding': 'br;q=0, identity' });
    expect([plain.headers['content-encoding'], plain.body]).toEqual([undefined, APP]);
    expect(new Set([br.headers.etag, gz.headers.etag, plain.headers.etag]).size).toBe(3);
    // A 304 answers the tag of the coding that would be sent, and only it.
    const again = await get('explore-app.js', { 'accept-encoding': 'br', 'if-none-match': String(br.headers.etag) });
    expect([again.statusCode, again.headers['content-encoding'], again.body]).toEqual([304, 'br', '']);
    const other = await get('explore-app.js', { 'accept-encoding': 'gzip', 'if-none-match': String(br.headers.etag) });
    expect(other.statusCode).toBe(200);
  });

  it('an asset built without its compressed forms goes out as it is, whatever the browser accepts', async () => {
    const js = await get('explore.js', { 'accept-encoding': 'br, gzip' });
    expect([js.statusCode, js.headers['content-encoding'], js.headers.vary, js.body]).toEqual([
      200,
      undefined,
      'Accept-Encoding',
      'import("./explore-app.js");\n',
    ]);
  });
});
