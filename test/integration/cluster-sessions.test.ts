/**
 * Read sessions on two instances behind HAProxy, brought up by scripts/cluster.ts on the
 * shared PostgreSQL store: a session made through the balancer has its streams read from both instances, directly
 * and through the balancer, and their union is the `limit=all` read (NDJSON byte for byte, Arrow value for value)
 * over the demo topics' hard cases. Restarted on the bulk clicks (streams big enough to hold open): an instance
 * killed with SIGKILL while it serves a stream: that read fails visibly, and the same stream read from the other
 * instance gives exactly its rows; `concurrentQueries: 2` refuses a third stream on either instance. Restarted
 * with a grant taken away and a short session TTL: the balancer refuses the revoked principal's streams (403) and an
 * expired session's (410), and still serves the others' sessions made before the restart, byte for byte. The
 * instances serve one schema at a time: a topic is then named by its table.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { stringify } from 'yaml';
import { clusterDown, clusterLayout, clusterUp, type Cluster, type ClusterLayout } from '../../scripts/cluster.js';
import { registerDemoSchemas } from '../../scripts/demo-avro.js';
import { freePort } from '../../scripts/free-port.js';
import { pgLayout } from '../../scripts/local-postgres.js';
import { alive } from '../../scripts/pid-file.js';
import { apiKeyHash } from '../../src/access/api-keys.js';
import { holdRead, readOn } from '../held-stream.js';
import { sql, trinoUrl } from '../helpers.js';
import { httpTarget, type HttpTarget } from '../http-target.js';
import { createSession, expectUnionIsBulk, ndjsonLines, type TestSession } from '../session-reads.js';

/** The demo topics' hard cases first; then the bulk clicks, big enough to hold a stream open. */
const DEMO = 'demo|kafka_topics';
const BULK = 'bulk|kafka_topics';
const DAY = { since: '2026-11-01T00:00:00Z', until: '2026-11-02T00:00:00Z' };
/**
 * The 400,400 bulk clicks in three streams: each tens of MB of NDJSON, far more than the sockets between a
 * gateway and a client that stopped reading hold, so a held stream's query keeps running.
 */
const CLICKS = { since: '2026-11-01T00:00:00Z', until: '2026-11-02T00:00:00Z', streams: 3 };
/** Ten minutes of them (9,000 keys): small sessions. */
const MINUTES = { since: '2026-11-01T00:00:00Z', until: '2026-11-01T00:10:00Z', select: ['key'], streams: 2 };
const run = randomBytes(4).toString('hex');
const KEYS = {
  reader: `key-reader-${run}-0000000000`,
  eu: `key-eu-${run}-00000000000000`,
  slots: `key-slots-${run}-00000000000`,
  revoked: `key-revoked-${run}-000000000`,
};
const as = (who: keyof typeof KEYS) => ({ 'x-api-key': KEYS[who] });
const dir = mkdtempSync(join(tmpdir(), 'topicgate-cluster-sessions-'));
const config = join(dir, 'cluster.yaml');
let layout: ClusterLayout;
let cluster: Cluster;
/** The balancer alone (sessions are made there), and the streams' reader: instance 1, instance 2, the balancer. */
let balancer: HttpTarget;
let readers: HttpTarget;

/**
 * The config of every instance, serving one schema (served alone, a topic is named by its table); `revoked`: the
 * principal `revoked` has lost its grant.
 */
function writeConfig(schema: string, revoked = false): void {
  const principal = (who: keyof typeof KEYS, roles: string[]) => ({
    principal: `${who}-${run}`,
    sha256: apiKeyHash(KEYS[who]),
    roles,
  });
  writeFileSync(
    config,
    stringify({
      ...(schema === DEMO ? demoTopics : {}),
      auth: {
        apiKeys: [
          principal('reader', ['r']),
          principal('eu', ['r', 'eu']),
          principal('slots', ['r']),
          principal('revoked', revoked ? ['nobody'] : ['r']),
        ],
      },
      access: [{ roles: ['r'], topics: ['*'], actions: ['read'] }],
      // Every principal: two queries at once across both instances (the readers here read one stream at a time).
      limits: { concurrentQueries: 2, queueWaitMs: 2000 },
    }),
  );
}

