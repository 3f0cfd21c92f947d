/**
 * Swagger UI as a newcomer uses it: a real Chromium (Debian's package, driven by playwright-core) opens /docs on the
 * gateway listening on 127.0.0.1 against the real Trino and demo data, runs "Try it out" on the events route in JSON,
 * NDJSON, CSV and Arrow, and checks the rows shown (and the Arrow file downloaded). The page may load nothing from
 * anywhere else. Chromium comes from .ci/run (`apt-get install chromium`): without it the test fails, saying how
 * to get it.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { chromium, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { tableFromIPC } from 'apache-arrow';
import { testApp } from '../helpers.js';

const CHROMIUM = '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
// Never skipped: without Chromium the suite fails, saying how to get it (.ci/run installs it).
if (!hasChromium) throw new Error(`${CHROMIUM} missing: apt-get install chromium (.ci/run does)`);

const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts', import.meta.url));
const EVENTS_PATH = '/v1/topics/{topic}/events';

let app: FastifyInstance;
let base: string;
let profile: string;
let context: BrowserContext;
let page: Page;
const requests: string[] = [];
const problems: string[] = [];

beforeAll(async () => {
  app = await testApp();
  base = await app.listen({ host: '127.0.0.1', port: 0 });
  profile = mkdtempSync(join(tmpdir(), 'topicgate-chromium-'));
  // A new, empty profile; no network of its own (no updates, sync, QUIC, first-run pages).
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    acceptDownloads: true,
    viewport: { width: 1280, height: 1000 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  page = context.pages()[0] ?? (await context.newPage());
  page.on('request', (r) => requests.push(r.url()));
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  // CSP violations and failed loads are console errors.
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
}, 120_000);

afterAll(async () => {
  await context?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
  await app?.close();
});

/** Sets a parameter's input (or the JSON textarea of an object parameter). */
async function setParam(op: Locator, name: string, value: string): Promise<void> {
  const field = op.locator(`tr[data-param-name="${name}"]`).locator('input, textarea').first();
  await field.fill(value);
}

/** Clicks Execute and returns the response block once a new response is shown. */
async function execute(op: Locator): Promise<Locator> {
  if (await op.locator('button.btn-clear').count()) await op.locator('button.btn-clear').click();
  await op.locator('button.execute').click();
  const live = op.locator('.live-responses-table tr.response');
  await live.locator('.response-col_status').waitFor({ timeout: 30_000 });
  return live;
}

