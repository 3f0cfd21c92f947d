/**
 * Swagger UI's Authorize button with a real credential: on a gateway with an `auth` block and the
 * docs public, "Try it out" is refused (401) until an API key is entered under Authorize, then answered (200).
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { stringify } from 'yaml';
import { buildApp } from '../../src/server/app.js';
import { apiKeyHash } from '../../src/access/api-keys.js';
import { testConfig } from '../helpers.js';

const CHROMIUM = '/usr/bin/chromium';
if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} missing: apt-get install chromium (.ci/run does)`);
const KEY = 'key-browser-0000000000000000000000';

let app: FastifyInstance;
let base: string;
let dir: string;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'topicgate-ui-auth-'));
  const file = join(dir, 'auth.yaml');
  writeFileSync(
    file,
    stringify({
      auth: { apiKeys: [{ principal: 'ui-1', sha256: apiKeyHash(KEY), roles: ['r'] }], public: ['health', 'docs'] },
    }),
  );
  app = await buildApp(testConfig({ TOPICGATE_CONFIG: file }), { logger: false });
  base = await app.listen({ host: '127.0.0.1', port: 0 });
  context = await chromium.launchPersistentContext(join(dir, 'profile'), {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
  page = context.pages()[0] ?? (await context.newPage());
}, 120_000);

afterAll(async () => {
  await context?.close();
  await app?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('Swagger UI with credentials', () => {
  it('Try it out is a 401 until an API key is entered under Authorize, then a 200', async () => {
    await page.goto(`${base}/docs/`);
    const op = page.locator('.opblock-get', { has: page.locator('[data-path="/v1/topics"]') });
    await op.locator('.opblock-summary').first().click();
    await op.locator('button.try-out__btn').click();
    const run = async () => {
      if (await op.locator('button.btn-clear').count()) await op.locator('button.btn-clear').click();
      await op.locator('button.execute').click();
      const status = op.locator('.live-responses-table tr.response .response-col_status');
      await status.waitFor({ timeout: 30_000 });
      return status.innerText();
    };
    expect(await run()).toBe('401');

    await page.locator('.auth-wrapper button.authorize').click();
    const apiKey = page.locator('.modal-ux .auth-container', { hasText: 'X-API-Key' });
    await apiKey.locator('input').fill(KEY);
    await apiKey.locator('button.authorize').click();
    await page.locator('.modal-ux button.btn-done, .modal-ux .close-modal').first().click();

    expect(await run()).toBe('200');
    const body = await op.locator('.live-responses-table .response-col_description pre').first().innerText();
    expect((JSON.parse(body) as { topics: unknown[] }).topics.length).toBeGreaterThan(0);
  }, 120_000);
});
