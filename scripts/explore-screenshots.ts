/**
 * `npm run docs:screenshots`: the explorer's two pages over the demo topics, as docs/explorer.md shows them
 * (docs/images/explore.png and docs/images/explore-topic.png). Starts the local Trino if none runs (a running one
 * is reused as it is), loads the demo topics unless loaded, builds the explorer's assets, serves the gateway on a
 * free loopback port and takes the screenshots with Debian's Chromium; stops what it started.
 */
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { loadConfig } from '../src/server/load-config.js';
import { startServer } from '../src/server.js';
import { bundleExplore } from './bundle-explore.mjs';
import { down, layout, up } from './local-trino.js';
import { loadDemo } from './load-demo.js';

const OUT = fileURLToPath(new URL('../docs/images/', import.meta.url));
const WINDOW = 'since=2026-11-01T00:00:00Z&until=2026-11-03T00:00:00Z';

async function main(): Promise<void> {
  const l = layout();
  const trino = await up(l, undefined, { anyJvm: true });
  try {
    await loadDemo(trino.url, undefined, { reuse: true });
    await bundleExplore();
    const config = loadConfig({
      TOPICGATE_TRINO_URL: trino.url,
      TOPICGATE_PORT: '0',
      TOPICGATE_LOG_LEVEL: 'warn',
      TOPICGATE_STATE_URL: 'sqlite::memory:',
    });
    const { app, url } = await startServer(config);
    const browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
    });
    try {
      mkdirSync(OUT, { recursive: true });
      const page = await browser.newPage({ viewport: { width: 1280, height: 760 }, deviceScaleFactor: 1 });
      await page.goto(`${url}/explore?${WINDOW}`);
      await page.locator('tr[data-topic="s3_events"] .spark canvas').waitFor({ timeout: 60_000 });
      await page.locator('tr[data-topic="orders"] .spark canvas').waitFor({ timeout: 60_000 });
      await page.screenshot({ path: `${OUT}explore.png` });
      await page.setViewportSize({ width: 1280, height: 900 });
      await page.goto(`${url}/explore/orders?${WINDOW}&value->>status=eq.paid`);
      await page.locator('figure.rate-chart canvas').waitFor({ timeout: 60_000 });
      await page.locator('#pushdown li').first().waitFor({ timeout: 60_000 });
      await page.locator('.top-field').first().waitFor({ timeout: 60_000 });
      await page.locator('#samples table.events tbody tr').first().waitFor({ timeout: 60_000 });
      await page.screenshot({ path: `${OUT}explore-topic.png`, fullPage: true });
      process.stdout.write(`wrote ${OUT}explore.png and ${OUT}explore-topic.png\n`);
    } finally {
      await browser.close();
      await app.close();
    }
  } finally {
    if (trino.started) await down(l);
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
