/**
 * What the explorer's browser tests share: Debian's Chromium driven by playwright-core with an empty profile and no
 * network of its own, axe-core run inside the page, the rate chart's counts read from its table and the same counts
 * asked of Trino directly, the window the page shows, and downloads read back (NDJSON as text, Parquet by pyarrow).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, onTestFailed } from 'vitest';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { durationMs } from '../../web/explore/model/time-window.js';
import { sql } from '../helpers.js';

export const CHROMIUM = '/usr/bin/chromium';
// Never skipped: without Chromium the suite fails, saying how to get it (.ci/run installs it).
if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} missing: apt-get install chromium (.ci/run does)`);

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface Browser {
  context: BrowserContext;
  page: Page;
  /** Every URL the page requested, and every page error or console error (CSP refusals are console errors). */
  requests: string[];
  problems: string[];
  close(): Promise<void>;
}

export async function openBrowser(): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'topicgate-explore-'));
  const context = await chromium.launchPersistentContext(profile, {
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
  const page = context.pages()[0] ?? (await context.newPage());
  const b: Browser = {
    context,
    page,
    requests: [],
    problems: [],
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
  page.on('request', (r) => b.requests.push(r.url()));
  page.on('pageerror', (e) => b.problems.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') b.problems.push(`console: ${m.text()}`);
  });
  return b;
}

/** axe-core's serious and critical violations on the page as it is now (id and the first target of each). */
export async function seriousViolations(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol: the page's CSP (no inline script) does not apply to it.
  await page.evaluate(AXE);
  const found = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(c: Document): Promise<{ violations: unknown[] }> } }).axe;
    return (await axe.run(document)).violations as { id: string; impact: string; nodes: { target: string[] }[] }[];
  });
  return found
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** When the page drew its first chart, in ms from the start of its navigation (the page marks it). */
export async function firstChartMs(page: Page): Promise<number> {
  await page.waitForFunction(() => performance.getEntriesByName('tg-first-chart').length > 0, undefined, {
    timeout: 60_000,
  });
  return page.evaluate(() => performance.getEntriesByName('tg-first-chart')[0]!.startTime);
}

/** A request of the page's first chart, in ms from the start of the page's navigation (`path` without origin). */
export interface TimedRequest {
  path: string;
  startMs: number;
  endMs: number;
}

/** Where a page's time went until its first chart: the browser's view (Performance API), all in ms from navigation. */
export interface PageBreakdown {
  /** Epoch ms of the navigation's start (performance.timeOrigin): the server's and Trino's clocks are the same. */
  origin: number;
  firstChartMs: number;
  /** The shell's response, the parser's end, DOMContentLoaded's end. */
  navigation: { htmlEndMs: number; domInteractiveMs: number; domContentLoadedMs: number };
  /** The page's own marks: its script's first part runs, the pages' code runs, the first chart is drawn. */
  marks: Record<string, number>;
  /** Every asset and API call started before the first chart, with the bytes it took on the wire. */
  requests: (TimedRequest & { wireBytes: number })[];
}

/** The page's breakdown once its first chart is drawn (firstChartMs waits for it). */
export async function pageBreakdown(page: Page): Promise<PageBreakdown> {
  const drawn = await firstChartMs(page);
  return page.evaluate((first) => {
    const ms = (n: number) => Math.round(n);
    const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
    const requests = (performance.getEntriesByType('resource') as PerformanceResourceTiming[])
      .filter((r) => r.startTime <= first)
      .map((r) => ({
        path: r.name.replace(location.origin, ''),
        startMs: ms(r.startTime),
        endMs: ms(r.responseEnd),
        wireBytes: r.transferSize,
      }));
    const marks = Object.fromEntries(performance.getEntriesByType('mark').map((m) => [m.name, ms(m.startTime)]));
    return {
      origin: performance.timeOrigin,
      firstChartMs: ms(first),
      navigation: {
        htmlEndMs: ms(nav.responseEnd),
        domInteractiveMs: ms(nav.domInteractive),
        domContentLoadedMs: ms(nav.domContentLoadedEventEnd),
      },
      marks,
      requests,
    };
  }, drawn);
}

/** A Trino timestamp literal for an ISO-8601 UTC instant. */
export const trinoTime = (iso: string) => `TIMESTAMP '${iso.replace('T', ' ').replace(/Z$/, '')}'`;

