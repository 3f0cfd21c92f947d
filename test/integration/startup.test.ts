/**
 * Start-up against the real Trino (the server process as `npm start` runs it, dist/server.js): bad settings stop
 * the process with exit code 1 and exactly one line on stderr naming the culprit, never a stack trace; good
 * settings listen and serve over real HTTP.
 */
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeStartupError, startServer } from '../../src/server.js';
import { ConfigError } from '../../src/config/config.js';
import { serverCommand, testApp, testConfig, trinoUrl } from '../helpers.js';

/** A process that has not exited by then has started listening: a failure of the test, not a hang. */
const RUN_LIMIT_MS = 45_000;

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs the server process with the given settings on top of a clean environment (no inherited TOPICGATE_*). */
function runServer(settings: Record<string, string>): Promise<Run> {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('TOPICGATE_')) env[k] = v;
  Object.assign(env, {
    TOPICGATE_TRINO_URL: trinoUrl(),
    TOPICGATE_STATE_URL: 'sqlite::memory:',
    TOPICGATE_PORT: '0',
    ...settings,
  });
  return new Promise((resolve, reject) => {
    const server = serverCommand();
    const child = spawn(server.command, server.args, { cwd: server.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), RUN_LIMIT_MS);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** The one-line contract every failed start keeps. */
function expectOneLineFailure(run: Run): string {
  expect(run.signal, `the server did not exit by itself; stdout: ${run.stdout}`).toBeNull();
  expect(run.code).toBe(1);
  // Exactly one line, newline-terminated, starting with the program's name.
  expect(run.stderr).toMatch(/^topicgate: [^\n]+\n$/);
  expect(run.stderr).not.toMatch(/^\s+at /m);
  expect(run.stderr).not.toMatch(/Error: |node:internal|\.ts:\d+/);
  return run.stderr.trimEnd();
}

let busy: Server;
let busyPort: number;
beforeAll(async () => {
  // A port surely taken, for the "address in use" case.
  busy = createServer();
  await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
  busyPort = (busy.address() as { port: number }).port;
});
afterAll(() => new Promise<void>((resolve) => busy.close(() => resolve())));

describe('the server process with bad settings', () => {
  // Settings and patterns are thunks: some name values known only once beforeAll has run.
  it.each<[string, () => Record<string, string>, () => RegExp[]]>([
    [
      'unreachable Trino',
      () => ({ TOPICGATE_TRINO_URL: 'http://127.0.0.1:1' }),
      () => [/^topicgate: .*TOPICGATE_TRINO_URL=http:\/\/127\.0\.0\.1:1\b/, /not reachable/],
    ],
    [
      'unknown catalog',
      () => ({ TOPICGATE_CATALOG: 'nope' }),
      () => [/^topicgate: .*TOPICGATE_CATALOG=nope\b/, /no such catalog/],
    ],
    [
      'catalog with a quote',
      () => ({ TOPICGATE_CATALOG: 'va"st' }),
      () => [/^topicgate: .*TOPICGATE_CATALOG=va"st\b/, /no such catalog/],
    ],
    [
      'missing schema',
      () => ({ TOPICGATE_SCHEMAS: 'missing|kafka_topics' }),
      () => [/^topicgate: .*TOPICGATE_SCHEMAS\b/, /"missing\|kafka_topics"/],
    ],
    [
      'one of two schemas missing',
      () => ({ TOPICGATE_SCHEMAS: 'demo|kafka_topics, missing|kafka_topics' }),
      () => [/^topicgate: .*TOPICGATE_SCHEMAS\b/, /"missing\|kafka_topics"/, /^(?!.*"demo\|kafka_topics")/],
    ],
    ['port abc', () => ({ TOPICGATE_PORT: 'abc' }), () => [/^topicgate: .*TOPICGATE_PORT="abc"/]],
    ['port 70000', () => ({ TOPICGATE_PORT: '70000' }), () => [/^topicgate: .*TOPICGATE_PORT="70000"/]],
    [
      'a missing config file',
      () => ({ TOPICGATE_CONFIG: '/nonexistent/topicgate.yaml' }),
      () => [/^topicgate: .*TOPICGATE_CONFIG=\/nonexistent\/topicgate\.yaml: cannot read \(ENOENT\)/],
    ],
    [
      'several bad settings at once',
      () => ({ TOPICGATE_PORT: 'abc', TOPICGATE_STATE_URL: 'mysql://x', TOPICGATE_TRINO_URL: 'nope' }),
      () => [/^topicgate: /, /TOPICGATE_PORT="abc"/, /TOPICGATE_STATE_URL="mysql:\/\/x"/, /TOPICGATE_TRINO_URL="nope"/],
    ],
    [
      'a port already in use',
      () => ({ TOPICGATE_PORT: String(busyPort) }),
      () => [/^topicgate: /, /EADDRINUSE/, new RegExp(`:${busyPort}\\b`)],
    ],
    [
      'a non-loopback address without an auth block',
      () => ({ TOPICGATE_HOST: '0.0.0.0' }),
      () => [
        /^topicgate: invalid settings: TOPICGATE_HOST=0\.0\.0\.0 is not a loopback address/,
        /TOPICGATE_CURSOR_SECRET must be set/,
      ],
    ],
    [
      'a Trino URL with a password',
      () => ({ TOPICGATE_TRINO_URL: 'http://gateway:s3cr3t-pw@127.0.0.1:1' }),
      // Refused outright (credentials go in their own settings), and the password is never repeated.
      () => [/must not carry credentials/, /^(?!.*s3cr3t-pw)/],
    ],
    [
      // Something answers, but it is not Trino's API: the line must say what it answered, not a JSON parse error.
      'a URL where Trino does not answer its API',
      () => ({ TOPICGATE_TRINO_URL: `${trinoUrl()}/not-trino` }),
      () => [/^topicgate: .*TOPICGATE_TRINO_URL=http:\/\/\S+\/not-trino: /, /HTTP 404/],
    ],
  ])('%s -> exit 1, one line naming it', async (_label, settings, patterns) => {
    const line = expectOneLineFailure(await runServer(settings()));
    for (const p of patterns()) expect(line).toMatch(p);
  });
});

describe('start-up refusals of access control', () => {
  /** A gateway with an auth block needs its own cursor secret. */
  const SECRET = { TOPICGATE_CURSOR_SECRET: 'startup-test-cursor-secret-0123456789abcdef' };
  const refusal = async (env: Record<string, string>) => {
    const err = await startServer(testConfig({ TOPICGATE_PORT: '0', TOPICGATE_LOG_LEVEL: 'silent', ...env })).then(
      async ({ app }) => {
        await app.close();
        return undefined;
      },
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).problems;
  };

  it('a row policy naming a column its topic lacks, or a topic not served', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'topicgate-startup-'));
    try {
      const file = join(dir, 'c.yaml');
      writeFileSync(
        file,
        [
          'auth:',
          `  apiKeys: [{ principal: p, sha256: "${'a'.repeat(64)}", roles: [a] }]`,
          'rowPolicies:',
          '  orders: [{ roles: [a], filter: "nope=eq.1" }]',
          '  ghost: [{ roles: [a], filter: "key=eq.x" }]',
          '',
        ].join('\n'),
      );
      expect(await refusal({ TOPICGATE_CONFIG: file, ...SECRET })).toEqual([
        `TOPICGATE_CONFIG=${file}: rowPolicies.orders[0].filter: orders has no column "nope"`,
        `TOPICGATE_CONFIG=${file}: rowPolicies.ghost: no such topic is served`,
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a topic's policy that does not fit its expansion table, or that table's own policies leaving a role out", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'topicgate-startup-'));
    const write = (name: string, policies: string[]) => {
      const file = join(dir, name);
      writeFileSync(
        file,
        [
          'topics: { orders: { expand: { country: { path: "$.customer.address.country", type: varchar } } } }',
          'auth:',
          `  apiKeys: [{ principal: p, sha256: "${'a'.repeat(64)}", roles: [a] }]`,
          'rowPolicies:',
          '  orders: [{ roles: [a], filter: "country=in.(DE,FR)" }, { roles: [b], filter: "key=eq.x" }]',
          ...policies,
          '',
        ].join('\n'),
      );
      return file;
    };
    try {
      const inherited = write('inherited.yaml', []);
      expect(await refusal({ TOPICGATE_CONFIG: inherited, ...SECRET })).toEqual([
        `TOPICGATE_CONFIG=${inherited}: rowPolicies.orders[0].filter applies to orders_expanded too (the same events): orders_expanded has no column "country"; give orders_expanded row policies of its own (rowPolicies.orders_expanded)`,
        `TOPICGATE_CONFIG=${inherited}: rowPolicies.orders[1].filter applies to orders_expanded too (the same events): orders_expanded has no column "key"; give orders_expanded row policies of its own (rowPolicies.orders_expanded)`,
      ]);
      const partial = write('partial.yaml', [
        '  default: allow',
        '  orders_expanded: [{ roles: [a], filter: "customer__address__country=in.(DE,FR)" }]',
      ]);
      expect(await refusal({ TOPICGATE_CONFIG: partial, ...SECRET })).toEqual([
        `TOPICGATE_CONFIG=${partial}: rowPolicies.orders_expanded: role b is restricted on orders (the same events) but has no policy here; give it one, or set rowPolicies.default: deny`,
      ]);
      const own = write('own.yaml', [
        '  orders_expanded: [{ roles: [a, b], filter: "customer__address__country=in.(DE,FR)" }]',
      ]);
      const { app } = await startServer(
        testConfig({ TOPICGATE_PORT: '0', TOPICGATE_LOG_LEVEL: 'silent', TOPICGATE_CONFIG: own, ...SECRET }),
      );
      await app.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('an auth block without a cursor secret of its own, even on loopback: the public key would seal any token', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'topicgate-startup-'));
    try {
      const file = join(dir, 'auth.yaml');
      writeFileSync(file, `auth:\n  apiKeys: [{ principal: p, sha256: "${'a'.repeat(64)}", roles: [a] }]\n`);
      expect(await refusal({ TOPICGATE_CONFIG: file })).toEqual([
        'TOPICGATE_CURSOR_SECRET must be set (at least 32 random bytes, the same on every instance) when the config has an auth block: the built-in development key is public',
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('anonymous on a non-loopback address only when allowed explicitly, and never with the development secret', async () => {
    expect(await refusal({ TOPICGATE_HOST: '0.0.0.0', TOPICGATE_ALLOW_ANONYMOUS: 'true' })).toEqual([
      'TOPICGATE_CURSOR_SECRET must be set (at least 32 random bytes, the same on every instance) when TOPICGATE_HOST=0.0.0.0 is not a loopback address: the built-in development key is public',
    ]);
  });
});

describe('startServer in-process', () => {
  it('listens on a free port and serves GET /v1/topics over real HTTP, then closes', async () => {
    const { app, url } = await startServer(testConfig({ TOPICGATE_PORT: '0', TOPICGATE_LOG_LEVEL: 'silent' }));
    let closed = false;
    try {
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(url).not.toMatch(/:0$/);

      const res = await fetch(`${url}/v1/topics`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      const body = (await res.json()) as { topics: { name: string; schema: string; kind: string }[] };
      expect(body.topics.find((t) => t.name === 'orders')).toMatchObject({
        schema: 'demo|kafka_topics',
        kind: 'topic',
      });
      expect(body.topics.find((t) => t.name === 'orders_expanded')).toMatchObject({ kind: 'table' });

      // Over the wire it is the same answer the app gives in-process.
      const inProcess = await testApp();
      try {
        expect(body).toEqual((await inProcess.inject('/v1/topics')).json());
      } finally {
        await inProcess.close();
      }

      const missing = await fetch(`${url}/v1/topics/nope`);
      expect(missing.status).toBe(404);
      expect(((await missing.json()) as { error: { code: string } }).error.code).toBe('TG_TOPIC_NOT_FOUND');

      await app.close();
      closed = true;
      await expect(fetch(`${url}/healthz`)).rejects.toThrow();
    } finally {
      if (!closed) await app.close();
    }
  });

  it.each<[string, Record<string, string>, string]>([
    ['unknown catalog', { TOPICGATE_CATALOG: 'nope' }, 'TOPICGATE_CATALOG=nope: Trino has no such catalog'],
    [
      'missing schema',
      { TOPICGATE_SCHEMAS: 'missing|kafka_topics' },
      'TOPICGATE_SCHEMAS: catalog vast has no schema "missing|kafka_topics"',
    ],
    [
      'unreachable Trino',
      { TOPICGATE_TRINO_URL: 'http://127.0.0.1:1' },
      'TOPICGATE_TRINO_URL=http://127.0.0.1:1: Trino is not reachable',
    ],
  ])('%s -> rejects with the one-line reason', async (_label, env, reason) => {
    const failure = await startServer(testConfig({ TOPICGATE_PORT: '0', TOPICGATE_LOG_LEVEL: 'silent', ...env })).then(
      async ({ app }) => {
        await app.close();
        return undefined;
      },
      (err: unknown) => err,
    );
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toContain(reason);
    expect(describeStartupError(failure)).toMatch(/^topicgate: cannot start: [^\n]+$/);
  });

  it('describeStartupError words a settings problem as such', () => {
    expect(
      describeStartupError(new ConfigError(['TOPICGATE_PORT="abc" must be an integer from 0 to 65535', 'B'])),
    ).toBe('topicgate: invalid settings: TOPICGATE_PORT="abc" must be an integer from 0 to 65535; B');
  });
});
