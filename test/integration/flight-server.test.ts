/**
 * The Flight SQL server as `npm start` runs it beside the HTTP one: TLS with TOPICGATE_FLIGHT_TLS_CERT/_KEY (a
 * real ADBC client checks the certificate; a plaintext client gets nothing), start-up refusing half a TLS setting and
 * a port already taken, each naming its settings; a client that stops reading has its call cut after the write idle
 * time and its Trino query cancelled (the bulk clicks of test/global-setup.ts, read over the direct protocol so
 * the query itself is held); and the app's close stops the Flight server too.
 */
import { execFile, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { Writable } from 'node:stream';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { apiKeyHash } from '../../src/access/api-keys.js';
import { createAccess } from '../../src/access/create-access.js';
import { startFlight } from '../../src/flight/flight-server.js';
import { buildApp } from '../../src/server/app.js';
import { flightServicesOf } from '../../src/server/flight-entrance.js';
import { loadConfig } from '../../src/server/load-config.js';
import { startServer } from '../../src/server.js';
import { HttpTrino } from '../../src/trino/http-trino.js';
import { trinoUrl } from '../helpers.js';

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'topicgate-flight-server-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const cert = join(dir, 'cert.pem');
const key = join(dir, 'key.pem');
const made = spawnSync('openssl', [
  ...['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=localhost'],
  ...['-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost', '-keyout', key, '-out', cert],
]);
if (made.status !== 0) throw new Error(`openssl: ${made.stderr.toString()}`);

function start(env: Record<string, string>) {
  return startServer(
    loadConfig({
      TOPICGATE_TRINO_URL: trinoUrl(),
      TOPICGATE_STATE_URL: 'sqlite::memory:',
      TOPICGATE_PORT: '0',
      TOPICGATE_FLIGHT_PORT: '0',
      TOPICGATE_LOG_LEVEL: 'silent',
      TOPICGATE_MAX_EVENT_LOOP_DELAY_MS: '0',
      ...env,
    }),
  );
}

async function objects(args: Record<string, unknown>) {
  const { stdout } = await run(
    'python3',
    ['test/flight/flight_sql.py', JSON.stringify({ ...args, steps: [{ do: 'objects' }] })],
    {
      encoding: 'utf8',
    },
  );
  return JSON.parse(stdout) as {
    connect?: { message: string };
    results: { ok?: unknown[]; error?: { message: string } }[];
  };
}

describe('start-up and TLS', () => {
  it('TLS: ADBC checking the certificate lists the tables; a plaintext client does not', async () => {
    const g = await start({ TOPICGATE_FLIGHT_TLS_CERT: cert, TOPICGATE_FLIGHT_TLS_KEY: key });
    try {
      expect(g.flight!.uri).toMatch(/^grpc\+tls:\/\/127\.0\.0\.1:\d+$/);
      const tls = await objects({ uri: g.flight!.uri, tlsRoots: cert });
      expect(tls.results[0]!.ok!.length).toBeGreaterThan(2);
      const plain = await objects({ uri: g.flight!.uri.replace('grpc+tls', 'grpc') });
      expect(plain.connect ?? plain.results[0]!.error).toBeDefined();
    } finally {
      await g.app.close();
    }
  });

  it('half a TLS setting, and a port already taken, stop start-up naming the settings', async () => {
    await expect(start({ TOPICGATE_FLIGHT_TLS_CERT: cert })).rejects.toThrow(
      /TOPICGATE_FLIGHT_TLS_CERT and TOPICGATE_FLIGHT_TLS_KEY/,
    );
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const port = (busy.address() as { port: number }).port;
    try {
      await expect(start({ TOPICGATE_FLIGHT_PORT: String(port) })).rejects.toThrow(
        new RegExp(`TOPICGATE_FLIGHT_PORT=127\\.0\\.0\\.1:${port}`),
      );
    } finally {
      busy.close();
    }
  });

  it('off: no Flight server; and the app closing stops the one it started', async () => {
    const off = await start({ TOPICGATE_FLIGHT_PORT: 'off' });
    expect(off.flight).toBeNull();
    await off.app.close();
    const on = await start({});
    const uri = on.flight!.uri;
    expect((await objects({ uri })).results[0]!.ok).toBeDefined();
    await on.app.close();
    const after = await objects({ uri });
    expect(after.connect ?? after.results[0]!.error).toBeDefined();
  });
});

describe('the log', () => {
  it('one line per call (who, what, outcome, rows), never a key or a handshake token', async () => {
    const KEY = 'flight-log-key-000000000000000000000';
    const file = join(dir, 'log.yaml');
    writeFileSync(
      file,
      stringify({
        auth: { apiKeys: [{ principal: 'logger-1', sha256: apiKeyHash(KEY), roles: ['r'] }] },
        access: [{ roles: ['r'], topics: ['*'], actions: ['read'] }],
      }),
    );
    const lines: string[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(...chunk.toString().split('\n').filter(Boolean));
        done();
      },
    });
    const config = loadConfig({
      TOPICGATE_TRINO_URL: trinoUrl(),
      TOPICGATE_STATE_URL: 'sqlite::memory:',
      TOPICGATE_CONFIG: file,
      TOPICGATE_CURSOR_SECRET: 'a-cursor-secret-of-at-least-32-bytes-for-logs',
    });
    const app = await buildApp(config, { logger: { level: 'info', stream } });
    await app.ready();
    const flight = await startFlight(flightServicesOf(app), { port: 0, host: '127.0.0.1' });
    try {
      const sql = "SELECT key FROM orders WHERE timestamp_broker >= TIMESTAMP '2026-11-01 00:00:00' LIMIT 3";
      for (const who of [{ user: 'logger-1', password: KEY }, { token: KEY }, { token: 'wrong-key' }]) {
        await run('python3', [
          'test/flight/flight_sql.py',
          JSON.stringify({ uri: flight.uri, ...who, steps: [{ do: 'query', sql }] }),
        ]);
      }
    } finally {
      await flight.close(0);
      await app.close();
    }
    const calls = lines
      .map((l) => JSON.parse(l) as { msg: string; flight?: Record<string, unknown> })
      .filter((l) => l.msg === 'flight call');
    expect(calls.map((c) => c.flight!.method)).toEqual(
      expect.arrayContaining(['Handshake', 'GetFlightInfo', 'DoGet', 'DoAction']),
    );
    expect(calls.find((c) => c.flight!.method === 'DoGet' && c.flight!.rows === 3)?.flight).toMatchObject({
      principal: 'logger-1',
      topic: 'orders',
      outcome: 'ok',
    });
    expect(calls.some((c) => c.flight!.outcome === 'TG_UNAUTHENTICATED')).toBe(true);
    const text = lines.join('\n');
    expect(text).not.toContain(KEY);
    expect(text).not.toContain('wrong-key');
    expect(text).not.toMatch(/fh1\.[A-Za-z0-9_-]+\./);
  });
});