/** The demo schema's topic settings: an expansion with a row policy on it, decoded Avro. */
const demoTopics = {
  schemaRegistry: { url: inject('registryUrl') },
  topics: {
    orders: { expand: { country: { path: '$.customer.address.country', type: 'varchar' } } },
    payments_avro: { key: { format: 'avro' }, value: { format: 'avro' } },
  },
  rowPolicies: {
    default: 'allow',
    orders: [{ roles: ['eu'], filter: 'country=in.(DE,FR)' }],
    // orders_expanded serves the same events: its own policy, on its own column (refused at start-up otherwise).
    orders_expanded: [{ roles: ['eu'], filter: 'customer__address__country=in.(DE,FR)' }],
  },
};

/** The cluster (re)started on the config as written, serving `schema`. */
async function up(schema: string, env: Record<string, string> = {}): Promise<void> {
  await clusterDown(layout, { services: false });
  cluster = await clusterUp(layout, {
    trinoUrl: trinoUrl(),
    stateUrl: pgLayout().url,
    env: { TOPICGATE_CONFIG: config, TOPICGATE_SCHEMAS: schema, TOPICGATE_PREFETCH_ROWS: '0', ...env },
  });
  balancer = httpTarget([cluster.url]);
  readers = httpTarget([...cluster.instances.map((g) => g.url), cluster.url]);
}

beforeAll(async () => {
  await registerDemoSchemas(inject('registryUrl'));
  writeConfig(DEMO);
  const [port, p1, p2] = [await freePort(), await freePort(), await freePort()];
  // The run dir (pids, logs, the shared secret) inside the test's own directory, removed with it.
  layout = clusterLayout({ ...process.env, TOPICGATE_CACHE_DIR: dir }, { port, instancePorts: [p1, p2] });
  await up(DEMO);
});
afterAll(async () => {
  if (layout) await clusterDown(layout, { services: false });
  rmSync(dir, { recursive: true, force: true });
}, 120_000);

/** Which instances answered: by the base addressed, or through the balancer by its header. */
const instancesOf = (t: HttpTarget, method: 'direct' | 'balanced') =>
  new Set(t.served.filter((s) => (s.instance === null) === (method === 'direct')).map((s) => s.instance ?? s.base));

const ts = (iso: string) => `TIMESTAMP '${iso.slice(0, 23).replace('T', ' ')}'`;

