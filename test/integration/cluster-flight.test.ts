/**
 * Flight SQL through HAProxy (scripts/cluster.ts, scripts/haproxy-config.ts): two instances (the built dist/, as
 * `npm start` runs it) on the shared PostgreSQL store behind the balancer's gRPC frontend. A bulk statement's
 * partitions, asked for and read through the balancer, are served by both instances (each DoGet names its instance
 * in X-Topicgate-Instance), and their union is the single read and the REST read of the same window; ADBC's
 * execute_partitions + read_partition through the balancer gives the same union. A call with a wrong key is
 * UNAUTHENTICATED through the balancer as directly.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { clusterDown, clusterLayout, clusterUp, type Cluster, type ClusterLayout } from '../../scripts/cluster.js';
import { freePort } from '../../scripts/free-port.js';
import { pgLayout } from '../../scripts/local-postgres.js';
import { apiKeyHash } from '../../src/access/api-keys.js';
import { python, restArrow } from '../flight-gateway.js';
import { trinoUrl } from '../helpers.js';

const run = randomBytes(4).toString('hex');
const KEY = `key-cluster-flight-${run}-0000000000`;
const dir = mkdtempSync(join(tmpdir(), 'topicgate-cluster-flight-'));
let layout: ClusterLayout;
let cluster: Cluster;

const SQL =
  "SELECT key, value, timestamp_broker FROM orders WHERE timestamp_broker >= TIMESTAMP '2026-11-01 00:00:00' " +
  "AND timestamp_broker < TIMESTAMP '2026-11-04 00:00:00'";

beforeAll(async () => {
  const config = join(dir, 'cluster.yaml');
  writeFileSync(
    config,
    stringify({
      auth: { apiKeys: [{ principal: `flight-${run}`, sha256: apiKeyHash(KEY), roles: ['r'] }] },
      access: [{ roles: ['r'], topics: ['*'], actions: ['read'] }],
    }),
  );
  const ports = await Promise.all([1, 2, 3, 4, 5, 6].map(() => freePort()));
  const [port, p1, p2, flight, f1, f2] = ports as [number, number, number, number, number, number];
  // The run dir (pids, logs, the shared secret) inside the test's own directory, removed with it.
  layout = clusterLayout(
    { ...process.env, TOPICGATE_CACHE_DIR: dir },
    { port, instancePorts: [p1, p2], flight: { port: flight, instancePorts: [f1, f2] } },
  );
  cluster = await clusterUp(layout, {
    trinoUrl: trinoUrl(),
    stateUrl: pgLayout().url,
    env: { TOPICGATE_CONFIG: config, TOPICGATE_SCHEMAS: 'demo|kafka_topics' },
  });
}, 300_000);
afterAll(async () => {
  if (layout) await clusterDown(layout, { services: false });
  rmSync(dir, { recursive: true, force: true });
}, 120_000);

interface Spread {
  reads?: { rows: number; instance: string | null }[];
  error?: { kind: string; message: string };
}

describe('Flight SQL through HAProxy', () => {
  it('the balancer and each instance have their Flight URIs', () => {
    expect(cluster.flightUri).toBe(`grpc://127.0.0.1:${layout.flight!.port}`);
    expect(cluster.instances.map((g) => g.flightUri)).toEqual(
      layout.flight!.instancePorts.map((p) => `grpc://127.0.0.1:${p}`),
    );
  });

  it("a bulk statement's partitions are served by both instances, and add up to the REST read", async () => {
    const r = await python<Spread>('flight_raw.py', {
      mode: 'spread',
      uri: cluster.flightUri,
      token: KEY,
      sql: SQL,
      headers: { 'topicgate-streams': '4' },
    });
    expect(r.error).toBeUndefined();
    expect(r.reads).toHaveLength(4);
    expect(new Set(r.reads!.map((x) => x.instance))).toEqual(new Set(['gateway1', 'gateway2']));
    const rest = await restArrow(
      `${cluster.url}/v1/topics/orders/events?select=key,value,timestamp_broker&since=2026-11-01T00:00:00Z&until=2026-11-04T00:00:00Z&limit=all&format=arrow`,
      { 'x-api-key': KEY },
      dir,
    );
    expect(r.reads!.reduce((a, x) => a + x.rows, 0)).toBe(rest.rows.length);
  });

  it('ADBC through the balancer: the union of the partitions is the single read', async () => {
    const r = await python<{ single: { rows: unknown[] }; union: { rows: unknown[] }; partitions: unknown[] }>(
      'adbc_partitions.py',
      { uri: cluster.flightUri, token: KEY, sql: SQL, headers: { 'topicgate-streams': '3' } },
    );
    expect(r.partitions).toHaveLength(3);
    expect(r.single.rows.length).toBeGreaterThan(10_000);
    expect(r.union.rows).toEqual(r.single.rows);
  });

  it('a wrong key is UNAUTHENTICATED through the balancer', async () => {
    const r = await python<Spread>('flight_raw.py', {
      mode: 'spread',
      uri: cluster.flightUri,
      token: `${KEY}x`,
      sql: SQL,
    });
    expect(r.reads).toBeUndefined();
    expect(r.error?.kind).toBe('FlightUnauthenticatedError');
  });
});
