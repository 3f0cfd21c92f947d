/**
 * The committed OpenAPI document checked by tools that did not write it: openapi-spec-validator validates it, and
 * schemathesis fuzzes the gateway from it (listening on 127.0.0.1, real Trino, demo data). Any 5xx, undocumented
 * status, wrong content type, body that breaks its schema, or accepted invalid request fails the test.
 * Python packages come from test/schemathesis/requirements.txt (.ci/run installs them): missing, the test fails in
 * the suite fails, saying how to get them.
 * Knobs: TOPICGATE_FUZZ_EXAMPLES (test cases per operation and phase, default 100), TOPICGATE_FUZZ_SEED (default 1).
 */
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { stringify } from 'yaml';
import { apiKeyHash } from '../../src/access/api-keys.js';
import { testApp } from '../helpers.js';

const DOCUMENT = fileURLToPath(new URL('../../openapi/openapi.json', import.meta.url));
const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts', import.meta.url));
const hasTools =
  spawnSync('python3', ['-c', 'import schemathesis, openapi_spec_validator'], { stdio: 'ignore' }).status === 0;
// Never skipped: without the tools the suite fails, saying how to get them (.ci/run installs them).
if (!hasTools) throw new Error('schemathesis missing: pip install -r test/schemathesis/requirements.txt');

const EXAMPLES = process.env.TOPICGATE_FUZZ_EXAMPLES ?? '100';
const SEED = process.env.TOPICGATE_FUZZ_SEED ?? '1';

/**
 * Runs a command without blocking the event loop (the gateway under test lives in this process), in `cwd`: a fresh
 * folder for schemathesis, whose crash cache (.schemathesis/) would otherwise replay old runs and litter the repo.
 */
function run(cmd: string, args: string[], cwd?: string): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out }));
  });
}

interface Report {
  exit_code: number;
  running_time: number;
  operations: { total: number; tested: number; errored: number };
  phases: Record<string, { status: string }>;
  test_cases: { generated: number; with_failures: number; unique_failures: number; errored: number };
  failures: unknown[];
  errors: unknown[];
}

/**
 * The fuzzed gateway runs secured, as a deployment would: an `auth` block with one API key whose role may read,
 * explain, infer and use cursors on every topic (no `admin`: its own cursors only). schemathesis sends the key on
 * every request, and its ignored_auth check sends requests without it (and with a wrong one) to every operation
 * the document says needs credentials, which must then be a 401.
 */
const KEY = 'fuzz-key-0000000000000000000000000000';
let app: FastifyInstance;
let base: string;
beforeAll(async () => {
  const config = join(mkdtempSync(join(tmpdir(), 'topicgate-fuzz-config-')), 'topicgate.yaml');
  writeFileSync(
    config,
    stringify({
      auth: { apiKeys: [{ principal: 'fuzzer', sha256: apiKeyHash(KEY), roles: ['fuzzer'] }] },
      access: [{ roles: ['fuzzer'], topics: ['*'], actions: ['read', 'explain', 'infer', 'cursors'] }],
    }),
  );
  app = await testApp({ TOPICGATE_CONFIG: config });
  base = await app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(() => app?.close());

describe('the OpenAPI document, checked independently', () => {
  it('is valid OpenAPI 3 (openapi-spec-validator)', async () => {
    const { code, out } = await run('python3', ['-m', 'openapi_spec_validator', DOCUMENT]);
    expect(code, out).toBe(0);
    expect(out).toContain(': OK');
  });

  it('holds for the running gateway: schemathesis finds no 5xx and no response that contradicts it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'topicgate-schemathesis-'));
    const reportPath = join(dir, 'report.json');
    // The key for the document's apiKey scheme (schemathesis.toml in its working folder): told per scheme,
    // schemathesis sends it alone (a plain extra header would go beside a generated Authorization, which the
    // gateway refuses as two credentials) and knows which requests its ignored_auth check sends without it.
    // `follow=true` never ends while its client stays (API.md "Following a topic"): each such case would wait out
    // the request time-out, so the fuzzer reads without following (test/integration/follow.test.ts follows).
    writeFileSync(
      join(dir, 'schemathesis.toml'),
      `[auth.openapi.apiKey]\napi_key = "${KEY}"\n\n[parameters]\n"query.follow" = "false"\n`,
    );
    const { code, out } = await run(
      'python3',
      [
        '-m',
        'schemathesis.cli',
        'run',
        DOCUMENT,
        '--url',
        base,
        // All checks but two that do not fit this API:
        // - unsupported_method wants 405 for a method a path does not have; fastify (and API.md) answer 404 TG_NOT_FOUND.
        // - positive_data_acceptance wants every schema-valid value accepted; parameters here are a query language
        //   (filters, times, formats, page and batch tokens) that JSON Schema cannot express, so many are rightly 4xx.
        '--checks',
        'all',
        '--exclude-checks',
        'unsupported_method,positive_data_acceptance',
        // Every operation gets the same number of examples. The four that reach Trino (GET events, GET schema/infer,
        // POST query, POST sessions: 280 of the run's some 470 Trino queries are their fuzzed cases) keep them all:
        // their coverage-phase cases are mostly refused before Trino (POST query: 472 cases, no query), so the
        // fuzzed cases are what exercises their path down to Trino.
        '--max-examples',
        EXAMPLES,
        '--seed',
        SEED,
        // Hypothesis's example database in memory: the run's folder is new each time, so on disk (.hypothesis/, some
        // 350 files a run) it was written and never read by a later run. Measured with seed 1, in memory the run
        // makes the same 5,677 test cases and 200 stateful scenarios as on disk (with no database: 174 scenarios).
        '--generation-database',
        ':memory:',
        // One worker: the rest of the suite shares the two cores with Trino, and some of it measures timing.
        '--workers',
        '1',
        '--request-timeout',
        '60',
        '--suppress-health-check',
        'too_slow,filter_too_much',
        '--no-color',
        '--report',
        'json',
        '--report-json-path',
        reportPath,
      ],
      dir,
    );
    const report = JSON.parse(readFileSync(reportPath, 'utf8')) as Report;
    mkdirSync(ARTIFACTS, { recursive: true });
    copyFileSync(reportPath, join(ARTIFACTS, 'schemathesis-report.json'));
    writeFileSync(join(ARTIFACTS, 'schemathesis-output.txt'), out);
    const t = report.test_cases;
    process.stderr.write(
      `[schemathesis] seed ${SEED}, max-examples ${EXAMPLES}: ${report.operations.tested}/${report.operations.total} operations, ` +
        `${t.generated} test cases, ${t.unique_failures} unique failures, ${t.errored} errored, ` +
        `phases ${Object.entries(report.phases)
          .map(([p, s]) => `${p}=${s.status}`)
          .join(' ')}, ${report.running_time.toFixed(0)}s\n`,
    );
    const failures = out.includes('FAILURES') ? out.slice(out.indexOf('FAILURES') - 40) : out.slice(-4000);
    expect(code, failures).toBe(0);
    expect(report.failures, failures).toEqual([]);
    expect(report.errors, failures).toEqual([]);
    expect(report.operations.tested).toBe(report.operations.total);
    expect(t.generated).toBeGreaterThan(500);
  }, 600_000);
});