describe('the union of streams read from both instances is the limit=all read', () => {
  it.each([
    ['orders, every column, duplicates, bytes that are not UTF-8', 'orders', { ...DAY, streams: 4 }, true],
    ['orders, order none', 'orders', { ...DAY, order: 'none', streams: 3 }, true],
    ['s3_events', 's3_events', { ...DAY, select: ['key', 'value'], streams: 3 }, false],
    ['payments_avro, decoded', 'payments_avro', { ...DAY, streams: 4 }, false],
  ])('%s', async (_what, table, body, notUtf8) => {
    const { session, rows, lines } = await expectUnionIsBulk(balancer, table, body, as('reader'), readers);
    expect(rows).toBeGreaterThan(100);
    expect(session.streams.reduce((a, s) => a + s.estimatedRows, 0)).toBe(rows);
    // Bytes that are not UTF-8 reach the reader as the bulk read writes them (`\\x..`).
    if (notUtf8) expect(lines.some((l) => l.includes('"\\\\x'))).toBe(true);
  });

  it('orders around a ten-way tie, cut into one stream per millisecond: the tie is never split', async () => {
    const [[tie]] = (await sql(
      `SELECT to_unixtime(timestamp_broker) * 1000 FROM orders GROUP BY timestamp_broker HAVING count(*) >= 10 LIMIT 1`,
    )) as [[number]];
    const at = Math.round(Number(tie));
    const body = { since: new Date(at - 2).toISOString(), until: new Date(at + 3).toISOString(), streams: 16 };
    const { session, rows } = await expectUnionIsBulk(balancer, 'orders', body, as('reader'), readers);
    expect([session.streams.length, rows >= 10]).toEqual([5, true]);
  });

  it("a row policy: the restricted principal's union is its limit=all read, only its rows", async () => {
    const body = { ...DAY, select: ['key', 'country', 'timestamp_broker'], streams: 4 };
    const { rows } = await expectUnionIsBulk(balancer, 'orders', body, as('eu'), readers);
    const [[n]] = (await sql(
      `SELECT count(*) FROM orders WHERE timestamp_broker >= ${ts(DAY.since)} AND timestamp_broker < ${ts(DAY.until)} ` +
        `AND json_extract_scalar(from_utf8(value), '$.customer.address.country') IN ('DE', 'FR')`,
    )) as [[number]];
    expect(rows).toBe(Number(n));
  });

  it('the sessions were made on an instance through the balancer, their streams read on both, both ways', () => {
    const made = balancer.served.filter((s) => s.path.endsWith('/sessions'));
    expect(made.every((s) => s.status === 201 && /^gateway[12]$/.test(s.instance ?? ''))).toBe(true);
    expect(instancesOf(readers, 'direct')).toEqual(new Set(cluster.instances.map((g) => g.url)));
    expect(instancesOf(readers, 'balanced')).toEqual(new Set(['gateway1', 'gateway2']));
  });
});

describe('instances come and go', () => {
  let clicks: TestSession;
  beforeAll(async () => {
    writeConfig(BULK);
    await up(BULK);
    clicks = await createSession(balancer, 'clicks', CLICKS, as('slots'));
  });
  const url = (at: string, s: TestSession, i: number) => `${at}${s.streams[i]!.url}&format=ndjson`;

  it('concurrentQueries: 2: with two streams held open, a third is refused whichever instance takes it', async () => {
    const held = await Promise.all(cluster.instances.map((g, i) => holdRead(url(g.url, clicks, i), as('slots'))));
    const refusedBy = new Set<string | null>();
    for (let attempt = 0; attempt < 6 && refusedBy.size < 2; attempt++) {
      const res = await fetch(url(cluster.url, clicks, 2), { headers: as('slots') });
      const body = (await res.json()) as { error: { code: string; details: { limit: string } } };
      expect([res.status, body.error.code, body.error.details.limit]).toEqual([
        429,
        'TG_TOO_MANY_REQUESTS',
        'concurrentQueries',
      ]);
      refusedBy.add(res.headers.get('x-topicgate-instance'));
    }
    expect(refusedBy).toEqual(new Set(['gateway1', 'gateway2']));
    for (const h of held) h.req.destroy();
  });

  it('SIGKILL while an instance serves a stream: the read fails visibly; the other instance gives exactly its rows', async () => {
    const s = await createSession(balancer, 'clicks', CLICKS, as('reader'));
    const held = await holdRead(url(cluster.url, s, 1), as('reader'));
    const victim = cluster.instances[Number(held.instance?.replace('gateway', '')) - 1]!;
    const survivor = cluster.instances.find((g) => g !== victim)!;
    process.kill(victim.pid, 'SIGKILL');
    await expect.poll(() => alive(victim.pid)).toBe(false);
    const cut = await readOn(held);
    // The transfer stopped without its last chunk, and without NDJSON's end (an empty line).
    expect(cut.complete).toBe(false);
    expect(cut.body.toString('latin1').endsWith('\n\n')).toBe(false);

    const again = await fetch(url(survivor.url, s, 1), { headers: { ...as('reader'), 'accept-encoding': 'identity' } });
    expect(again.status).toBe(200);
    const whole = Buffer.from(await again.arrayBuffer());
    const lines = ndjsonLines(whole);
    const [[n]] = (await sql(
      `SELECT count(*) FROM vast."${BULK}".clicks WHERE timestamp_broker >= ${ts(s.streams[1]!.since)} ` +
        `AND timestamp_broker < ${ts(s.streams[1]!.until)}`,
    )) as [[number]];
    expect(lines.length).toBe(Number(n));
    // What arrived before the kill is the start of the same bytes, and fewer rows.
    expect(whole.subarray(0, cut.body.length).equals(cut.body)).toBe(true);
    expect(cut.body.length).toBeLessThan(whole.length);
    // Through the balancer now: the dead instance refuses connections, so the other serves it, the same bytes.
    const balanced = await balancer.inject({ url: `${s.streams[1]!.url}&format=ndjson`, headers: as('reader') });
    expect([balanced.statusCode, balanced.rawPayload.equals(whole)]).toEqual([200, true]);
    expect(balancer.served.at(-1)!.instance).toBe(`gateway${cluster.instances.indexOf(survivor) + 1}`);
  });
});

