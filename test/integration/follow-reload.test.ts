/**
 * Open follows under a reload of the access blocks (SIGHUP), in the server people run (`npm start`: dist/server.js
 * as a child process) on the real Trino. A file with a problem changes nothing: one log line names it, and every
 * follow goes on. A good one is in force for every open follow at its next check: the caller whose grant was
 * withdrawn gets TG_FORBIDDEN, the one whose API key was removed TG_UNAUTHENTICATED, the one whose row policy
 * changed TG_FORBIDDEN, each as an error event and then the end; the follow whose access did not change goes on,
 * and new requests see the new state.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { TOPIC_COLUMNS } from '../../scripts/demo-data.js';
import { apiKeyHash } from '../../src/access/api-keys.js';
import { trinoTimestampText } from '../../src/core/trino-timestamp.js';
import { HttpTrino } from '../../src/trino/http-trino.js';
import { openEvents, type EventStream } from '../follow-client.js';
import { GatewayProcess } from '../gateway-process.js';
import { trinoUrl } from '../helpers.js';

const SCHEMA = 'followreload|kafka_topics';
const table = `t_${randomBytes(4).toString('hex')}`;
const fq = `vast."${SCHEMA}"."${table}"`;
const trino = new HttpTrino({ server: trinoUrl(), user: 'test' });
const dir = mkdtempSync(join(tmpdir(), 'topicgate-follow-reload-'));
const file = join(dir, 'c.yaml');
/** Events are stamped this far ahead, so an insert slower than the settle time is still seen (follow.test.ts). */
const LEAD_MS = 3_000;
const HEADERS = 'array(row(key varchar, value varbinary))';
const key = (name: string) => `key-${name}-${'0'.repeat(32 - name.length)}`;
const CALLERS = { revoked: 'reader', removed: 'reader', scoped: 'scoped', stays: 'stays' } as const;
type Caller = keyof typeof CALLERS;
let gateway: GatewayProcess;

/** The config file: every caller's key but `without`, the grants of `granted`, the scoped caller's filter. */
function writeConfig(o: { without?: Caller; granted: string[]; scopedFilter: string }): void {
  const callers = (Object.keys(CALLERS) as Caller[]).filter((c) => c !== o.without);
  writeFileSync(
    file,
    stringify({
      topics: { [table]: { settle: '1s' } },
      auth: { apiKeys: callers.map((c) => ({ principal: c, sha256: apiKeyHash(key(c)), roles: [CALLERS[c]] })) },
      access: [{ roles: o.granted, topics: [table], actions: ['read'] }],
      rowPolicies: { default: 'allow', [table]: [{ roles: ['scoped'], filter: o.scopedFilter }] },
    }),
  );
}

beforeAll(async () => {
  await trino.all(`CREATE SCHEMA IF NOT EXISTS vast."${SCHEMA}"`);
  await trino.all(`CREATE TABLE ${fq} (${TOPIC_COLUMNS})`);
  writeConfig({ granted: ['reader', 'scoped', 'stays'], scopedFilter: 'key=in.(e1,e2,e3)' });
  gateway = new GatewayProcess({
    TOPICGATE_TRINO_URL: trinoUrl(),
    TOPICGATE_SCHEMAS: SCHEMA,
    TOPICGATE_CONFIG: file,
    TOPICGATE_STATE_URL: `sqlite:${join(dir, 'state.db')}`,
    TOPICGATE_CURSOR_SECRET: 'a-cursor-secret-of-at-least-32-bytes-for-this-test',
    TOPICGATE_FOLLOW_POLL: '100ms',
    TOPICGATE_FOLLOW_HEARTBEAT: '300ms',
  });
  await gateway.start();
});
afterAll(async () => {
  await gateway?.kill();
  await trino.all(`DROP TABLE IF EXISTS ${fq}`);
  rmSync(dir, { recursive: true, force: true });
});

async function append(k: string): Promise<void> {
  const ts = `TIMESTAMP '${trinoTimestampText(Date.now() + LEAD_MS)}'`;
  await trino.all(
    `INSERT INTO ${fq} VALUES (to_utf8('${k}'), to_utf8('{}'), ${ts}, ${ts}, CAST(ARRAY[] AS ${HEADERS}))`,
  );
}