/**
 * A gateway serving Flight SQL with the access of a config file written from `access`, which a test rewrites and puts
 * in force (`app.accessHolder.swap`) as a reload does; the env to load it again with.
 */
async function reloadable(name: string, access: object) {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, stringify(access));
  const env = {
    TOPICGATE_TRINO_URL: trinoUrl(),
    TOPICGATE_STATE_URL: 'sqlite::memory:',
    TOPICGATE_CONFIG: file,
    TOPICGATE_CURSOR_SECRET: `a-cursor-secret-of-at-least-32-bytes-for-${name}`,
  };
  const app = await buildApp(loadConfig(env), { logger: false });
  await app.ready();
  const flight = await startFlight(flightServicesOf(app), { port: 0, host: '127.0.0.1' });
  return { file, env, app, flight };
}

describe('access reloaded', () => {
  it('a key taken out of the config stops working at once, and so does the handshake token made from it', async () => {
    const KEY = 'flight-reload-key-0000000000000000000';
    const withKey = {
      auth: { apiKeys: [{ principal: 'reload-1', sha256: apiKeyHash(KEY), roles: ['r'] }] },
      access: [{ roles: ['r'], topics: ['*'], actions: ['read'] }],
    };
    const { file, env, app, flight } = await reloadable('reload', withKey);
    const py = async (args: Record<string, unknown>, steps: Record<string, unknown>[]) =>
      JSON.parse(
        (await run('python3', ['test/flight/flight_sql.py', JSON.stringify({ uri: flight.uri, ...args, steps })]))
          .stdout,
      ) as { results: { ok?: unknown; error?: { message: string } }[] };
    try {
      const [answered] = (await py({ user: 'reload-1', password: KEY }, [{ do: 'handshake' }])).results;
      const token = (answered!.ok as string).replace(/^Bearer /, '');
      expect(token).toMatch(/^fh1\./);
      expect((await py({ token }, [{ do: 'table_types' }])).results[0]!.ok).toEqual(['TOPIC', 'TABLE']);
      // The reload (SIGHUP) puts a new access state in force: the key is gone.
      const other = { principal: 'other-1', sha256: apiKeyHash('another-key-0000000000000000000000'), roles: ['r'] };
      writeFileSync(file, stringify({ ...withKey, auth: { apiKeys: [other] } }));
      app.accessHolder.swap(createAccess(loadConfig(env)));
      for (const t of [token, KEY]) {
        const [refused] = (await py({ token: t }, [{ do: 'table_types' }])).results;
        expect(refused!.error!.message).toMatch(/UNAUTHENTICATED/);
      }
    } finally {
      await flight.close(0);
      await app.close();
    }
  });

  it('a grant taken out: the topic leaves GetTables and its statement is NOT_FOUND, its probed schema cached or not', async () => {
    const KEY = 'flight-regrant-key-000000000000000000';
    const grants = (topics: string[]) => ({
      auth: { apiKeys: [{ principal: 'regrant-1', sha256: apiKeyHash(KEY), roles: ['r'] }] },
      access: [{ roles: ['r'], topics, actions: ['read'] }],
    });
    const { file, env, app, flight } = await reloadable('regrant', grants(['orders', 'clicks']));
    const steps = [
      { do: 'objects' },
      {
        do: 'query',
        sql: "SELECT key FROM orders WHERE timestamp_broker >= TIMESTAMP '2026-11-03 00:00:00 UTC' LIMIT 2",
      },
    ];
    const py = async () =>
      JSON.parse(
        (await run('python3', ['test/flight/flight_sql.py', JSON.stringify({ uri: flight.uri, token: KEY, steps })]))
          .stdout,
      ) as { results: { ok?: unknown; error?: { message: string } }[] };
    const tablesOf = (ok: unknown) => (ok as [string, string, string][]).map(([, , t]) => t).sort();
    try {
      const [before, read] = (await py()).results;
      expect(tablesOf(before!.ok)).toEqual(['clicks', 'orders']);
      expect((read!.ok as { rows: unknown[] }).rows).toHaveLength(2);
      // The reload puts the new grants in force; the statement's schema probed a moment ago is still cached.
      writeFileSync(file, stringify(grants(['clicks'])));
      app.accessHolder.swap(createAccess(loadConfig(env)));
      const [after, refused] = (await py()).results;
      expect(tablesOf(after!.ok)).toEqual(['clicks']);
      expect(refused!.error!.message).toMatch(/NOT_FOUND.*TG_TOPIC_NOT_FOUND/);
    } finally {
      await flight.close(0);
      await app.close();
    }
  });
});

