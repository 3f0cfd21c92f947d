/**
 * Partitions of a bulk Flight SQL statement (API.md "Flight SQL", results) with the real clients over the real Trino:
 * ADBC's `adbc_execute_partitions` gives one partition per read-session stream (`topicgate-streams` call header, or
 * as many as the rows want), `adbc_read_partition` reads each, on this gateway or on a second instance sharing its
 * keys, and their union is the single read (execute + fetch_arrow_table) and the REST Arrow output of the same
 * window, value for value, over ten-way ties and identical duplicates, under a row policy too. Not bulk (LIMIT, an
 * aggregate, an open window): one endpoint. Attacks: another principal's DoGet of a partition is PERMISSION_DENIED,
 * an altered ticket or one sealed under other keys INVALID_ARGUMENT, an expired one TG_SESSION_EXPIRED, never a row.
 * Cancelling them: flight-cancel.test.ts.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { apiKeyHash } from '../../src/access/api-keys.js';
import { flightGateway, python, restArrow, type FlightGateway } from '../flight-gateway.js';
import { sql } from '../helpers.js';

const run = randomBytes(4).toString('hex');
const KEYS = {
  alice: `key-alice-${run}-00000000000000`,
  mallory: `key-mallory-${run}-000000000000`,
  eu: `key-eu-${run}-0000000000000000`,
};
const SECRET = `partitions-secret-${run}-0123456789abcdef`;
const dir = mkdtempSync(join(tmpdir(), 'topicgate-flight-partitions-'));
const gateways: FlightGateway[] = [];
let one: FlightGateway;
let two: FlightGateway;

const SINCE = '2026-11-01T00:00:00Z';
const UNTIL = '2026-11-04T00:00:00Z';
const sqlTime = (iso: string) => `TIMESTAMP '${iso.slice(0, 23).replace('T', ' ').replace('Z', '')}'`;
const windowSql = (since: string, until: string) =>
  `timestamp_broker >= ${sqlTime(since)} AND timestamp_broker < ${sqlTime(until)}`;
const ORDERS = `SELECT * FROM orders WHERE ${windowSql(SINCE, UNTIL)}`;

function writeConfig(): string {
  const file = join(dir, 'partitions.yaml');
  const key = (who: keyof typeof KEYS, roles: string[]) => ({
    principal: `${who}-${run}`,
    sha256: apiKeyHash(KEYS[who]),
    roles,
  });
  writeFileSync(
    file,
    stringify({
      topics: { orders: { expand: { country: { path: '$.customer.address.country', type: 'varchar' } } } },
      auth: { apiKeys: [key('alice', ['r', 'all']), key('mallory', ['r', 'all']), key('eu', ['r', 'eu'])] },
      access: [{ roles: ['r'], topics: ['*'], actions: ['read'] }],
      rowPolicies: {
        // A topic with row policies shows a principal only the rows a policy of its roles gives it.
        orders: [
          { roles: ['eu'], filter: 'country=in.(DE,FR)' },
          { roles: ['all'], filter: 'timestamp_broker=not.is.null' },
        ],
        orders_expanded: [
          { roles: ['eu'], filter: 'customer__address__country=in.(DE,FR)' },
          { roles: ['all'], filter: 'order_id=not.is.null' },
        ],
      },
      limits: { maxSessionStreams: 16 },
    }),
  );
  return file;
}

beforeAll(async () => {
  const env = { TOPICGATE_CONFIG: writeConfig(), TOPICGATE_CURSOR_SECRET: SECRET };
  one = await flightGateway('demo|kafka_topics', env);
  gateways.push(one);
  two = await flightGateway('demo|kafka_topics', env);
  gateways.push(two);
}, 300_000);
afterAll(async () => {
  await Promise.all(gateways.map((g) => g.close()));
  rmSync(dir, { recursive: true, force: true });
});

interface Table {
  schema: { name: string; type: string }[];
  rows: Record<string, unknown>[];
}
interface PartitionRead {
  single: Table;
  union: Table;
  partitions: { reader: number; rows: number }[];
}

/** The statement read whole and as partitions (read round robin by `readers`), with `streams` asked for. */
function partitions(
  who: keyof typeof KEYS,
  statement: string,
  streams?: number,
  readers = [one],
): Promise<PartitionRead> {
  return python<PartitionRead>('adbc_partitions.py', {
    uri: one.flightUri,
    readers: readers.map((g) => g.flightUri),
    token: KEYS[who],
    sql: statement,
    headers: streams === undefined ? {} : { 'topicgate-streams': String(streams) },
  });
}

