/**
 * Settings (API.md "Settings"): one schema, validated once, frozen; every bad setting is named in
 * ConfigError.problems, all of them at once.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, type Config } from '../../src/config/config.js';
import { loadConfig } from '../../src/server/load-config.js';
import { SettingsSchema } from '../../src/config/settings.js';

const dir = mkdtempSync(join(tmpdir(), 'topicgate-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Writes a config file into the test's temporary folder and returns its path. */
function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/** A literal string as a RegExp source. */
function esc(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The problems loadConfig reports for env; fails the test if it does not throw a ConfigError. */
function problemsOf(env: NodeJS.ProcessEnv): string[] {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    const problems = (err as ConfigError).problems;
    expect((err as ConfigError).message).toBe(`invalid settings: ${problems.join('; ')}`);
    return problems;
  }
  throw new Error(`loadConfig(${JSON.stringify(env)}) did not throw`);
}

describe('defaults', () => {
  it('an empty environment gives the documented defaults', () => {
    expect(loadConfig({})).toMatchObject({
      trinoUrl: 'http://127.0.0.1:18080',
      trinoUser: 'topicgate',
      catalog: 'vast',
      schemas: ['demo|kafka_topics'],
      host: '127.0.0.1',
      port: 3000,
      stateUrl: 'sqlite:./data/topicgate.db',
      configFile: undefined,
      topics: {},
      defaultLimit: 100,
      maxLimit: 10_000,
      queryTimeoutMs: 120_000,
      logLevel: 'info',
    } satisfies Partial<Config>);
  });

  it('reads nothing from process.env when an env is given', () => {
    const saved = process.env.TOPICGATE_PORT;
    process.env.TOPICGATE_PORT = '4444';
    try {
      expect(loadConfig({}).port).toBe(3000);
    } finally {
      if (saved === undefined) delete process.env.TOPICGATE_PORT;
      else process.env.TOPICGATE_PORT = saved;
    }
  });
});

describe('each setting is read', () => {
  it.each<[string, string, keyof Config, unknown]>([
    ['TOPICGATE_TRINO_URL', 'https://trino.example:8443', 'trinoUrl', 'https://trino.example:8443'],
    ['TOPICGATE_TRINO_URL', 'http://h:8080///', 'trinoUrl', 'http://h:8080'],
    ['TOPICGATE_TRINO_USER', 'alice', 'trinoUser', 'alice'],
    ['TOPICGATE_CATALOG', ' kafka ', 'catalog', 'kafka'],
    ['TOPICGATE_SCHEMAS', 'kafka-broker|kafka_topics', 'schemas', ['kafka-broker|kafka_topics']],
    ['TOPICGATE_SCHEMAS', ' a|b , c ,, d ', 'schemas', ['a|b', 'c', 'd']],
    ['TOPICGATE_SCHEMAS', 'x,', 'schemas', ['x']],
    ['TOPICGATE_HOST', '0.0.0.0', 'host', '0.0.0.0'],
    ['TOPICGATE_HOST', '', 'host', '127.0.0.1'],
    ['TOPICGATE_PORT', '0', 'port', 0],
    ['TOPICGATE_PORT', '65535', 'port', 65535],
    ['TOPICGATE_PORT', ' 8080 ', 'port', 8080],
    ['TOPICGATE_PORT', '', 'port', 3000],
    ['TOPICGATE_STATE_URL', 'sqlite::memory:', 'stateUrl', 'sqlite::memory:'],
    ['TOPICGATE_STATE_URL', 'postgres://u:p@db:5432/tg', 'stateUrl', 'postgres://u:p@db:5432/tg'],
    ['TOPICGATE_STATE_URL', 'postgresql://db/tg', 'stateUrl', 'postgresql://db/tg'],
    ['TOPICGATE_MAX_LIMIT', '500', 'maxLimit', 500],
    ['TOPICGATE_DEFAULT_LIMIT', '25', 'defaultLimit', 25],
    ['TOPICGATE_QUERY_TIMEOUT_MS', '1000', 'queryTimeoutMs', 1000],
    ['TOPICGATE_LOG_LEVEL', 'silent', 'logLevel', 'silent'],
    ['TOPICGATE_CURSOR_PREVIOUS_SECRETS', ' old-1 , old-2 ,', 'cursorPreviousSecrets', ['old-1', 'old-2']],
    ['TOPICGATE_CURSOR_PREVIOUS_SECRETS', '', 'cursorPreviousSecrets', []],
  ])('%s=%j -> %s %j', (name, value, key, expected) => {
    expect(loadConfig({ [name]: value })[key]).toEqual(expected);
  });

  it('the default limit never exceeds the max limit', () => {
    expect(loadConfig({ TOPICGATE_MAX_LIMIT: '50' })).toMatchObject({ maxLimit: 50, defaultLimit: 50 });
  });
  it('tracing is off unless TOPICGATE_TRACING_URL names an endpoint', () => {
    expect(loadConfig({}).tracingUrl).toBe('');
    expect(loadConfig({ TOPICGATE_TRACING_URL: 'http://127.0.0.1:4318/v1/traces' }).tracingUrl).toBe(
      'http://127.0.0.1:4318/v1/traces',
    );
  });
});