describe('Swagger UI in Chromium, against the demo data', () => {
  it('loads /docs from this server only, and runs GET events in JSON, NDJSON, CSV and Arrow', async () => {
    await page.goto(`${base}/docs/`);
    const op = page.locator('.opblock-get', { has: page.locator(`[data-path="${EVENTS_PATH}"]`) });
    await op.locator('.opblock-summary').first().click();
    await op.locator('button.try-out__btn').click();

    await setParam(op, 'topic', 'orders');
    await setParam(op, 'select', 'key,value,timestamp_broker');
    await setParam(op, 'order', '');
    await setParam(op, 'limit', '3');
    await setParam(op, 'since', '2026-11-01T00:00:00Z');
    await setParam(op, 'until', '2026-11-01T00:01:00Z');
    await setParam(op, 'filters', '{"key": "eq.order-1000002"}');
    await setParam(op, 'format', 'json');

    // JSON: the body exactly as sent (the big integer is not rounded by the page), complete.
    let live = await execute(op);
    expect(await live.locator('.response-col_status').innerText()).toBe('200');
    const url = await op.locator('.request-url pre').innerText();
    expect(url).toBe(
      `${base}/v1/topics/orders/events?select=key%2Cvalue%2Ctimestamp_broker&limit=3&format=json&since=2026-11-01T00%3A00%3A00Z&until=2026-11-01T00%3A01%3A00Z&key=eq.order-1000002`,
    );
    const json = await live
      .locator('.response-col_description .microlight, .response-col_description pre')
      .first()
      .innerText();
    const body = JSON.parse(json) as { rows: Record<string, unknown>[]; next: unknown; complete: boolean };
    expect(body.rows.map((r) => [r.key, r.timestamp_broker])).toEqual([
      ['order-1000002', '2026-11-01T00:00:00.000Z'],
      ['order-1000002', '2026-11-01T00:00:00.000Z'],
    ]);
    expect(body.rows[1]!.value).toBe('\\xc3287b2262726f6b656e223a35'); // non-UTF-8 bytes as \x hex
    expect(json).toContain('"trace_id":9007199254740997'); // beyond 2^53, every digit
    expect(body).toMatchObject({ next: null, complete: true });
    mkdirSync(ARTIFACTS, { recursive: true });
    await op.screenshot({ path: join(ARTIFACTS, 'swagger-ui-events-json.png') });

    // NDJSON: one row per line, shown as text.
    await setParam(op, 'format', 'ndjson');
    live = await execute(op);
    const ndjson = (await live.locator('.response-col_description pre').first().innerText()).trim().split('\n');
    expect(ndjson.map((l) => JSON.parse(l).key)).toEqual(['order-1000002', 'order-1000002']);
    expect(JSON.parse(ndjson[1]!).value).toBe('\\xc3287b2262726f6b656e223a35');

    // CSV: header and rows.
    await setParam(op, 'format', 'csv');
    live = await execute(op);
    const csv = (await live.locator('.response-col_description pre').first().innerText()).trim().split(/\r?\n/);
    expect(csv[0]).toBe('key,value,timestamp_broker');
    expect(csv[2]).toBe('order-1000002,\\xc3287b2262726f6b656e223a35,2026-11-01T00:00:00.000Z');

    // Arrow: a download link; the file is a complete Arrow stream with the same rows.
    await setParam(op, 'format', 'arrow');
    live = await execute(op);
    const link = live.locator('a', { hasText: 'Download file' });
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    expect(download.suggestedFilename()).toBe('response.arrow');
    const bytes = readFileSync((await download.path())!);
    expect([...bytes.subarray(-8)]).toEqual([0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0]); // end-of-stream marker
    const table = tableFromIPC(bytes);
    expect(table.numRows).toBe(2);
    expect(Buffer.from(table.getChild('key')!.get(1) as Uint8Array).toString()).toBe('order-1000002');
    expect(Buffer.from(table.getChild('value')!.get(1) as Uint8Array).subarray(0, 2)).toEqual(
      Buffer.from([0xc3, 0x28]),
    );
    await page.screenshot({ path: join(ARTIFACTS, 'swagger-ui.png') });

    // Offline: every request went to this server, and nothing was refused or failed.
    expect(requests.length).toBeGreaterThan(5);
    expect(
      requests.filter((u) => !u.startsWith(`${base}/`) && !u.startsWith('blob:') && !u.startsWith('data:')),
    ).toEqual([]);
    expect(problems).toEqual([]);
  }, 120_000);

  it('links to the per-topic page, which shows the columns of the demo topics', async () => {
    await page.goto(`${base}/docs/`);
    // The document's description links the page (Swagger UI opens description links in a new tab: follow the href).
    const href = await page.locator('.info a', { hasText: 'the served topics' }).getAttribute('href');
    expect(href).toBe('/docs/topics');
    await page.goto(new URL(href!, base).href);
    const orders = page.locator('section#topic-orders');
    expect(await orders.locator('h2').innerText()).toBe('orders (topic)');
    const rows = await orders
      .locator('tbody tr')
      .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].slice(0, 3).map((td) => td.textContent)));
    expect(rows).toEqual([
      ['key', 'varbinary', 'table'],
      ['value', 'varbinary', 'table'],
      ['timestamp_broker', 'timestamp(3)', 'table'],
      ['timestamp_producer', 'timestamp(3)', 'table'],
      ['headers', 'array(row(key varchar, value varbinary))', 'table'],
    ]);
    await page.screenshot({ path: join(ARTIFACTS, 'docs-topics.png'), fullPage: true });
    expect(problems).toEqual([]);
  }, 60_000);
});