describe('after a restart with a grant taken away and a two-second session TTL', () => {
  let before: { plain: TestSession; presigned: TestSession; kept: TestSession };
  let keptBytes: Buffer;
  /** A stream of a session of `reader`, through the balancer. */
  const readKept = () =>
    balancer.inject({ url: `${before.kept.streams[1]!.url}&format=ndjson`, headers: as('reader') });
  beforeAll(async () => {
    before = {
      plain: await createSession(balancer, 'clicks', MINUTES, as('revoked')),
      presigned: await createSession(balancer, 'clicks', { ...MINUTES, presign: true }, as('revoked')),
      kept: await createSession(balancer, 'clicks', MINUTES, as('reader')),
    };
    keptBytes = (await readKept()).rawPayload;
    writeConfig(BULK, true);
    await up(BULK, { TOPICGATE_SESSION_TTL: '2s' });
  });

  /** A stream read twice through the balancer (round robin: once on each instance): status, code, instance. */
  const twice = async (s: TestSession, headers: Record<string, string>) => {
    const out: [number, string | undefined, string | null][] = [];
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`${cluster.url}${s.streams[0]!.url}&format=ndjson`, { headers });
      const text = await res.text();
      expect(text).not.toContain('"key":');
      const code = res.status === 200 ? undefined : (JSON.parse(text) as { error: { code: string } }).error.code;
      out.push([res.status, code, res.headers.get('x-topicgate-instance')]);
    }
    return out.sort((a, b) => String(a[2]).localeCompare(String(b[2])));
  };

  it('the revoked principal: 403 on either instance, with its key or presigned', async () => {
    const refused = (code: string) => [
      [403, code, 'gateway1'],
      [403, code, 'gateway2'],
    ];
    expect(await twice(before.plain, as('revoked'))).toEqual(refused('TG_FORBIDDEN'));
    expect(await twice(before.presigned, {})).toEqual(refused('TG_FORBIDDEN'));
  });

  it('a session made before the restart still reads on the new instances, for a principal that kept its grant', async () => {
    const res = await readKept();
    expect(res.statusCode).toBe(200);
    expect(ndjsonLines(res.rawPayload).length).toBeGreaterThan(100);
    expect(res.rawPayload.equals(keptBytes)).toBe(true);
  });

  it('an expired session: 410 TG_SESSION_EXPIRED on either instance', async () => {
    const s = await createSession(balancer, 'clicks', MINUTES, as('reader'));
    expect(Date.parse(s.expiresAt) - Date.now()).toBeLessThanOrEqual(2000);
    // Waited out (no time is asserted): the streams are read once their expiry has passed.
    await new Promise((r) => setTimeout(r, Math.max(0, Date.parse(s.expiresAt) - Date.now()) + 100));
    expect(await twice(s, as('reader'))).toEqual([
      [410, 'TG_SESSION_EXPIRED', 'gateway1'],
      [410, 'TG_SESSION_EXPIRED', 'gateway2'],
    ]);
  });
});