describe('each bad setting is named', () => {
  const missing = join(dir, 'does-not-exist.yaml');
  const badYaml = file('bad.yaml', 'topics: [\n  a: : b\n');
  const badJson = file('bad.json', '{"topics": ');
  const duplicateKeys = file('dup.yaml', 'topics: {}\ntopics: {}\n');
  const unknownTop = file('unknown-top.yaml', 'topicz: {}\n');
  const unknownTopic = file('unknown-topic.yaml', 'topics:\n  orders:\n    bogusKey: 1\n');
  const unknownField = file(
    'unknown-field.yaml',
    'topics:\n  orders:\n    expand:\n      a: { path: "$.a", type: bigint, extra: 1 }\n',
  );
  const unknownJson = file('unknown.json', '{"topics": {"orders": {"expand": {}, "bogusKey": true}}}');
  const badTypes = file('bad-types.yaml', 'topics:\n  orders:\n    maxLimit: 0\n');
  const notObject = file('list.yaml', '- a\n- b\n');
  const noType = file('no-type.yaml', 'topics:\n  orders:\n    expand:\n      a: { path: "$.a" }\n');
  const emptyTopicName = file('empty-topic.yaml', 'topics:\n  "": {}\n');

  it.each<[string, NodeJS.ProcessEnv, RegExp]>([
    ['bad URL', { TOPICGATE_TRINO_URL: 'not a url' }, /^TOPICGATE_TRINO_URL="not a url" must be an http\(s\) URL$/],
    ['non-http URL', { TOPICGATE_TRINO_URL: 'ftp://x' }, /^TOPICGATE_TRINO_URL="ftp:\/\/x" /],
    ['empty URL', { TOPICGATE_TRINO_URL: '' }, /^TOPICGATE_TRINO_URL="" /],
    [
      'bad tracing URL',
      { TOPICGATE_TRACING_URL: 'collector:4318' },
      /^TOPICGATE_TRACING_URL="collector:4318" must be an http\(s\) URL$/,
    ],
    ['port abc', { TOPICGATE_PORT: 'abc' }, /^TOPICGATE_PORT="abc" must be an integer from 0 to 65535$/],
    ['port 70000', { TOPICGATE_PORT: '70000' }, /^TOPICGATE_PORT="70000" must be an integer from 0 to 65535$/],
    ['port 65536', { TOPICGATE_PORT: '65536' }, /^TOPICGATE_PORT="65536" /],
    ['port -1', { TOPICGATE_PORT: '-1' }, /^TOPICGATE_PORT="-1" /],
    ['port 1.5', { TOPICGATE_PORT: '1.5' }, /^TOPICGATE_PORT="1.5" /],
    ['port 1e3', { TOPICGATE_PORT: '1e3' }, /^TOPICGATE_PORT="1e3" /],
    ['port 0x50', { TOPICGATE_PORT: '0x50' }, /^TOPICGATE_PORT="0x50" /],
    ['port blank', { TOPICGATE_PORT: ' ' }, /^TOPICGATE_PORT=" " /],
    [
      'state URL mysql',
      { TOPICGATE_STATE_URL: 'mysql://x' },
      /^TOPICGATE_STATE_URL="mysql:\/\/x" must be sqlite:<file> or postgres:\/\/\.\.\.$/,
    ],
    ['state URL sqlite without a file', { TOPICGATE_STATE_URL: 'sqlite:' }, /^TOPICGATE_STATE_URL="sqlite:" /],
    ['state URL empty', { TOPICGATE_STATE_URL: '' }, /^TOPICGATE_STATE_URL="" /],
    ['no schema', { TOPICGATE_SCHEMAS: ' , ' }, /^TOPICGATE_SCHEMAS must name at least one schema$/],
    ['empty catalog', { TOPICGATE_CATALOG: '  ' }, /^TOPICGATE_CATALOG must not be empty$/],
    ['max limit 0', { TOPICGATE_MAX_LIMIT: '0' }, /^TOPICGATE_MAX_LIMIT="0" /],
    ['default limit x', { TOPICGATE_DEFAULT_LIMIT: 'x' }, /^TOPICGATE_DEFAULT_LIMIT="x" /],
    ['timeout below 1s', { TOPICGATE_QUERY_TIMEOUT_MS: '5' }, /^TOPICGATE_QUERY_TIMEOUT_MS="5" /],
    [
      'missing config file',
      { TOPICGATE_CONFIG: missing },
      new RegExp(`^TOPICGATE_CONFIG=${esc(missing)}: cannot read \\(ENOENT\\)$`),
    ],
    [
      'a folder as config file',
      { TOPICGATE_CONFIG: dir },
      new RegExp(`^TOPICGATE_CONFIG=${esc(dir)}: cannot read \\(EISDIR\\)$`),
    ],
    [
      'invalid YAML',
      { TOPICGATE_CONFIG: badYaml },
      new RegExp(`^TOPICGATE_CONFIG=${esc(badYaml)}: not valid YAML \\(.+\\)$`),
    ],
    [
      'duplicate YAML keys',
      { TOPICGATE_CONFIG: duplicateKeys },
      new RegExp(`^TOPICGATE_CONFIG=${esc(duplicateKeys)}: not valid YAML \\(.+\\)$`),
    ],
    [
      'invalid JSON',
      { TOPICGATE_CONFIG: badJson },
      new RegExp(`^TOPICGATE_CONFIG=${esc(badJson)}: not valid JSON \\(.+\\)$`),
    ],
    [
      'unknown top-level key',
      { TOPICGATE_CONFIG: unknownTop },
      new RegExp(`^TOPICGATE_CONFIG=${esc(unknownTop)}: /topicz .*property`),
    ],
    [
      'unknown topic key',
      { TOPICGATE_CONFIG: unknownTopic },
      new RegExp(`^TOPICGATE_CONFIG=${esc(unknownTopic)}: /topics/orders/bogusKey `),
    ],
    [
      'unknown expand key',
      { TOPICGATE_CONFIG: unknownField },
      new RegExp(`^TOPICGATE_CONFIG=${esc(unknownField)}: /topics/orders/expand/a/extra `),
    ],
    [
      'unknown key in JSON',
      { TOPICGATE_CONFIG: unknownJson },
      new RegExp(`^TOPICGATE_CONFIG=${esc(unknownJson)}: /topics/orders/bogusKey `),
    ],
    [
      'maxLimit 0 in the file',
      { TOPICGATE_CONFIG: badTypes },
      new RegExp(`^TOPICGATE_CONFIG=${esc(badTypes)}: /topics/orders/maxLimit `),
    ],
    [
      'a list instead of an object',
      { TOPICGATE_CONFIG: notObject },
      new RegExp(`^TOPICGATE_CONFIG=${esc(notObject)}: / Expected object$`),
    ],
    // The schema says topic names have minLength 1; a topic named "" can never be served.
    [
      'an empty topic name',
      { TOPICGATE_CONFIG: emptyTopicName },
      new RegExp(`^TOPICGATE_CONFIG=${esc(emptyTopicName)}: /topics`),
    ],
  ])('%s', (_label, env, problem) => {
    const problems = problemsOf(env);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(problem);
  });

  it('an expand field without a type is named (by its path)', () => {
    const problems = problemsOf({ TOPICGATE_CONFIG: noType });
    expect(problems.length).toBeGreaterThan(0);
    for (const p of problems)
      expect(p).toMatch(new RegExp(`^TOPICGATE_CONFIG=${esc(noType)}: /topics/orders/expand/a/type `));
  });

  it('several bad settings at once -> every one named, in one error', () => {
    const problems = problemsOf({
      TOPICGATE_TRINO_URL: 'not a url',
      TOPICGATE_PORT: 'abc',
      TOPICGATE_STATE_URL: 'mysql://x',
      TOPICGATE_SCHEMAS: ',',
      TOPICGATE_CONFIG: missing,
      TOPICGATE_QUERY_TIMEOUT_MS: '0',
    });
    const named = problems.map((p) => /^TOPICGATE_[A-Z_]+/.exec(p)?.[0]).sort();
    expect(named).toEqual([
      'TOPICGATE_CONFIG',
      'TOPICGATE_PORT',
      'TOPICGATE_QUERY_TIMEOUT_MS',
      'TOPICGATE_SCHEMAS',
      'TOPICGATE_STATE_URL',
      'TOPICGATE_TRINO_URL',
    ]);
  });

  it('good settings are not named beside bad ones', () => {
    const problems = problemsOf({
      TOPICGATE_PORT: '70000',
      TOPICGATE_CATALOG: 'vast',
      TOPICGATE_TRINO_URL: 'http://h:1',
    });
    expect(problems).toEqual(['TOPICGATE_PORT="70000" must be an integer from 0 to 65535']);
  });
});

