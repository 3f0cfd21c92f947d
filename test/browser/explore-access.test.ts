/**
 * The explorer with access control: the pages are public (`auth.public: [docs]`) but hold no data; the
 * page calls the API with the API key entered on it (kept for the tab), so a caller whose grant names orders alone,
 * with a row policy keeping German customers, sees orders alone, a chart of exactly the German rows (Trino's counts
 * with the policy's condition), German sample events and top values, and downloads of German rows only; another
 * topic is the API's 404; without the key, the API's 401. No serious or critical axe violation, signed in.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { stringify } from 'yaml';
import { buildApp } from '../../src/server/app.js';
import { apiKeyHash } from '../../src/access/api-keys.js';
import { sql, testConfig } from '../helpers.js';
import {
  type Browser,
  download,
  expectChartMatchesTrino,
  jsonField,
  ndjsonRows,
  openBrowser,
  reportPageOnFailure,
  parquetField,
  seriousViolations,
  shownChart,
  trinoTime,
} from './explore-helpers.js';

/** How long a poll waits for the page: its API calls are Trino queries on a shared machine. */
const WAIT = { timeout: 30_000 };
const KEY = 'key-explore-de-000000000000000000000';
const SINCE = '2026-11-01T00:00:00Z';
const UNTIL = '2026-11-02T00:00:00Z';
const GERMAN = `${jsonField('customer.address.country')} = 'DE'`;

let dir: string;
let app: FastifyInstance;
let base: string;
let b: Browser;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'topicgate-explore-access-'));
  const file = join(dir, 'access.yaml');
  writeFileSync(
    file,
    stringify({
      topics: { orders: { expand: { country: { path: '$.customer.address.country', type: 'varchar' } } } },
      auth: {
        apiKeys: [{ principal: 'analyst-de', sha256: apiKeyHash(KEY), roles: ['analyst-de'] }],
        public: ['health', 'docs'],
      },
      access: [{ roles: ['analyst-de'], topics: ['orders'], actions: ['read', 'explain', 'infer'] }],
      rowPolicies: { default: 'allow', orders: [{ roles: ['analyst-de'], filter: 'country=eq.DE' }] },
    }),
  );
  app = await buildApp(testConfig({ TOPICGATE_CONFIG: file }), { logger: false });
  base = await app.listen({ host: '127.0.0.1', port: 0 });
  b = await openBrowser();
}, 120_000);

afterAll(async () => {
  await b?.close();
  await app?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => reportPageOnFailure(b));

describe('the explorer with an API key and a row policy', () => {
  it('without the key: the API’s 401 message; with it: orders alone, counted by the policy', async () => {
    const { page } = b;
    await page.goto(`${base}/explore?since=${SINCE}&until=${UNTIL}`);
    const refused = (await app.inject('/v1/topics')).json();
    await expect.poll(() => page.locator('#topic-list [role="alert"]').innerText(), WAIT).toBe(refused.error.message);
    await page.getByLabel('Credential').fill(KEY);
    await page.getByRole('button', { name: 'Use' }).click();
    const rows = page.locator('tr[data-topic]');
    await expect
      .poll(() => rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-topic'))))
      .toEqual(['orders']);
    const [[n]] = (await sql(
      `SELECT count(*) FROM orders WHERE timestamp_broker >= ${trinoTime(SINCE)} AND timestamp_broker < ${trinoTime(UNTIL)} AND ${GERMAN}`,
    )) as [[number]];
    await expect.poll(() => rows.first().locator('td.num').innerText(), WAIT).toBe(Number(n).toLocaleString('en-US'));
    expect(await seriousViolations(page)).toEqual([]);
  }, 120_000);

  it('orders shows German rows only: chart, sample, top values, downloads; clicks is the API’s 404', async () => {
    const { page } = b;
    // Another page of the same tab: the key is still there.
    await page.goto(`${base}/explore/orders?since=${SINCE}&until=${UNTIL}`);
    const chart = await shownChart(page, 'null');
    const german = await expectChartMatchesTrino('orders', chart, GERMAN);
    expect(german).toBeGreaterThan(0);
    const events = page.locator('#samples table.events tbody tr');
    await expect.poll(() => events.count(), WAIT).toBe(20);
    for (const text of await events.evaluateAll((trs) => trs.map((tr) => tr.textContent))) {
      expect(text).toContain('"country": "DE"');
    }
    await expect
      .poll(() => page.locator('.top-field[data-field="customer.address.country"] .top-value').allInnerTexts())
      .toEqual(['DE']);
    // The curl names the credential as a variable; the key itself is nowhere on the page.
    expect(await page.locator('#read-curl').innerText()).toContain('Authorization: Bearer $TOPICGATE_TOKEN');
    expect(await page.content()).not.toContain(KEY);

    const nd = await download(page, 'ndjson');
    const rows = ndjsonRows(nd.bytes.toString('utf8'));
    expect(rows).toHaveLength(german);
    expect(
      new Set(rows.map((r) => (r.value as { customer: { address: { country: string } } }).customer.address.country)),
    ).toEqual(new Set(['DE']));
    const pq = await download(page, 'parquet');
    const file = join(dir, 'orders.parquet');
    writeFileSync(file, pq.bytes);
    const read = parquetField(file, ['customer', 'address', 'country']);
    expect([read.rows, [...new Set(read.values)]]).toEqual([german, ['DE']]);
    // A read session: presigned stream links that work without the key, German rows only, all of them.
    await page.locator('#session-format').selectOption('ndjson');
    await page.getByRole('button', { name: 'Make a read session' }).click();
    const links = page.locator('#downloads .stream-links a');
    await expect.poll(() => links.count(), WAIT).toBeGreaterThan(0);
    let streamed: Record<string, unknown>[] = [];
    for (const href of await links.evaluateAll((as) => as.map((a) => a.getAttribute('href')!))) {
      const res = await app.inject(href);
      expect(res.statusCode, href).toBe(200);
      streamed = [...streamed, ...ndjsonRows(res.body)];
    }
    expect(streamed).toEqual(rows);
    expect(await seriousViolations(page)).toEqual([]);

    await page.goto(`${base}/explore/clicks?since=${SINCE}&until=${UNTIL}`);
    const body = (await app.inject({ url: '/v1/topics/clicks', headers: { 'x-api-key': KEY } })).json();
    expect(body.error.code).toBe('TG_TOPIC_NOT_FOUND');
    await expect.poll(() => page.locator('main [role="alert"]').innerText(), WAIT).toBe(body.error.message);
    expect(await page.locator('figure.rate-chart').count()).toBe(0);
    expect(b.problems.filter((p) => !/40[14]/.test(p))).toEqual([]);
  }, 180_000);
});
