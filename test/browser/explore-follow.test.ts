/**
 * The explorer's live view against the follow route (API.md "Following a topic"): an event appended to a
 * topic while the page follows it appears on the page. A topic of its own (a fresh table in a schema of its own),
 * settled after 1 s, so the demo topics that other tests count stay as they are. Then a filter restarts the view,
 * which shows only the matching events that came since.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { stringify } from 'yaml';
import { buildApp } from '../../src/server/app.js';
import { HttpTrino } from '../../src/trino/http-trino.js';
import { TOPIC_COLUMNS } from '../../scripts/demo-data.js';
import { testConfig, trinoUrl } from '../helpers.js';
import { type Browser, openBrowser, reportPageOnFailure, seriousViolations } from './explore-helpers.js';

/** How long a poll waits for the page: its API calls are Trino queries on a shared machine. */
const WAIT = { timeout: 30_000 };
const SCHEMA = 'explore_follow|kafka_topics';
const TABLE = `vast."${SCHEMA}".live`;

let dir: string;
let trino: HttpTrino;
let app: FastifyInstance;
let base: string;
let b: Browser;

const append = (key: string, json: string) =>
  trino.all(
    `INSERT INTO ${TABLE} VALUES (to_utf8('${key}'), to_utf8('${json}'), ` +
      `CAST(current_timestamp AT TIME ZONE 'UTC' AS timestamp(3)), CAST(current_timestamp AT TIME ZONE 'UTC' AS timestamp(3)), ` +
      'CAST(ARRAY[] AS array(row(key varchar, value varbinary))))',
  );

beforeAll(async () => {
  trino = new HttpTrino({ server: trinoUrl(), user: 'test' });
  await trino.all(`CREATE SCHEMA IF NOT EXISTS vast."${SCHEMA}"`);
  await trino.all(`DROP TABLE IF EXISTS ${TABLE}`);
  await trino.all(`CREATE TABLE ${TABLE} (${TOPIC_COLUMNS})`);
  await append('before', '{"n":0}');
  dir = mkdtempSync(join(tmpdir(), 'topicgate-explore-follow-'));
  const file = join(dir, 'follow.yaml');
  writeFileSync(file, stringify({ topics: { live: { settle: '1s' } } }));
  app = await buildApp(
    testConfig({ TOPICGATE_CONFIG: file, TOPICGATE_SCHEMAS: SCHEMA, TOPICGATE_FOLLOW_POLL: '200ms' }),
    { logger: false },
  );
  base = await app.listen({ host: '127.0.0.1', port: 0 });
  b = await openBrowser();
}, 120_000);

afterAll(async () => {
  await b?.close();
  await app?.close();
  await trino?.all(`DROP TABLE IF EXISTS ${TABLE}`);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => reportPageOnFailure(b));

describe('the live view', () => {
  it('follows the topic: an event appended while following appears, newest first, with the filters applied', async () => {
    const { page } = b;
    await page.goto(`${base}/explore/live?since=-1h&until=now`);
    await page.getByRole('button', { name: 'Follow new events' }).click();
    const status = page.locator('#live [role="status"]');
    await expect.poll(() => status.innerText(), WAIT).toContain('waiting for new events');
    const key = `appended-${Date.now()}`;
    await append(key, '{"n":1,"big":9007199254740993}');
    const live = page.locator('#live ol.live-events > li');
    await expect.poll(() => live.first().innerText(), WAIT).toContain(key);
    // Every digit of the big integer, as the API sent it.
    expect(await live.first().innerText()).toContain('9007199254740993');
    expect(await live.count()).toBe(1);

    // A filter restarts the view with it: only matching new events arrive.
    await page.getByRole('button', { name: 'Add filter' }).click();
    const filter = page.locator('li.filter').last();
    await filter.locator('input[type="text"]').first().fill('key');
    await filter.locator('input[type="text"]').last().fill('keep-me');
    await expect.poll(() => page.locator('#read-url').innerText(), WAIT).toContain('key=eq.keep-me');
    await expect.poll(() => status.innerText(), WAIT).toContain('waiting for new events');
    await append('drop-me', '{"n":2}');
    await append('keep-me', '{"n":3}');
    // The view restarted with the filter: it shows only what came since, and that matches.
    await expect.poll(() => live.allInnerTexts(), WAIT).toHaveLength(1);
    expect(await live.first().innerText()).toContain('keep-me');
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Stop following' }).click();
    expect(b.problems).toEqual([]);
  }, 120_000);
});