const rowKeys = (s: EventStream) =>
  s.events.filter((e) => e.event === undefined).map((e) => (JSON.parse(e.data) as { key: string }).key);
const errorsOf = (s: EventStream) =>
  s.events.filter((e) => e.event === 'error').map((e) => (JSON.parse(e.data) as { error: { code: string } }).error);

/** Sends SIGHUP and waits for the reload's log line (`reloaded` or `refused`). */
async function hangUp(outcome: 'reloaded' | 'refused'): Promise<string> {
  const seen = gateway.output.length;
  gateway.signal('SIGHUP');
  const deadline = Date.now() + 60_000;
  for (;;) {
    const line = gateway.output
      .slice(seen)
      .split('\n')
      .find((l) => l.includes('SIGHUP'));
    if (line) {
      expect(line).toContain(outcome === 'reloaded' ? 'were reloaded' : 'reload refused');
      return line;
    }
    if (Date.now() > deadline) throw new Error(`no reload line: ${gateway.output.slice(seen)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('open follows under a reload of the access blocks', () => {
  it('keep the state in force on a bad file, and end with the reason on a good one that withdraws access', async () => {
    const url = `${gateway.url}/v1/topics/${table}/events?follow=true&since=now`;
    const follows = {} as Record<Caller, EventStream>;
    for (const c of Object.keys(CALLERS) as Caller[]) {
      follows[c] = await openEvents(url, { headers: { 'x-api-key': key(c) } });
      expect(follows[c].status).toBe(200);
    }
    const all = Object.values(follows);
    await append('e1');
    for (const s of all) await s.waitFor((x) => rowKeys(x).includes('e1'), 60_000);

    // A filter that does not parse: refused, named in one line, and nothing changes.
    writeConfig({ without: 'removed', granted: ['scoped', 'stays'], scopedFilter: 'key=nope.(e1' });
    const refused = await hangUp('refused');
    expect(refused).toContain(`rowPolicies.${table}[0].filter`);
    await append('e2');
    for (const s of all) await s.waitFor((x) => rowKeys(x).includes('e2'), 60_000);

    // The reader role loses its grant, the removed caller's key goes, the scoped caller's filter narrows.
    writeConfig({ without: 'removed', granted: ['scoped', 'stays'], scopedFilter: 'key=in.(e1)' });
    await hangUp('reloaded');
    const expected = { revoked: 'TG_FORBIDDEN', removed: 'TG_UNAUTHENTICATED', scoped: 'TG_FORBIDDEN' } as const;
    for (const [c, code] of Object.entries(expected) as [Caller, string][]) {
      const s = follows[c];
      await s.waitFor((x) => x.ended, 60_000);
      expect([c, errorsOf(s).map((e) => e.code)]).toEqual([c, [code]]);
      expect(s.events.at(-1)!.event).toBe('error');
    }
    await append('e3');
    await follows.stays.waitFor((x) => rowKeys(x).includes('e3'), 60_000);
    expect(rowKeys(follows.stays)).toEqual(['e1', 'e2', 'e3']);
    expect([follows.stays.ended, errorsOf(follows.stays)]).toEqual([false, []]);
    follows.stays.cut();
    for (const c of Object.keys(expected) as Caller[]) expect([c, rowKeys(follows[c])]).toEqual([c, ['e1', 'e2']]);

    // New requests see the new state too; the scoped caller's ids were of its old scope: it follows anew.
    const status = async (c: Caller) =>
      (await fetch(`${gateway.url}/v1/topics/${table}/events?limit=1`, { headers: { 'x-api-key': key(c) } })).status;
    expect([await status('revoked'), await status('removed'), await status('stays')]).toEqual([404, 401, 200]);
    const resumed = await fetch(url, {
      headers: { 'x-api-key': key('scoped'), 'last-event-id': follows.scoped.lastId! },
    });
    expect([resumed.status, ((await resumed.json()) as { error: { code: string } }).error.code]).toEqual([
      400,
      'TG_BAD_CURSOR',
    ]);
  });
});