describe('the result is frozen', () => {
  const yaml = file(
    'frozen.yaml',
    'topics:\n  orders:\n    expand:\n      order_id: { path: "$.order_id", type: bigint }\n',
  );

  it.each<[string, (c: Config) => void]>([
    ['a top-level field', (c) => ((c as { port: number }).port = 1)],
    ['a new field', (c) => ((c as unknown as Record<string, unknown>).extra = 1)],
    ['the schemas list', (c) => (c.schemas as string[]).push('x')],
    ['a schema in the list', (c) => ((c.schemas as string[])[0] = 'x')],
    ['the topics map', (c) => ((c.topics as Record<string, unknown>).other = {})],
    ['a topic setting', (c) => ((c.topics.orders as { maxLimit?: number }).maxLimit = 5)],
    ['an expand field', (c) => ((c.topics.orders!.expand!.order_id as { path: string }).path = '$.x')],
  ])('assigning %s throws (ES modules are strict)', (_label, mutate) => {
    const config = loadConfig({ TOPICGATE_CONFIG: yaml });
    expect(() => mutate(config)).toThrow(TypeError);
    expect(config.port).toBe(3000);
    expect(config.schemas).toEqual(['demo|kafka_topics']);
    expect(config.topics).toEqual({ orders: { expand: { order_id: { path: '$.order_id', type: 'bigint' } } } });
  });
});

