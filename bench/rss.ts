/**
 * `npm run bench:rss`: the RSS of `node dist/server.js` (an idle gateway under 100 MB), idle after
 * start-up, then at its peak (VmHWM) after one read of the demo orders in each format, and idle again.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { currentRss, peakRss } from './proc.js';

const PORT = 18931;
const base = `http://127.0.0.1:${PORT}`;
const mb = (b: number) => `${(b / 2 ** 20).toFixed(1)} MB`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const dir = mkdtempSync(join(tmpdir(), 'topicgate-rss-'));
// Node options to try go before the script: npm run bench:rss -- --max-semi-space-size=8
const child = spawn(process.execPath, [...process.argv.slice(2), 'dist/server.js'], {
  env: { ...process.env, TOPICGATE_PORT: String(PORT), TOPICGATE_STATE_URL: `sqlite:${join(dir, 'rss.db')}` },
  stdio: ['ignore', 'ignore', 'inherit'],
});
try {
  for (let i = 0; !(await fetch(`${base}/readyz`).catch(() => null))?.ok; i++) {
    if (i > 600) throw new Error('the gateway did not get ready');
    await sleep(100);
  }
  await sleep(3000);
  const idle = currentRss(child.pid!);
  for (const format of ['json', 'ndjson', 'csv', 'arrow', 'parquet']) {
    const res = await fetch(
      `${base}/v1/topics/orders/events?since=2026-11-01T00:00:00Z&until=2026-11-04T00:00:00Z&limit=all&format=${format}`,
    );
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`${format}: HTTP ${res.status}`);
  }
  const peak = peakRss(child.pid!);
  await sleep(3000);
  const after = currentRss(child.pid!);
  process.stdout.write(`idle ${mb(idle)}; peak ${mb(peak)} after one read per format; idle again ${mb(after)}\n`);
} finally {
  child.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
}
