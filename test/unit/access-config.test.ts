/**
 * The access settings: the `auth`, `access`, `rowPolicies` and `limits` blocks of the config file as
 * API.md "Access" shows them, the new environment settings, the start-up refusals, and no password in a problem.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/config.js';
import { loadConfig } from '../../src/server/load-config.js';
import { redactUserinfo } from '../../src/config/read-settings.js';
import { DEV_CURSOR_SECRET } from '../../src/config/serving-settings.js';
import { createAccess } from '../../src/access/create-access.js';
import { devKeyWarning, startupProblems } from '../../src/access/startup-checks.js';
import { isLoopback } from '../../src/config/is-loopback.js';

const dir = mkdtempSync(join(tmpdir(), 'topicgate-access-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

function problemsOf(env: NodeJS.ProcessEnv): string[] {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).problems;
  }
  throw new Error(`loadConfig(${JSON.stringify(env)}) did not throw`);
}

const HASH = 'a'.repeat(64);

describe('the access blocks of the config file', () => {
  // API.md "Access", verbatim.
  const apiMd = `auth:
  apiKeys:                          # sent as \`Authorization: Bearer <key>\` or \`X-API-Key: <key>\`
    - principal: loader-orders
      sha256: "${HASH}"
      roles: [loader]
  jwt:                              # bearer tokens; one of jwksUrl, publicKeyFile, secretFile
    jwksUrl: "https://idp.example/.well-known/jwks.json"
    issuer: "https://idp.example/"
    audience: topicgate
    principalClaim: sub             # default sub
    rolesClaim: roles               # default roles
  public: [health, docs, metrics]   # routes that need no credentials; default [health]
access:                             # a caller may do what any of its roles grants
  - roles: [analyst]
    topics: ["orders*", "clicks"]   # glob patterns on topic names
    actions: [read, explain, infer] # read, explain, infer, cursors, admin
rowPolicies:
  orders:
    - roles: [analyst-eu]
      filter: "country=in.(DE,FR)"  # PostgREST grammar, may use {claims.<name>}; added to every read
limits:
  requestsPerMinute: 600            # per principal (per client address when anonymous)
  concurrentQueries: 4              # per principal
  maxConcurrentQueries: 32          # whole gateway
`;

  it('the API.md example is read as written', () => {
    const c = loadConfig({ TOPICGATE_CONFIG: file('api-md.yaml', apiMd) });
    expect(c.auth).toEqual({
      apiKeys: [{ principal: 'loader-orders', sha256: HASH, roles: ['loader'] }],
      jwt: {
        jwksUrl: 'https://idp.example/.well-known/jwks.json',
        issuer: 'https://idp.example/',
        audience: 'topicgate',
        principalClaim: 'sub',
        rolesClaim: 'roles',
      },
      public: ['health', 'docs', 'metrics'],
    });
    expect(c.access).toEqual([
      { roles: ['analyst'], topics: ['orders*', 'clicks'], actions: ['read', 'explain', 'infer'] },
    ]);
    expect(c.rowPolicies).toEqual({ orders: [{ roles: ['analyst-eu'], filter: 'country=in.(DE,FR)' }] });
    expect(c.limits).toEqual({
      requestsPerMinute: 600,
      concurrentQueries: 4,
      maxConcurrentQueries: 32,
      queuedQueries: 64,
      queueWaitMs: 30_000,
      maxSelectItems: 200,
      maxOrderItems: 20,
      maxGroupByItems: 20,
      maxDedupeColumns: 20,
      maxFilters: 200,
      maxInValues: 1000,
      maxJsonPaths: 32,
      maxSessionStreams: 64,
      maxFollowers: 4,
      maxBuckets: 100_000,
      mcpMaxRows: 200,
      mcpMaxBytes: 1_048_576,
    });
    expect(Object.isFrozen(c.auth?.apiKeys?.[0])).toBe(true);
    expect(createAccess(c).publicGroups).toEqual(new Set(['health', 'docs', 'metrics']));
  });

  it('without the blocks: no auth, no rules, no policies; only the gateway-wide query cap; public is [health]', () => {
    const c = loadConfig({});
    expect([c.auth, c.access, c.rowPolicies]).toEqual([undefined, undefined, {}]);
    expect(c.limits).toEqual({
      maxConcurrentQueries: 32,
      queuedQueries: 64,
      queueWaitMs: 30_000,
      maxSelectItems: 200,
      maxOrderItems: 20,
      maxGroupByItems: 20,
      maxDedupeColumns: 20,
      maxFilters: 200,
      maxInValues: 1000,
      maxJsonPaths: 32,
      maxSessionStreams: 64,
      maxFollowers: 4,
      maxBuckets: 100_000,
      mcpMaxRows: 200,
      mcpMaxBytes: 1_048_576,
    });
    expect(c.limits.requestsPerMinute).toBeUndefined();
    expect(c.limits.concurrentQueries).toBeUndefined();
    const withAuth = loadConfig({
      TOPICGATE_CONFIG: file('auth-only.yaml', `auth:\n  apiKeys: [{ principal: p, sha256: "${HASH}" }]\n`),
    });
    expect(createAccess(withAuth).publicGroups).toEqual(new Set(['health']));
  });

  it.each<[string, string, RegExp]>([
    ['an unknown auth key', 'auth:\n  apiKey: []\n', /: \/auth\/apiKey .*propert/],
    [
      'a sha256 that is not 64 hex digits',
      `auth:\n  apiKeys: [{ principal: p, sha256: "abc" }]\n`,
      /: \/auth\/apiKeys\/0\/sha256 /,
    ],
    [
      'an unknown route group',
      `auth:\n  apiKeys: [{ principal: p, sha256: "${HASH}" }]\n  public: [events]\n`,
      /: \/auth\/public\/0 /,
    ],
    [
      'an unknown action',
      'access:\n  - { roles: [a], topics: ["*"], actions: [write] }\n',
      /: \/access\/0\/actions\/0 /,
    ],
    ['a rule without roles', 'access:\n  - { roles: [], topics: ["*"], actions: [read] }\n', /: \/access\/0\/roles /],
    ['a policy without a filter', 'rowPolicies:\n  orders: [{ roles: [a] }]\n', /: \/rowPolicies\/orders\/0\/filter /],
    ['a zero limit', 'limits:\n  concurrentQueries: 0\n', /: \/limits\/concurrentQueries /],
    ['an unknown limit', 'limits:\n  perSecond: 1\n', /: \/limits\/perSecond /],
    ['a cap above its ceiling', 'limits:\n  maxSelectItems: 1001\n', /: \/limits\/maxSelectItems /],
    ['auth with neither keys nor jwt', 'auth:\n  public: [health]\n', /: auth: name apiKeys or jwt/],
    [
      'two keys with one hash',
      `auth:\n  apiKeys: [{ principal: a, sha256: "${HASH}" }, { principal: b, sha256: "${HASH.toUpperCase()}" }]\n`,
      /: auth\.apiKeys\[1\]: the same sha256 is configured twice$/,
    ],
    [
      'jwt with two key sources',
      'auth:\n  jwt: { jwksUrl: "https://x/", secretFile: s, issuer: i, audience: a }\n',
      /auth\.jwt: name exactly one of/,
    ],
    ['jwt without a key source', 'auth:\n  jwt: { issuer: i, audience: a }\n', /auth\.jwt: name exactly one of/],
    ['jwt without an issuer', 'auth:\n  jwt: { jwksUrl: "https://x/", audience: a }\n', /: \/auth\/jwt\/issuer /],
    [
      'a JWKS over plain http',
      'auth:\n  jwt: { jwksUrl: "http://idp.example/jwks", issuer: i, audience: a }\n',
      /auth\.jwt\.jwksUrl: must be an https/,
    ],
    [
      'a clock tolerance of an hour',
      'auth:\n  jwt: { jwksUrl: "https://x/", issuer: i, audience: a, clockToleranceSeconds: 3600 }\n',
      /\/auth\/jwt\/clockToleranceSeconds /,
    ],
    [
      'a policy filter that does not parse',
      'rowPolicies:\n  orders: [{ roles: [a], filter: "country=in.DE" }]\n',
      /: rowPolicies\.orders\[0\]\.filter: country: in takes a list in parentheses, like in\.\(a,b,"c,d"\)$/,
    ],
    [
      'access rules without an auth block (no caller would have a role)',
      'access:\n  - { roles: [a], topics: ["*"], actions: [read] }\n',
      /: access: needs an auth block/,
    ],
    [
      'row policies without an auth block (no policy would apply)',
      'rowPolicies:\n  orders: [{ roles: [a], filter: "tenant=eq.x" }]\n',
      /: rowPolicies: need an auth block/,
    ],
    [
      'a claim inside a pattern',
      'rowPolicies:\n  orders: [{ roles: [a], filter: "tenant=like.{claims.t}" }]\n',
      /rowPolicies\.orders\[0\]\.filter: .*not like$/,
    ],
  ])('%s is named', (_label, text, problem) => {
    const path = file('bad.yaml', text);
    const problems = problemsOf({ TOPICGATE_CONFIG: path });
    expect(problems.length).toBeGreaterThan(0);
    expect(
      problems.some((p) => p.startsWith(`TOPICGATE_CONFIG=${path}: `) && problem.test(p)),
      problems.join('\n'),
    ).toBe(true);
  });

  it('a JWKS on a loopback address may be plain http (tests, a sidecar)', () => {
    const c = loadConfig({
      TOPICGATE_CONFIG: file(
        'loop.yaml',
        'auth:\n  jwt: { jwksUrl: "http://127.0.0.1:8080/jwks", issuer: i, audience: [a, b] }\n',
      ),
    });
    expect(c.auth?.jwt?.audience).toEqual(['a', 'b']);
    const bare = 'auth:\n  jwt: { jwksUrl: "http://localhost:8080", issuer: i, audience: a }\n';
    expect(loadConfig({ TOPICGATE_CONFIG: file('bare.yaml', bare) }).auth?.jwt?.jwksUrl).toBe('http://localhost:8080');
  });
});

describe('the access settings of the environment', () => {
  it('defaults', () => {
    expect(loadConfig({})).toMatchObject({
      allowAnonymous: false,
      corsOrigins: [],
      allowedHosts: [],
      requestTimeoutMs: 30_000,
      connectionTimeoutMs: 600_000,
      keepAliveTimeoutMs: 72_000,
      writeIdleTimeoutMs: 60_000,
    });
  });

  it.each<[string, string, string, unknown]>([
    ['TOPICGATE_ALLOW_ANONYMOUS', 'true', 'allowAnonymous', true],
    [
      'TOPICGATE_CORS_ORIGINS',
      'https://app.example, http://127.0.0.1:5173/',
      'corsOrigins',
      ['https://app.example', 'http://127.0.0.1:5173'],
    ],
    [
      'TOPICGATE_ALLOWED_HOSTS',
      'API.example.com,api.example.com:8443,[::1]:3000',
      'allowedHosts',
      ['api.example.com', 'api.example.com:8443', '[::1]:3000'],
    ],
    ['TOPICGATE_REQUEST_TIMEOUT', '5s', 'requestTimeoutMs', 5000],
    ['TOPICGATE_CONNECTION_TIMEOUT', '1h', 'connectionTimeoutMs', 3_600_000],
    ['TOPICGATE_KEEP_ALIVE_TIMEOUT', '5s', 'keepAliveTimeoutMs', 5000],
    ['TOPICGATE_WRITE_IDLE_TIMEOUT', '500ms', 'writeIdleTimeoutMs', 500],
  ])('%s=%j -> %s', (name, value, key, expected) => {
    expect((loadConfig({ [name]: value }) as unknown as Record<string, unknown>)[key]).toEqual(expected);
  });

  it.each<[string, string, RegExp]>([
    ['TOPICGATE_ALLOW_ANONYMOUS', 'yes', /^TOPICGATE_ALLOW_ANONYMOUS="yes" must be true or false$/],
    ['TOPICGATE_CORS_ORIGINS', '*', /^TOPICGATE_CORS_ORIGINS="\*" must be comma-separated origins/],
    ['TOPICGATE_CORS_ORIGINS', 'https://app.example/path', /^TOPICGATE_CORS_ORIGINS=/],
    ['TOPICGATE_ALLOWED_HOSTS', 'a b', /^TOPICGATE_ALLOWED_HOSTS="a b" must be comma-separated host names/],
    ['TOPICGATE_ALLOWED_HOSTS', 'http://x', /^TOPICGATE_ALLOWED_HOSTS=/],
    ['TOPICGATE_REQUEST_TIMEOUT', '30', /^TOPICGATE_REQUEST_TIMEOUT="30" must be a duration/],
    ['TOPICGATE_WRITE_IDLE_TIMEOUT', '0s', /^TOPICGATE_WRITE_IDLE_TIMEOUT="0s" /],
  ])('%s=%j is named', (name, value, problem) => {
    const problems = problemsOf({ [name]: value });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(problem);
  });
});

describe('no password in a problem', () => {
  it.each([
    ['TOPICGATE_TRINO_URL', 'ftp://admin:s3cr3t-pw@trino.example:8443'],
    ['TOPICGATE_TRINO_URL', 'admin:s3cr3t-pw@trino.example'],
    ['TOPICGATE_TRINO_URL', 'https://admin:s3cr3t-pw@tri no'],
    ['TOPICGATE_STATE_URL', 'mysql://tg:s3cr3t-pw@db/tg'],
  ])('%s=%j', (name, value) => {
    const problems = problemsOf({ [name]: value });
    expect(problems).toHaveLength(1);
    expect(problems[0]).not.toContain('s3cr3t-pw');
    expect(problems[0]).toContain('admin:***@'.replace('admin', value.includes('tg:') ? 'tg' : 'admin'));
  });

  it.each<[string, string]>([
    ['https://u:p@h:1/x', 'https://u:***@h:1/x'],
    ['https://u:p:q@r@h/x@y', 'https://u:***@h/x@y'],
    ['https://token@h/', 'https://***@h/'],
    ['https://h/a@b', 'https://h/a@b'],
    ['u:p@h', 'u:***@h'],
    ['http://h:8080', 'http://h:8080'],
    ['not a url', 'not a url'],
  ])('redactUserinfo(%j) = %j', (url, shown) => {
    expect(redactUserinfo(url)).toBe(shown);
  });
});

describe('start-up refusals (startupProblems)', () => {
  const STRONG = 'x'.repeat(32);
  const AUTH = { apiKeys: [{ principal: 'p', sha256: HASH }] };

  it.each<[string, boolean]>([
    ['127.0.0.1', true],
    ['127.1.2.3', true],
    ['localhost', true],
    ['::1', true],
    ['[::1]', true],
    ['::ffff:127.0.0.1', true],
    ['0.0.0.0', false],
    ['::', false],
    ['10.0.0.5', false],
    ['gateway.internal', false],
    ['128.0.0.1', false],
  ])('isLoopback(%j) = %s', (host, loopback) => {
    expect(isLoopback(host)).toBe(loopback);
  });

  it.each<[string, Parameters<typeof startupProblems>[0], string[]]>([
    [
      'the demo: loopback, no auth, the development secret',
      { host: '127.0.0.1', auth: undefined, allowAnonymous: false, cursorSecret: DEV_CURSOR_SECRET },
      [],
    ],
    [
      'loopback with a short configured secret',
      { host: '127.0.0.1', auth: undefined, allowAnonymous: false, cursorSecret: 'short' },
      ['TOPICGATE_CURSOR_SECRET must be at least 32 bytes (it has 5)'],
    ],
    [
      'exposed with auth and a strong secret',
      { host: '0.0.0.0', auth: AUTH, allowAnonymous: false, cursorSecret: STRONG },
      [],
    ],
    [
      'exposed, anonymous allowed explicitly',
      { host: '0.0.0.0', auth: undefined, allowAnonymous: true, cursorSecret: STRONG },
      [],
    ],
    [
      'exposed without auth',
      { host: '0.0.0.0', auth: undefined, allowAnonymous: false, cursorSecret: STRONG },
      [
        'TOPICGATE_HOST=0.0.0.0 is not a loopback address and the config has no auth block: add one to TOPICGATE_CONFIG, or set TOPICGATE_ALLOW_ANONYMOUS=true to let anyone who can reach it read every topic',
      ],
    ],
    [
      'exposed with the development secret (even with auth)',
      { host: '10.0.0.5', auth: AUTH, allowAnonymous: false, cursorSecret: DEV_CURSOR_SECRET },
      [
        'TOPICGATE_CURSOR_SECRET must be set (at least 32 random bytes, the same on every instance) when the config has an auth block: the built-in development key is public',
      ],
    ],
    [
      // Anyone reaching the port could seal a presigned stream carrying any roles and claims with the public key.
      'loopback with auth and the development secret',
      { host: '127.0.0.1', auth: AUTH, allowAnonymous: false, cursorSecret: DEV_CURSOR_SECRET },
      [
        'TOPICGATE_CURSOR_SECRET must be set (at least 32 random bytes, the same on every instance) when the config has an auth block: the built-in development key is public',
      ],
    ],
    [
      'loopback with an empty auth block and the development secret',
      { host: 'localhost', auth: {}, allowAnonymous: false, cursorSecret: DEV_CURSOR_SECRET },
      [
        'TOPICGATE_CURSOR_SECRET must be set (at least 32 random bytes, the same on every instance) when the config has an auth block: the built-in development key is public',
      ],
    ],
    [
      'loopback with auth and a strong secret',
      { host: '127.0.0.1', auth: AUTH, allowAnonymous: false, cursorSecret: STRONG },
      [],
    ],
    [
      'exposed, anonymous allowed, development secret',
      { host: '::', auth: undefined, allowAnonymous: true, cursorSecret: DEV_CURSOR_SECRET },
      [
        'TOPICGATE_CURSOR_SECRET must be set (at least 32 random bytes, the same on every instance) when TOPICGATE_HOST=:: is not a loopback address: the built-in development key is public',
      ],
    ],
    [
      'everything wrong at once',
      { host: 'gw', auth: undefined, allowAnonymous: false, cursorSecret: 'pw' },
      [
        'TOPICGATE_HOST=gw is not a loopback address and the config has no auth block: add one to TOPICGATE_CONFIG, or set TOPICGATE_ALLOW_ANONYMOUS=true to let anyone who can reach it read every topic',
        'TOPICGATE_CURSOR_SECRET must be at least 32 bytes (it has 2)',
      ],
    ],
    [
      '32 bytes of multi-byte text count as bytes',
      { host: '127.0.0.1', auth: undefined, allowAnonymous: false, cursorSecret: 'é'.repeat(16) },
      [],
    ],
  ])('%s', (_label, config, problems) => {
    expect(startupProblems(config)).toEqual(problems);
    for (const p of startupProblems(config)) expect(p).not.toContain(config.cursorSecret);
  });

  it('warns that the development key is in use, and only then', () => {
    expect(devKeyWarning({ cursorSecret: DEV_CURSOR_SECRET })).toMatch(
      /^TOPICGATE_CURSOR_SECRET is not set: .*development key/,
    );
    expect(devKeyWarning({ cursorSecret: STRONG })).toBeNull();
  });
});

describe('impersonation and API key principals', () => {
  it("an API key named like the gateway's own Trino user is refused at start-up when impersonating", () => {
    const f = file('imp.yaml', `auth:\n  apiKeys:\n    - { principal: topicgate, sha256: "${HASH}" }\n`);
    const problems = problemsOf({ TOPICGATE_CONFIG: f, TOPICGATE_TRINO_IMPERSONATE: 'true' });
    expect(problems).toEqual([
      `TOPICGATE_CONFIG=${f}: auth.apiKeys[0].principal: "topicgate" is the gateway's own Trino user (TOPICGATE_TRINO_USER); under TOPICGATE_TRINO_IMPERSONATE it would run with the gateway's rights`,
    ]);
    expect(loadConfig({ TOPICGATE_CONFIG: f }).auth?.apiKeys?.[0]?.principal).toBe('topicgate');
  });
});