describe('config files', () => {
  // The example from API.md "Blob expansion".
  const expected = {
    orders: {
      expand: {
        order_id: { path: '$.order_id', type: 'bigint' },
        status: { path: '$.status', type: 'varchar' },
        amount: { path: '$.amount', type: 'decimal(12,2)' },
        country: { path: '$.customer.address.country', type: 'varchar' },
        created: { path: '$.created_at', type: 'timestamp(3)' },
      },
      expansionTable: 'orders_expanded',
    },
    clicks: { allowFullScan: true, maxLimit: 500 },
  };
  const yamlText = `# per-topic settings
topics:
  orders:
    expand:
      order_id: { path: "$.order_id", type: bigint }
      status:   { path: "$.status", type: varchar }
      amount:   { path: "$.amount", type: "decimal(12,2)" }
      country:  { path: "$.customer.address.country", type: varchar }
      created:  { path: "$.created_at", type: "timestamp(3)" }
    expansionTable: orders_expanded   # optional
  clicks:
    allowFullScan: true
    maxLimit: 500
`;

  it.each([
    ['YAML (.yaml)', 'topics.yaml', yamlText],
    ['YAML (.yml)', 'topics.yml', yamlText],
    ['JSON', 'topics.json', JSON.stringify({ topics: expected }, null, 2)],
  ])('%s with a topics.expand block', (_label, name, text) => {
    const path = file(name, text);
    const config = loadConfig({ TOPICGATE_CONFIG: path });
    expect(config.configFile).toBe(path);
    expect(config.topics).toEqual(expected);
  });

  it.each([
    ['an empty file', 'empty.yaml', ''],
    ['only comments', 'comments.yaml', '# nothing yet\n'],
    ['no topics key', 'bare.json', '{}'],
  ])('%s -> no topic settings', (_label, name, text) => {
    expect(loadConfig({ TOPICGATE_CONFIG: file(name, text) }).topics).toEqual({});
  });
});

