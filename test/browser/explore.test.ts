/**
 * The explorer in a real Chromium, against the gateway over the real Trino and the demo topics, as a
 * person uses it: /explore lists the topics with their event counts and sparklines; picking orders shows the rate
 * chart, whose counts are Trino's own per bucket; dragging across it narrows the window; a filter changes the URL,
 * the SQL, the pushdown report, the chart and the sample; NDJSON and Parquet downloads hold exactly the filtered
 * rows. Both pages load nothing from elsewhere, break no CSP rule, and have no serious or critical axe violation.
 * How long each page took to draw its first chart is measured, with where the time went (the browser's, the
 * gateway's and Trino's side: explore-timing.ts), and written to test-artifacts/explore-timings.json: a freshly
 * started browser's first page (the overview, and a topic page in another fresh browser), the overview loaded again,
 * a topic page opened from it and one opened directly.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { sql, testApp } from '../helpers.js';
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
import { type FirstChartBreakdown, TIMING_TRINO_USER, firstChartBreakdown, serverClock } from './explore-timing.js';

/** How long a poll waits for the page: its API calls are Trino queries on a shared machine. */
const WAIT = { timeout: 30_000 };
const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts', import.meta.url));
const SINCE = '2026-11-01T00:00:00Z';
const UNTIL = '2026-11-02T00:00:00Z';

let app: FastifyInstance;
let base: string;
let b: Browser;
let server: ReturnType<typeof serverClock>;
const timings: Record<string, number> = {};
const breakdown: Record<string, FirstChartBreakdown> = {};

/** When the page's first chart was drawn (ms after its navigation started), and where the time went. */
async function measure(name: string, page = b.page): Promise<void> {
  const m = await firstChartBreakdown(page, server);
  timings[name] = m.firstChartMs;
  breakdown[name] = m;
}

/** Whether the page asked for `path` before the pages' code ran (the `tg-app` mark). */
function askedBeforePages(m: FirstChartBreakdown, path: string): boolean {
  const asked = m.requests.find((r) => r.path === path);
  const pages = m.marks['tg-app'];
  return asked !== undefined && pages !== undefined && asked.startMs <= pages;
}

beforeAll(async () => {
  app = await testApp({ TOPICGATE_TRINO_USER: TIMING_TRINO_USER });
  server = serverClock(app);
  // As a started server has (npm start lists the topics before it listens, to check the row policies against them).
  await app.tg.catalog.tables();
  base = await app.listen({ host: '127.0.0.1', port: 0 });
  b = await openBrowser();
}, 120_000);

afterAll(async () => {
  await b?.close();
  await app?.close();
  mkdirSync(ARTIFACTS, { recursive: true });
  const report = { firstChartMs: timings, breakdown };
  writeFileSync(join(ARTIFACTS, 'explore-timings.json'), `${JSON.stringify(report, null, 2)}\n`);
  process.stderr.write(`[explore] first chart drawn (ms after navigation): ${JSON.stringify(timings)}\n`);
});

beforeEach(() => reportPageOnFailure(b));