describe('calls per minute', () => {
  it('limits.requestsPerMinute counts Flight calls too: past it, RESOURCE_EXHAUSTED with the code', async () => {
    const file = join(dir, 'rate.yaml');
    writeFileSync(file, stringify({ limits: { requestsPerMinute: 5 } }));
    const g = await start({ TOPICGATE_CONFIG: file });
    try {
      const steps = [...Array.from({ length: 5 }, () => ({ do: 'table_types' })), { do: 'raw', call: 'actions' }];
      const { stdout } = await run(
        'python3',
        ['test/flight/flight_sql.py', JSON.stringify({ uri: g.flight!.uri, steps })],
        {
          encoding: 'utf8',
        },
      );
      const results = (JSON.parse(stdout) as { results: { ok?: unknown; error?: { message: string } }[] }).results;
      // Each step is two calls (GetFlightInfo, DoGet), and ADBC asks GetSqlInfo when it connects: the first step
      // passes, the later ones are refused.
      expect(results[0]!.ok).toEqual(['TOPIC', 'TABLE']);
      // ADBC says the code (its own status words it INTERNAL); pyarrow.flight says gRPC's status.
      expect(results.at(-2)!.error!.message).toMatch(/TG_TOO_MANY_REQUESTS: more than 5 calls a minute/);
      expect(results.at(-1)!.error!.message).toMatch(/resource exhausted .*TG_TOO_MANY_REQUESTS/);
    } finally {
      await g.app.close();
    }
  });
});

