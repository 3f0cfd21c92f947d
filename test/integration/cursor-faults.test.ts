/**
 * Proof under faults (issue: named cursors). Events keep arriving in a topic (with ties and identical
 * duplicates) while a loader runs short read / land / commit cycles and "dies" at random points: before it
 * lands a batch, after landing but before committing, and in the middle of the commit request. The gateway
 * process itself is killed (SIGKILL) and restarted during the run. At the end, the landed files must hold every
 * event of the topic exactly once: none lost, none delivered again after its batch was committed.
 * Runs on both cursor stores.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tableFromIPC } from 'apache-arrow';
import { trinoUrl } from '../helpers.js';
import { GatewayProcess } from '../gateway-process.js';
import { HttpTrino } from '../../src/trino/http-trino.js';
import { pgUp } from '../../scripts/local-postgres.js';
import { TOPIC_COLUMNS } from '../../scripts/demo-data.js';
import { trinoTimestampText } from '../../src/core/trino-timestamp.js';

const SCHEMA = 'faults|kafka_topics';
// The guarantee holds while events become visible within `settle` of their broker time; inserts here are
// stamped just before they are sent, so settle must exceed the slowest insert even on a loaded machine.
const SETTLE_MS = 8_000;
const APPEND_MS = 12_000;
/**
 * The producer goes on past APPEND_MS until it has appended this many events: on a loaded machine an insert can
 * take seconds, and the scenario needs enough events across the gateway's restarts. Past APPEND_MS it appends
 * bigger groups, so a slow machine reaches the count in a few more inserts rather than a fixed extra time.
 */
const MIN_EVENTS = 120;

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** One HTTP exchange; rejects if the connection breaks. `abortAfterMs` cuts it short on purpose. */
function request(url: string, method: string, body?: object, abortAfterMs?: number): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const payload = body ? JSON.stringify(body) : undefined;
    const req = http.request(url, { method, headers: payload ? { 'content-type': 'application/json' } : {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        res.complete
          ? resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) })
          : reject(new Error('cut')),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
    if (abortAfterMs !== undefined) setTimeout(() => req.destroy(new Error('loader died during commit')), abortAfterMs);
  });
}

function eventKey(value: Uint8Array | null, ts: unknown): string {
  return `${value ? Buffer.from(value).toString() : 'null'}@${String(ts)}`;
}