describe('the settings schema is the one source', () => {
  it('every setting it declares is documented on the configuration page', () => {
    const page = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');
    const envs = Object.values(SettingsSchema.properties).map((s) => (s as unknown as { env: string }).env);
    expect(envs.length).toBeGreaterThan(15);
    for (const env of envs) expect(page, env).toContain(`\`${env}\``);
  });
});

describe('the Trino connection settings', () => {
  const secret = file('trino-password', 's3cret\n');
  const token = file('trino-token', 'eyJ.token\n');
  const ca = file('ca.pem', '-----BEGIN CERTIFICATE-----\n');
  const https = { TOPICGATE_TRINO_URL: 'https://trino.example:8443' };

  it('default: no CA, no credentials, no impersonation; shutdown grace and store timeout', () => {
    expect(loadConfig({})).toMatchObject({
      trinoCaFile: '',
      trinoPassword: '',
      trinoPasswordFile: '',
      trinoTokenFile: '',
      trinoImpersonate: false,
      shutdownGraceMs: 20_000,
      stateTimeoutMs: 5_000,
    } satisfies Partial<Config>);
  });

  it.each<[NodeJS.ProcessEnv, Partial<Config>]>([
    [{ ...https, TOPICGATE_TRINO_CA_FILE: ca }, { trinoCaFile: ca }],
    [{ ...https, TOPICGATE_TRINO_PASSWORD: 'pw' }, { trinoPassword: 'pw' }],
    [{ ...https, TOPICGATE_TRINO_PASSWORD_FILE: secret }, { trinoPasswordFile: secret }],
    [{ ...https, TOPICGATE_TRINO_TOKEN_FILE: token }, { trinoTokenFile: token }],
    [{ TOPICGATE_TRINO_IMPERSONATE: 'true' }, { trinoImpersonate: true }],
    [{ TOPICGATE_SHUTDOWN_GRACE_MS: '0' }, { shutdownGraceMs: 0 }],
    [{ TOPICGATE_STATE_TIMEOUT_MS: '250' }, { stateTimeoutMs: 250 }],
  ])('%j is read', (env, expected) => {
    expect(loadConfig(env)).toMatchObject(expected);
  });

  it.each<[string, NodeJS.ProcessEnv, string]>([
    [
      'a password and a token file',
      { ...https, TOPICGATE_TRINO_PASSWORD: 'pw', TOPICGATE_TRINO_TOKEN_FILE: token },
      'TOPICGATE_TRINO_PASSWORD and TOPICGATE_TRINO_TOKEN_FILE: set one way to authenticate to Trino, not 2',
    ],
    [
      'a password and a password file',
      { ...https, TOPICGATE_TRINO_PASSWORD: 'pw', TOPICGATE_TRINO_PASSWORD_FILE: secret },
      'TOPICGATE_TRINO_PASSWORD and TOPICGATE_TRINO_PASSWORD_FILE: set one way to authenticate to Trino, not 2',
    ],
    [
      'a password over http',
      { TOPICGATE_TRINO_PASSWORD: 'pw' },
      'TOPICGATE_TRINO_PASSWORD needs an https:// TOPICGATE_TRINO_URL (credentials are never sent in clear)',
    ],
    [
      'a token over http',
      { TOPICGATE_TRINO_TOKEN_FILE: token },
      'TOPICGATE_TRINO_TOKEN_FILE needs an https:// TOPICGATE_TRINO_URL (credentials are never sent in clear)',
    ],
    [
      'a CA file that does not exist',
      { ...https, TOPICGATE_TRINO_CA_FILE: join(dir, 'none.pem') },
      `TOPICGATE_TRINO_CA_FILE=${join(dir, 'none.pem')}: cannot read (ENOENT)`,
    ],
    [
      'a token file that does not exist',
      { ...https, TOPICGATE_TRINO_TOKEN_FILE: join(dir, 'none') },
      `TOPICGATE_TRINO_TOKEN_FILE=${join(dir, 'none')}: cannot read (ENOENT)`,
    ],
    [
      'impersonate maybe',
      { TOPICGATE_TRINO_IMPERSONATE: 'maybe' },
      'TOPICGATE_TRINO_IMPERSONATE="maybe" must be true or false',
    ],
  ])('%s is refused, naming the settings', (_label, env, problem) => {
    expect(problemsOf(env)).toEqual([problem]);
  });

  it('a password never appears in a problem', () => {
    const problems = problemsOf({ TOPICGATE_TRINO_PASSWORD: 'hunter2-secret', TOPICGATE_TRINO_TOKEN_FILE: token });
    expect(problems.join(' ')).not.toContain('hunter2-secret');
  });

  it('per-topic session properties and client tags', () => {
    const path = file(
      'session.yaml',
      'topics:\n  orders:\n    session: { vast.num_of_splits: 64, query_priority: "2", x: true }\n    tags: [orders, team-a]\n',
    );
    expect(loadConfig({ TOPICGATE_CONFIG: path }).topics.orders).toEqual({
      session: { 'vast.num_of_splits': 64, query_priority: '2', x: true },
      tags: ['orders', 'team-a'],
    });
  });

  it.each([
    ['a tag with a comma', 'tags: ["a,b"]', '/topics/orders/tags/0'],
    ['a tag with =', 'tags: ["a=b"]', '/topics/orders/tags/0'],
    ['an empty tag', 'tags: [""]', '/topics/orders/tags/0'],
    ['a session name with a comma', 'session: { "a,b": 1 }', '/topics/orders/session/a,b'],
    ['a session value that is a list', 'session: { a: [1] }', '/topics/orders/session/a'],
  ])('%s is refused', (_label, yaml, where) => {
    const path = file('bad-session.yaml', `topics:\n  orders:\n    ${yaml}\n`);
    expect(problemsOf({ TOPICGATE_CONFIG: path })[0]).toContain(`${path}: ${where} `);
  });
});