export interface ShownChart {
  since: string;
  until: string;
  bucket: string;
  /** [bucket start (ISO), events] of every bucket shown. */
  counts: [string, number][];
}

/** The rate chart once it shows the given filter (JSON of its where, `null` for none): its window and its table. */
export async function shownChart(page: Page, where: string): Promise<ShownChart> {
  const figure = page.locator(`figure.rate-chart[data-where='${where}']`);
  await figure.waitFor({ timeout: 60_000 });
  const attrs = await figure.evaluate((f: HTMLElement) => ({ ...f.dataset }));
  const counts = await figure
    .locator('.counts-table tbody tr')
    .evaluateAll((trs) => trs.map((tr) => [tr.children[0]!.textContent!, Number(tr.children[1]!.textContent)]));
  return { since: attrs.since!, until: attrs.until!, bucket: attrs.bucket!, counts: counts as [string, number][] };
}

/** The same counts per bucket straight from Trino (`condition` ANDed to the window), as [bucket start, events]. */
export async function trinoCounts(topic: string, chart: ShownChart, condition = 'true'): Promise<Map<string, number>> {
  const ms = durationMs(chart.bucket);
  const rows = await sql(
    `SELECT CAST(floor(to_unixtime(with_timezone(timestamp_broker, 'UTC')) * 1000 / ${ms}) AS bigint) AS b, count(*)
     FROM "${topic}" WHERE timestamp_broker >= ${trinoTime(chart.since)} AND timestamp_broker < ${trinoTime(chart.until)}
     AND (${condition}) GROUP BY 1`,
  );
  return new Map(rows.map(([b, n]) => [new Date(Number(b) * ms).toISOString(), Number(n)]));
}

/** The chart shows Trino's counts: each bucket's, and none that Trino has outside the buckets shown. */
export async function expectChartMatchesTrino(topic: string, chart: ShownChart, condition?: string): Promise<number> {
  const expected = await trinoCounts(topic, chart, condition);
  expect(chart.counts.map(([t, n]) => [t, n])).toEqual(chart.counts.map(([t]) => [t, expected.get(t) ?? 0]));
  const total = [...expected.values()].reduce((a, b) => a + b, 0);
  expect(chart.counts.reduce((a, [, n]) => a + n, 0)).toBe(total);
  return total;
}

/** Clicks a download button and returns the saved file's bytes and name. */
export async function download(page: Page, format: string): Promise<{ name: string; bytes: Buffer }> {
  const [d] = await Promise.all([
    page.waitForEvent('download', { timeout: 60_000 }),
    page.locator(`#downloads button[data-format="${format}"]`).click(),
  ]);
  return { name: d.suggestedFilename(), bytes: readFileSync((await d.path())!) };
}

/** NDJSON rows of a complete body (it ends with the extra empty line). */
export function ndjsonRows(text: string): Record<string, unknown>[] {
  expect(text.endsWith('\n\n') || text === '\n').toBe(true);
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** A Parquet file as pyarrow reads it (an independent reader): its rows, and each row's JSON field at `path`. */
export function parquetField(file: string, path: string[]): { rows: number; values: (string | null)[] } {
  const script =
    'import sys, json, pyarrow.parquet as pq\n' +
    't = pq.read_table(sys.argv[1])\n' +
    'path = json.loads(sys.argv[2])\n' +
    'def field(b):\n' +
    '    try:\n' +
    '        v = json.loads(b)\n' +
    '        for p in path: v = v.get(p) if isinstance(v, dict) else None\n' +
    '        return v\n' +
    '    except Exception:\n' +
    '        return None\n' +
    'vals = [field(b) for b in t.column("value").to_pylist()]\n' +
    'print(json.dumps({"rows": t.num_rows, "values": vals}))';
  return JSON.parse(execFileSync('python3', ['-c', script, file, JSON.stringify(path)], { encoding: 'utf8' }));
}

/** A JSON field of a payload in SQL (as the gateway's arrow path reads it). */
export const jsonField = (path: string) => `json_extract_scalar(from_utf8(value), '$.${path}')`;

/** On a failed test, what the page showed (its alerts and statuses say what the API answered) and its problems. */
export function reportPageOnFailure(b: Browser): void {
  onTestFailed(async () => {
    const shown = await b.page
      .locator('main')
      .innerText({ timeout: 5_000 })
      .catch(() => '(no page)');
    process.stderr.write(`[explore] the page at ${b.page.url()}:\n${shown}\nproblems: ${b.problems.join('\n')}\n`);
  });
}