const rest = (who: keyof typeof KEYS, query: string) =>
  restArrow(`${one.url}/v1/topics/orders/events?${query}&limit=all&format=arrow`, { 'x-api-key': KEYS[who] }, dir);

describe('partitions of a bulk statement', () => {
  it('four partitions over three days of orders: their union is the single read and the REST Arrow rows', async () => {
    const r = await partitions('alice', ORDERS, 4);
    expect(r.partitions).toHaveLength(4);
    expect(
      r.partitions.every((p) => p.rows > 0),
      JSON.stringify(r.partitions),
    ).toBe(true);
    const expected = await rest('alice', `since=${SINCE}&until=${UNTIL}`);
    expect(expected.rows.length).toBeGreaterThan(10_000);
    expect(r.union.schema).toEqual(r.single.schema);
    expect(r.union.rows).toEqual(r.single.rows);
    expect(r.single.rows).toEqual(expected.rows);
  });

  it('a ten-way tie and identical duplicates: cut at every millisecond, never split, never lost', async () => {
    const [[tie]] = (await sql(
      'SELECT to_unixtime(timestamp_broker) * 1000 FROM orders GROUP BY timestamp_broker HAVING count(*) >= 10 LIMIT 1',
    )) as [[number]];
    const at = Math.round(Number(tie));
    const [since, until] = [new Date(at - 2).toISOString(), new Date(at + 3).toISOString()];
    const r = await partitions(
      'alice',
      `SELECT key, value, timestamp_broker FROM orders WHERE ${windowSql(since, until)}`,
      16,
    );
    expect(r.partitions).toHaveLength(5);
    expect(
      r.partitions.filter((p) => p.rows >= 10),
      JSON.stringify(r.partitions),
    ).toHaveLength(1);
    expect(r.union.rows).toEqual(r.single.rows);
    expect(r.union.rows).toEqual(
      (await rest('alice', `select=key,value,timestamp_broker&since=${since}&until=${until}`)).rows,
    );
  });

  it('partitions read on a second instance sharing the keys give the same union', async () => {
    const r = await partitions('alice', ORDERS, 4, [one, two]);
    expect(r.partitions.map((p) => p.reader)).toEqual([0, 1, 0, 1]);
    expect(r.union.rows).toEqual(r.single.rows);
  });

  it("a row policy holds in every partition: the union is that caller's REST read", async () => {
    const r = await partitions(
      'eu',
      `SELECT key, country, timestamp_broker FROM orders WHERE ${windowSql(SINCE, UNTIL)}`,
      3,
    );
    expect(r.partitions).toHaveLength(3);
    const expected = await rest('eu', `select=key,country,timestamp_broker&since=${SINCE}&until=${UNTIL}`);
    expect(r.union.rows).toEqual(expected.rows);
    expect(new Set(r.union.rows.map((row) => row.country))).toEqual(new Set(['DE', 'FR']));
  });

  it.each([
    ['a LIMIT', `${ORDERS} LIMIT 100`],
    ['an aggregate', `SELECT count(*) AS n FROM orders WHERE ${windowSql(SINCE, UNTIL)}`],
    // Its last day: fewer rows than one read may return (maxLimit), which an open window without LIMIT reads whole.
    ['an open window', `SELECT key FROM orders WHERE timestamp_broker >= ${sqlTime('2026-11-03T00:00:00Z')}`],
  ])('not bulk (%s): one endpoint, read whole', async (_what, statement) => {
    const r = await partitions('alice', statement, 4);
    expect(r.partitions).toHaveLength(1);
    expect(r.union.rows).toEqual(r.single.rows);
  });
});