/** The gateway's Trino user in the test of a stalled client: only its queries are counted. */
const USER = 'topicgate-flight-stall';

describe('a client that stops reading', () => {
  it('has its call cut after the write idle time, none of its Trino queries left running', async () => {
    const g = await start({
      TOPICGATE_SCHEMAS: 'bulk|kafka_topics',
      TOPICGATE_TRINO_ENCODING: 'none',
      TOPICGATE_MAX_LIMIT: '400400',
      TOPICGATE_WRITE_IDLE_TIMEOUT: '1s',
      TOPICGATE_TRINO_USER: USER,
    });
    const sql =
      "SELECT * FROM clicks WHERE timestamp_broker >= TIMESTAMP '2026-11-01 00:00:00' AND timestamp_broker < TIMESTAMP '2026-11-04 00:00:00' LIMIT 400000";
    const child = spawn(
      'python3',
      ['test/flight/flight_raw.py', JSON.stringify({ mode: 'hold', uri: g.flight!.uri, sql, cancel: 'call' })],
      {
        stdio: ['pipe', 'pipe', 'inherit'],
      },
    );
    try {
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      await expect.poll(() => out.includes('\n'), { timeout: 60_000, interval: 100 }).toBe(true);
      const { queryId } = JSON.parse(out.split('\n')[0]!) as { queryId: string };
      expect(queryId).toMatch(/^\d{8}_\d{6}_\d{5}_\w+$/);
      // The client holds the stream after its first batch: the gateway cuts the call, ending its queries.
      const cut = /topicgate_flight_calls_total\{method="DoGet",outcome="cancelled"\} 1/;
      await expect
        .poll(async () => (await fetch(`${g.url}/metrics`)).text(), { timeout: 30_000, interval: 200 })
        .toMatch(cut);
      const trino = new HttpTrino({ server: trinoUrl(), user: 'test' });
      const running = async () =>
        (
          await trino.all(
            `SELECT count(*) FROM system.runtime.queries WHERE "user" = '${USER}' AND state NOT IN ('FINISHED', 'FAILED')`,
          )
        ).rows[0]![0];
      await expect.poll(running, { timeout: 30_000, interval: 200 }).toBe(0);
      child.stdin.write('go on\n');
      await expect.poll(() => out.split('\n').filter(Boolean).length, { timeout: 30_000, interval: 100 }).toBe(2);
      const result = JSON.parse(out.split('\n')[1]!) as { outcome: string };
      expect(result.outcome).not.toBe('complete');
    } finally {
      child.kill();
      await g.app.close();
    }
  });
});