async function runScenario(storeUrl: string) {
  const trino = new HttpTrino({ server: trinoUrl(), user: 'faults' });
  const table = `stream_${randomBytes(4).toString('hex')}`;
  const fq = `vast."${SCHEMA}"."${table}"`;
  await trino.all(`CREATE SCHEMA IF NOT EXISTS vast."${SCHEMA}"`);
  await trino.all(`CREATE TABLE ${fq} (${TOPIC_COLUMNS})`);
  const gateway = new GatewayProcess({
    TOPICGATE_TRINO_URL: trinoUrl(),
    TOPICGATE_SCHEMAS: SCHEMA,
    TOPICGATE_STATE_URL: storeUrl,
  });
  await gateway.start();
  const landing = mkdtempSync(join(tmpdir(), 'topicgate-landing-'));
  const cursor = `loader-${table}`;
  const stats = {
    maxInsertMs: 0,
    appended: 0,
    inserts: 0,
    reads: 0,
    landed: 0,
    commits: 0,
    dieBeforeLand: 0,
    dieAfterLand: 0,
    dieInCommit: 0,
    readsCut: 0,
    gatewayDown: 0,
  };

  // The producer: groups of 1-5 events sharing one broker millisecond, sometimes an identical duplicate. Each INSERT
  // is a Trino query of fixed cost: it carries one to three groups (each on its own millisecond), about one a second.
  let seq = 0;
  let appending = true;
  const appender = (async () => {
    const end = Date.now() + APPEND_MS;
    while (Date.now() < end || stats.appended < MIN_EVENTS) {
      const now = Date.now();
      const rows: string[] = [];
      const groups = 1 + Math.floor(Math.random() * 3);
      for (let g = 0; g < groups; g++) {
        const ts = trinoTimestampText(now - 200 - 2 * g);
        const group = Date.now() < end ? 1 + Math.floor(Math.random() * 5) : 5 + Math.floor(Math.random() * 10);
        for (let k = group; k > 0; k--) {
          const n = seq++;
          const row = `(to_utf8('k${n % 7}'), to_utf8('{"seq":${n}}'), TIMESTAMP '${ts}', TIMESTAMP '${ts}', CAST(ARRAY[] AS array(row(key varchar, value varbinary))))`;
          rows.push(row);
          if (Math.random() < 0.15) rows.push(row); // an at-least-once producer's retry: identical duplicate
        }
      }
      await trino.all(`INSERT INTO ${fq} VALUES ${rows.join(', ')}`);
      // From the oldest stamp of this INSERT to its end.
      stats.maxInsertMs = Math.max(stats.maxInsertMs, Date.now() - now + 200 + 2 * (groups - 1));
      stats.appended += rows.length;
      stats.inserts++;
      await new Promise((r) => setTimeout(r, 600 + Math.random() * 300));
    }
    appending = false;
  })();

  // The gateway dies twice during the run.
  const killer = (async () => {
    for (const at of [3_000, 7_500]) {
      await new Promise((r) => setTimeout(r, at - (at === 7_500 ? 3_000 : 0)));
      await gateway.restart();
    }
  })();

  const created = await request(`${gateway.url}/v1/cursors/${cursor}`, 'PUT', {
    topic: table,
    settle: `${SETTLE_MS}ms`,
  });
  expect(created.status).toBe(201);

  // The loader: a cron job that may die anywhere; state lives only in the gateway and the landing folder.
  let idleSince = 0;
  const forced = [0.05, 0.15, 0.25]; // before land, after land, during commit
  for (;;) {
    let batch: Reply;
    try {
      batch = await request(
        `${gateway.url}/v1/cursors/${cursor}/read?format=arrow&limit=${1 + Math.floor(Math.random() * 40)}`,
        'POST',
      );
      stats.reads++;
    } catch {
      stats.gatewayDown++;
      await new Promise((r) => setTimeout(r, 200));
      continue;
    }
    if (batch.status !== 200) throw new Error(`read failed ${batch.status}: ${batch.body.toString()}`);
    const token = batch.headers['topicgate-batch'] as string;
    const rows = Number(batch.headers['topicgate-batch-rows']);
    if (rows === 0) {
      // Drained: stop once the producer is done and everything it wrote has settled.
      if (!appending) {
        idleSince ||= Date.now();
        if (Date.now() - idleSince > SETTLE_MS + 1_000) break;
      }
      // An empty batch is two Trino queries or more (its summary and its rows, each in time slices): the loader waits
      // a second before it asks again, as a cron job would (the first events settle only SETTLE_MS after they are
      // written, and the loader stops only after SETTLE_MS without events).
      await new Promise((r) => setTimeout(r, 1_000));
      continue;
    }
    idleSince = 0;
    // Each kind of death happens at least once (the first batches), then at random.
    const fault = forced.shift() ?? Math.random();
    if (fault < 0.1) {
      stats.dieBeforeLand++;
      continue;
    }
    try {
      if (tableFromIPC(batch.body).numRows !== rows) throw new Error('short batch');
    } catch {
      stats.readsCut++; // the gateway died mid-stream: an incomplete Arrow stream is never landed
      continue;
    }
    // Land idempotently: the file is named by the batch token, written whole, then renamed into place.
    const name = createHash('sha256').update(token).digest('hex').slice(0, 32);
    writeFileSync(join(landing, `.${name}.tmp`), batch.body);
    renameSync(join(landing, `.${name}.tmp`), join(landing, `${name}.arrow`));
    stats.landed++;
    if (fault < 0.2) {
      stats.dieAfterLand++;
      continue;
    }
    if (fault < 0.3) {
      // The loader dies while its commit is in flight: the gateway may or may not have applied it.
      stats.dieInCommit++;
      await request(`${gateway.url}/v1/cursors/${cursor}/commit`, 'POST', { batch: token }, Math.random() * 4).catch(
        () => undefined,
      );
      continue;
    }
    try {
      const res = await request(`${gateway.url}/v1/cursors/${cursor}/commit`, 'POST', { batch: token });
      if (res.status !== 200) throw new Error(`commit failed ${res.status}: ${res.body.toString()}`);
      stats.commits++;
    } catch (err) {
      if (!/ECONNREFUSED|ECONNRESET|socket hang up|cut/.test(String(err))) throw err;
      stats.gatewayDown++;
    }
  }
  await Promise.all([appender, killer]);

  // Every event of the topic is in exactly one landed file.
  const landed = new Map<string, number>();
  let landedRows = 0;
  for (const f of readdirSync(landing).filter((n) => n.endsWith('.arrow'))) {
    const t = tableFromIPC(readFileSync(join(landing, f)));
    const values = t.getChild('value')!;
    const times = t.getChild('timestamp_broker')!;
    for (let i = 0; i < t.numRows; i++) {
      const k = eventKey(values.get(i) as Uint8Array, Number(times.get(i)));
      landed.set(k, (landed.get(k) ?? 0) + 1);
      landedRows++;
    }
  }
  const { rows: all } = await trino.all(`SELECT from_utf8(value), to_unixtime(timestamp_broker) * 1000 FROM ${fq}`);
  const expected = new Map<string, number>();
  for (const [v, ms] of all as [string, number][]) {
    const k = `${v}@${Math.round(ms)}`;
    expected.set(k, (expected.get(k) ?? 0) + 1);
  }
  await gateway.kill();
  await trino.all(`DROP TABLE ${fq}`);
  rmSync(landing, { recursive: true, force: true });
  const summary = { ...stats, tableRows: all.length, landedRows, restarts: gateway.restarts };
  process.stderr.write(`[faults] ${storeUrl.split(':')[0]}: ${JSON.stringify(summary)}\n`);
  return { landed, expected, summary };
}

let pgUrl = '';
beforeAll(async () => {
  pgUrl = (await pgUp()).url;
});
afterAll(() => undefined);

// Both stores at once: each scenario mostly waits (the producer's pace, settle, the gateway's restarts), and each
// has its own table, gateway, landing folder and cursor.
describe.concurrent.each(['sqlite', 'postgres'])('loader under faults, %s store', (kind) => {
  it('lands every event exactly once', { timeout: 120_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'topicgate-state-'));
    const storeUrl = kind === 'sqlite' ? `sqlite:${join(dir, 'state.db')}` : pgUrl;
    const { landed, expected, summary } = await runScenario(storeUrl);
    rmSync(dir, { recursive: true, force: true });
    expect(summary.maxInsertMs, 'an event became visible later than settle: the premise of the guarantee').toBeLessThan(
      SETTLE_MS,
    );
    expect(summary.tableRows).toBeGreaterThan(100);
    expect(summary.dieBeforeLand).toBeGreaterThan(0);
    expect(summary.dieAfterLand).toBeGreaterThan(0);
    expect(summary.dieInCommit).toBeGreaterThan(0);
    expect(summary.restarts).toBe(2);
    expect(summary.landedRows).toBe(summary.tableRows);
    expect(landed).toEqual(expected);
  });
});