describe('the explorer in Chromium, against the demo topics', () => {
  // First: the gateway's topic listing is as fresh as a started server's (its first request does not wait for it).
  it('a freshly started browser whose first page is a topic page draws Trino’s counts', async () => {
    const fresh = await openBrowser();
    try {
      await fresh.page.goto(`${base}/explore/orders?since=${SINCE}&until=${UNTIL}`);
      await measure('topicFreshBrowser', fresh.page);
      // The chart's aggregation was asked for by the script's first part, before the pages' code ran.
      expect(askedBeforePages(breakdown.topicFreshBrowser!, '/v1/topics/orders/query')).toBe(true);
      const chart = await shownChart(fresh.page, 'null');
      expect([chart.since, chart.until, chart.bucket]).toEqual([SINCE, UNTIL, '15m']);
      expect(await expectChartMatchesTrino('orders', chart)).toBeGreaterThan(4000);
      expect(fresh.problems).toEqual([]);
    } finally {
      await fresh.close();
    }
  }, 120_000);

  it('/explore lists the served topics with their kind, events in the window (Trino’s count) and a sparkline', async () => {
    const { page } = b;
    await page.goto(`${base}/explore?since=${SINCE}&until=${UNTIL}`);
    // The first page of a freshly started browser pays for the browser's own start; a second load is what a user
    // with a running browser waits for.
    await measure('overviewFreshBrowser');
    expect(askedBeforePages(breakdown.overviewFreshBrowser!, '/v1/topics')).toBe(true);
    await page.reload();
    await measure('overview');
    const listed = (await app.inject('/v1/topics')).json().topics as { name: string; kind: string }[];
    const rows = page.locator('tr[data-topic]');
    await expect.poll(() => rows.count(), WAIT).toBe(listed.length);
    expect(await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-topic')))).toEqual(
      listed.map((t) => t.name),
    );
    const orders = page.locator('tr[data-topic="orders"]');
    await orders.locator('.spark canvas').waitFor();
    const [[n]] = (await sql(
      `SELECT count(*) FROM orders WHERE timestamp_broker >= ${trinoTime(SINCE)} AND timestamp_broker < ${trinoTime(UNTIL)}`,
    )) as [[number]];
    expect(await orders.locator('td').allInnerTexts()).toEqual(['topic', Number(n).toLocaleString('en-US'), '']);
    expect(await seriousViolations(page)).toEqual([]);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'explore.png'), fullPage: true });
  }, 120_000);

  it('orders: the chart is Trino’s counts; a drag narrows the window; a filter changes URL, SQL, pushdown, chart and sample', async () => {
    const { page } = b;
    await page.locator('tr[data-topic="orders"] a').click();
    await page.waitForURL(`${base}/explore/orders?since=${SINCE}&until=${UNTIL}`);
    await measure('topicAfterOverview');
    let chart = await shownChart(page, 'null');
    expect([chart.since, chart.until, chart.bucket, chart.counts.length]).toEqual([SINCE, UNTIL, '15m', 96]);
    expect(await expectChartMatchesTrino('orders', chart)).toBeGreaterThan(4000);

    // Drag across the middle third of the plot: the window becomes what the drag spans.
    const over = await page.locator('.rate-plot .u-over').boundingBox();
    if (!over) throw new Error('no plot');
    const y = over.y + over.height / 2;
    await page.mouse.move(over.x + over.width / 3, y);
    await page.mouse.down();
    await page.mouse.move(over.x + (2 * over.width) / 3, y, { steps: 10 });
    await page.mouse.up();
    await expect.poll(() => page.locator('#since').inputValue(), WAIT).not.toBe(SINCE);
    const since = await page.locator('#since').inputValue();
    const until = await page.locator('#until').inputValue();
    expect(Date.parse(since)).toBeGreaterThan(Date.parse('2026-11-01T06:00:00Z'));
    expect(Date.parse(until)).toBeLessThan(Date.parse('2026-11-01T18:00:00Z'));
    await expect.poll(() => page.url(), WAIT).toContain(`since=${since}&until=${until}`);
    chart = await shownChart(page, 'null');
    await expect.poll(async () => (await shownChart(page, 'null')).since, WAIT).toBe(since);
    chart = await shownChart(page, 'null');
    expect([chart.until, chart.bucket]).toEqual([until, '5m']);
    await expectChartMatchesTrino('orders', chart);

    // A filter on a JSON field: residual (Trino evaluates it after the scan), the window pushed.
    const sqlBefore = await page.locator('#read-sql').innerText();
    await page.getByRole('button', { name: 'Add filter' }).click();
    const filter = page.locator('li.filter').last();
    await filter.locator('input[type="text"]').first().fill('value->>status');
    await filter.locator('select').selectOption('eq');
    await filter.locator('input[type="text"]').last().fill('paid');
    await expect.poll(() => page.locator('#read-url').innerText(), WAIT).toContain('value->>status=eq.paid');
    const url = await page.locator('#read-url').innerText();
    expect(url).toBe(`${base}/v1/topics/orders/events?value->>status=eq.paid&since=${since}&until=${until}&limit=20`);
    expect(await page.locator('#read-curl').innerText()).toBe(`curl '${url}'`);
    // The filter's explain, not the drag's arriving late (the SQL may still change from sqlBefore to the dragged
    // window's before it shows the filter).
    await expect.poll(() => page.locator('#read-sql').innerText(), WAIT).toContain(`'$["status"]'`);
    expect(await page.locator('#read-sql').innerText()).not.toBe(sqlBefore);
    const residual = await page.locator('[aria-labelledby="residual-title"] li').allInnerTexts();
    expect(residual.some((p) => p.includes('$["status"]') && p.includes("= 'paid'"))).toBe(true);
    const pushed = await page.locator('[aria-labelledby="pushed-title"] li').allInnerTexts();
    expect(pushed.some((p) => p.includes('timestamp_broker'))).toBe(true);
    expect(pushed.some((p) => p.includes('status'))).toBe(false);

    const where = JSON.stringify({ field: 'value->>status', op: 'eq', value: 'paid' });
    chart = await shownChart(page, where);
    const paid = await expectChartMatchesTrino('orders', chart, `${jsonField('status')} = 'paid'`);
    expect(paid).toBeGreaterThan(0);
    const events = page.locator(`#samples table.events[data-path*="status=eq.paid"] tbody tr`);
    await expect.poll(() => events.count(), WAIT).toBe(Math.min(20, paid));
    // Folded JSON keeps its members in the page (textContent), shown when unfolded.
    for (const text of await events.evaluateAll((trs) => trs.map((tr) => tr.textContent))) {
      expect(text).toContain('"status": "paid"');
    }
    await page.getByRole('button', { name: 'Unfold all' }).click();
    expect(await events.first().innerText()).toContain('"status": "paid"');
    // The top values follow the filter: status is paid alone.
    await expect
      .poll(() => page.locator('.top-field[data-field="status"] .top-value').allInnerTexts())
      .toEqual(['paid']);

    // Downloads: NDJSON and Parquet hold exactly the filtered rows of the window.
    const nd = await download(page, 'ndjson');
    expect(nd.name).toBe('orders.ndjson');
    const rows = ndjsonRows(nd.bytes.toString('utf8'));
    expect(rows).toHaveLength(paid);
    expect(new Set(rows.map((r) => (r.value as { status: string }).status))).toEqual(new Set(['paid']));
    const pq = await download(page, 'parquet');
    expect(pq.name).toBe('orders.parquet');
    const file = join(ARTIFACTS, 'explore-download.parquet');
    writeFileSync(file, pq.bytes);
    const read = parquetField(file, ['status']);
    expect(read.rows).toBe(paid);
    expect(new Set(read.values)).toEqual(new Set(['paid']));

    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: join(ARTIFACTS, 'explore-topic.png'), fullPage: true });
  }, 180_000);

  it('a topic page opened directly draws its chart; a bad window and an unknown topic show the API’s words', async () => {
    const { page } = b;
    await page.goto(`${base}/explore/clicks?since=${SINCE}&until=2026-11-01T00:20:00Z`);
    await measure('topicDirect');
    const chart = await shownChart(page, 'null');
    expect(chart.bucket).toBe('10s');
    await expectChartMatchesTrino('clicks', chart);
    // The keyboard narrows the window too: Zoom in keeps the middle half (here 5 of 20 minutes either side).
    await page.getByRole('button', { name: 'Zoom in' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(async () => (await shownChart(page, 'null')).since, WAIT).toBe('2026-11-01T00:05:00.000Z');
    const zoomed = await shownChart(page, 'null');
    expect([zoomed.until, zoomed.bucket]).toEqual(['2026-11-01T00:15:00.000Z', '5s']);
    await expectChartMatchesTrino('clicks', zoomed);
    // A folded JSON value unfolds from the keyboard.
    const fold = page.locator('#samples table.events tbody tr').first().locator('details.j-node').first();
    await fold.locator('summary').focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => fold.evaluate((d: HTMLDetailsElement) => d.open), WAIT).toBe(true);
    // Bytes that are not UTF-8 are shown as \x.. (orders' event 5, at the first instant, has such a value).
    await page.goto(`${base}/explore/orders?since=${SINCE}&until=2026-11-01T00:00:01Z`);
    await expect.poll(() => page.locator('#samples .j-bytes').first().innerText(), WAIT).toMatch(/^\\xc328/);
    await page.goto(`${base}/explore/nope?since=${SINCE}&until=${UNTIL}`);
    const body = (await app.inject('/v1/topics/nope')).json();
    await expect.poll(() => page.locator('main [role="alert"]').innerText(), WAIT).toBe(body.error.message);
    expect(await page.locator('figure.rate-chart').count()).toBe(0);
    // Offline: everything came from this server; nothing broke a CSP rule or failed.
    expect(b.requests.filter((u) => !u.startsWith(`${base}/`) && !u.startsWith('blob:'))).toEqual([]);
    expect(b.problems.filter((p) => !p.includes('404'))).toEqual([]);
  }, 120_000);
});