interface Info {
  tickets: string[];
  expires: (number | null)[];
  error?: { kind: string; message: string };
}
interface Got {
  rows?: number;
  error?: { kind: string; message: string };
}
const infoOf = (who: keyof typeof KEYS, statement: string, streams: number | string, g = one) =>
  python<Info>('flight_raw.py', {
    mode: 'info',
    uri: g.flightUri,
    token: KEYS[who],
    sql: statement,
    headers: { 'topicgate-streams': String(streams) },
  });
const getTicket = (who: keyof typeof KEYS, ticket: string, g = one) =>
  python<Got>('flight_raw.py', { mode: 'get', uri: g.flightUri, token: KEYS[who], ticket });

describe('the partitions a call asks for', () => {
  it.each([
    ['0', 'TG_BAD_REQUEST', 'invalid argument'],
    ['-4', 'TG_BAD_REQUEST', 'invalid argument'],
    ['four', 'TG_BAD_REQUEST', 'invalid argument'],
    ['17', 'TG_TOO_EXPENSIVE', 'resource exhausted'],
  ])('topicgate-streams: %s is refused (%s, %s), never a FlightInfo', async (streams, code, grpcStatus) => {
    const info = await infoOf('alice', ORDERS, streams);
    expect(info.tickets).toBeUndefined();
    expect(info.error?.message).toContain(code);
    expect(info.error?.message.toLowerCase()).toContain(grpcStatus);
  });
});

describe('a partition ticket is its principal’s alone', () => {
  it("another principal's DoGet is PERMISSION_DENIED; the owner's reads it; tickets expire with the session", async () => {
    const info = await infoOf('alice', ORDERS, 2);
    expect(info.tickets).toHaveLength(2);
    for (const e of info.expires) expect((e ?? 0) * 1000).toBeGreaterThan(Date.now());
    const stolen = await getTicket('mallory', info.tickets[0]!);
    expect(stolen.rows).toBeUndefined();
    expect(stolen.error?.message).toMatch(/TG_FORBIDDEN/);
    expect(stolen.error?.kind).toBe('FlightUnauthorizedError');
    expect((await getTicket('alice', info.tickets[0]!)).rows).toBeGreaterThan(0);
  });

  it('a ticket past its expiry (the read session TTL) is refused with TG_SESSION_EXPIRED', async () => {
    const short = await flightGateway('demo|kafka_topics', {
      TOPICGATE_CONFIG: join(dir, 'partitions.yaml'),
      TOPICGATE_CURSOR_SECRET: SECRET,
      TOPICGATE_SESSION_TTL: '1s',
    });
    gateways.push(short);
    const info = await infoOf('alice', ORDERS, 2, short);
    expect(info.tickets).toHaveLength(2);
    const expires = info.expires[0]! * 1000;
    while (Date.now() <= expires) await new Promise((r) => setTimeout(r, 100));
    const late = await getTicket('alice', info.tickets[0]!, short);
    expect(late.rows).toBeUndefined();
    expect(late.error?.message).toContain('TG_SESSION_EXPIRED');
  });

  it('an altered ticket, and one sealed under other keys, are INVALID_ARGUMENT', async () => {
    const info = await infoOf('alice', ORDERS, 2);
    const t = Buffer.from(info.tickets[0]!, 'hex');
    t.writeUInt8(t.readUInt8(t.length - 5) ^ 1, t.length - 5);
    const altered = await getTicket('alice', t.toString('hex'));
    expect(altered.rows).toBeUndefined();
    expect(altered.error?.message).toMatch(/TG_BAD_SESSION/);
    const other = await flightGateway('demo|kafka_topics', {
      TOPICGATE_CONFIG: join(dir, 'partitions.yaml'),
      TOPICGATE_CURSOR_SECRET: `other-${SECRET}`,
    });
    gateways.push(other);
    const foreign = await getTicket('alice', info.tickets[0]!, other);
    expect(foreign.error?.message).toMatch(/TG_BAD_SESSION/);
    expect(foreign.error?.kind).toBe('ArrowInvalid');
  });
});
