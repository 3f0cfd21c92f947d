/**
 * Settled windows as files (API.md "Windows as files"), read over real HTTP by the readers that open files by URL
 * and fetch them by byte range (test/readers/window_files.py): DuckDB's httpfs with an HTTP secret carrying the
 * bearer header, Polars' scan_parquet, pandas' read_parquet, pyarrow's IPC file reader. Each answer is Trino's
 * answer for the window; the bytes a reader fetched are counted at the gateway (its served ranges). Then the HTTP
 * rules of a file (Range, 416, If-Range, If-None-Match, HEAD), a window not settled, two row scopes, a revoked
 * grant, and one make for concurrent requests.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { apiKeyHash } from '../../src/access/api-keys.js';
import { loadConfig } from '../../src/server/load-config.js';
import { reloadAccess } from '../../src/server/access-reload.js';
import { buildApp } from '../../src/server/app.js';
import { sql, trinoUrl } from '../helpers.js';

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'topicgate-window-files-'));
const ALL = 'key-files-all-000000000000000000000';
const EU = 'key-files-eu-0000000000000000000000';
const SINCE = '2026-11-01T00:00:00Z';
const MID = '2026-11-02T12:00:00Z';
const UNTIL = '2026-11-03T00:00:00Z';
const WINDOW = `since=${SINCE}&until=${UNTIL}`;
const all = { authorization: `Bearer ${ALL}` };
const eu = { authorization: `Bearer ${EU}` };

/** The config file: `all-1` reads orders unless revoked; `eu-1` only rows whose key ends in 1. */
function configFile(name: string, revoked = false): string {
  const file = join(dir, name);
  writeFileSync(
    file,
    stringify({
      auth: {
        apiKeys: [
          { principal: 'all-1', sha256: apiKeyHash(ALL), roles: revoked ? ['nobody'] : ['analyst'] },
          { principal: 'eu-1', sha256: apiKeyHash(EU), roles: ['analyst', 'analyst-eu'] },
        ],
      },
      access: [{ roles: ['analyst'], topics: ['orders'], actions: ['read'] }],
      rowPolicies: { default: 'allow', orders: [{ roles: ['analyst-eu'], filter: 'key=like.*1' }] },
    }),
  );
  return file;
}

function env(extra: Record<string, string>) {
  return {
    TOPICGATE_TRINO_URL: trinoUrl(),
    TOPICGATE_STATE_URL: 'sqlite::memory:',
    TOPICGATE_PORT: '0',
    TOPICGATE_LOG_LEVEL: 'silent',
    TOPICGATE_MAX_EVENT_LOOP_DELAY_MS: '0',
    TOPICGATE_CURSOR_SECRET: 'window-files-test-secret-of-32-bytes-or-more',
    // Small row groups: the window's 8,658 rows are 9 of them, so a filter on time skips some.
    TOPICGATE_FILE_ROW_GROUP_ROWS: '1024',
    ...extra,
  };
}

/** A gateway on a free loopback port (the row policies are checked against the catalog at start by `npm start`). */
async function listening(e: Record<string, string>): Promise<{ app: FastifyInstance; url: string }> {
  const app = await buildApp(loadConfig(env(e)), { logger: false });
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, url: address };
}

let secured: { app: FastifyInstance; url: string };
let open: { app: FastifyInstance; url: string };
const expected = { rows: 0, keys: 0, sinceMid: 0, eu: 0 };

beforeAll(async () => {
  const config = configFile('a.yaml');
  secured = await listening({ TOPICGATE_CONFIG: config, TOPICGATE_FILE_CACHE_DIR: join(dir, 'secured') });
  open = await listening({ TOPICGATE_FILE_CACHE_DIR: join(dir, 'open') });
  const t = (iso: string) => `TIMESTAMP '${iso.slice(0, 19).replace('T', ' ')}'`;
  const window = `timestamp_broker >= ${t(SINCE)} AND timestamp_broker < ${t(UNTIL)}`;
  const [[rows, keys, sinceMid, inEu]] = (await sql(
    `SELECT count(*), count(DISTINCT key), count_if(timestamp_broker >= ${t(MID)}), ` +
      `count_if(from_utf8(key) LIKE '%1') ` +
      `FROM orders WHERE ${window}`,
  )) as [[number, number, number, number]];
  Object.assign(expected, { rows: Number(rows), keys: Number(keys), sinceMid: Number(sinceMid), eu: Number(inEu) });
  expect(expected.rows).toBeGreaterThan(8 * 1024);
  expect(expected.sinceMid).toBeGreaterThan(0);
  expect(expected.eu).toBeGreaterThan(0);
}, 120_000);

afterAll(async () => {
  await Promise.all([secured?.app.close(), open?.app.close()]);
  rmSync(dir, { recursive: true, force: true });
});

type Outcome = Record<string, number | string | string[]>;

/** One reader on one case, in its own Python process (the gateways share this event loop: asynchronously). */
async function readWith(c: Record<string, string | null>): Promise<Outcome> {
  const file = join(dir, `case-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(c));
  const { stdout } = await run('python3', ['test/readers/window_files.py', file], {
    encoding: 'utf8',
    // DuckDB with its httpfs extension from PyPI (scripts/test-deps.sh installs it there).
    env: { ...process.env, PYTHONPATH: '.local/duckdb-httpfs', RUST_BACKTRACE: '0' },
  });
  const out = JSON.parse(stdout) as Outcome;
  expect(out, JSON.stringify(c)).not.toHaveProperty('error');
  return out;
}

/** The bytes of `suffix` files the gateway has sent (every range of every response). */
async function sentBytes(app: FastifyInstance, suffix: string): Promise<number> {
  const metric = await app.metrics.registry.getSingleMetric('topicgate_file_bytes_sent_total')?.get();
  return metric?.values.find((v) => v.labels.suffix === suffix)?.value ?? 0;
}

/** The responses of a status the file routes have sent (206: a range). */
async function responses(app: FastifyInstance, status: string): Promise<number> {
  const metric = await app.metrics.registry.getSingleMetric('topicgate_http_request_duration_seconds')?.get();
  const count = metric?.values.find(
    (v) =>
      String(v.metricName).endsWith('_count') &&
      String(v.labels.route).endsWith('.:suffix') &&
      v.labels.status === status,
  );
  return count?.value ?? 0;
}

/** What `read` gave, the bytes of `suffix` files the gateway sent meanwhile, and in how many range responses. */
async function counted<T>(app: FastifyInstance, suffix: string, read: () => Promise<T>) {
  const [before, ranges] = [await sentBytes(app, suffix), await responses(app, '206')];
  const out = await read();
  return { out, bytes: (await sentBytes(app, suffix)) - before, ranges: (await responses(app, '206')) - ranges };
}

const fileUrl = (base: string, suffix: string, extra = '') =>
  `${base}/v1/topics/orders/events.${suffix}?${WINDOW}${extra}`;

describe('DuckDB (httpfs, an HTTP secret with the bearer header)', () => {
  it("read_parquet: the whole window, and with a filter on timestamp_broker fewer bytes fetched, both Trino's answer", async () => {
    const url = fileUrl(secured.url, 'parquet');
    const whole = await counted(secured.app, 'parquet', () => readWith({ reader: 'duckdb', url, bearer: ALL }));
    expect(whole.out).toMatchObject({ rows: expected.rows, keys: expected.keys });
    const filtered = await counted(secured.app, 'parquet', () =>
      readWith({ reader: 'duckdb', url, bearer: ALL, since: MID }),
    );
    expect(filtered.out.rows).toBe(expected.sinceMid);
    expect(whole.bytes).toBeGreaterThan(0);
    expect(filtered.bytes).toBeLessThan(whole.bytes);
    // By ranges: DuckDB asks for the footer, then the column chunks it needs.
    expect(filtered.ranges).toBeGreaterThan(1);
    console.log(
      `DuckDB: ${whole.bytes} bytes in ${whole.ranges} ranges; filtered ${filtered.bytes} in ${filtered.ranges}`,
    );
  }, 120_000);

  it('read_csv and read_json on the .csv and .ndjson files', async () => {
    for (const [reader, suffix] of [
      ['duckdb-csv', 'csv'],
      ['duckdb-ndjson', 'ndjson'],
    ] as const) {
      const out = await readWith({ reader, url: fileUrl(secured.url, suffix), bearer: ALL });
      expect(out, suffix).toEqual({ rows: expected.rows, keys: expected.keys });
    }
  }, 120_000);

  it('without the bearer header: 401, whatever is cached', async () => {
    const res = await fetch(fileUrl(secured.url, 'parquet'));
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('TG_UNAUTHENTICATED');
  });
});

describe('Polars, pandas, pyarrow', () => {
  it("Polars scan_parquet with a filter on timestamp_broker: Trino's count, by ranges", async () => {
    const url = fileUrl(open.url, 'parquet');
    const { out, bytes, ranges } = await counted(open.app, 'parquet', () =>
      readWith({ reader: 'polars', url, since: MID }),
    );
    expect(out.rows).toBe(expected.sinceMid);
    expect(bytes).toBeGreaterThan(0);
    expect(ranges).toBeGreaterThan(1);
  }, 120_000);

  it('the Parquet file: row groups of TOPICGATE_FILE_ROW_GROUP_ROWS in time order, statistics and the page index', async () => {
    const out = (await readWith({
      reader: 'pyarrow-parquet-layout',
      url: fileUrl(open.url, 'parquet'),
    })) as unknown as {
      rows: number;
      groups: number[];
      minMax: [string, string][];
      pageIndex: boolean;
    };
    expect(out.rows).toBe(expected.rows);
    expect(out.groups.slice(0, -1).every((n) => n === 1024)).toBe(true);
    expect(out.groups.length).toBe(Math.ceil(expected.rows / 1024));
    // Each group's times start where the previous group's end: a filter on time skips whole groups.
    for (let i = 1; i < out.minMax.length; i++) expect(out.minMax[i]![0] >= out.minMax[i - 1]![1]).toBe(true);
    expect(out.pageIndex).toBe(true);
  }, 120_000);

  it('pandas read_parquet: every row', async () => {
    expect((await readWith({ reader: 'pandas', url: fileUrl(open.url, 'parquet') })).rows).toBe(expected.rows);
  }, 120_000);

  it('pyarrow opens the .arrow file (the IPC file format, its footer indexing the batches)', async () => {
    const out = await readWith({ reader: 'pyarrow-arrow', url: fileUrl(open.url, 'arrow') });
    expect(out.rows).toBe(expected.rows);
    expect(out.batches).toBeGreaterThan(0);
    const body = Buffer.from(await (await fetch(fileUrl(open.url, 'arrow'))).arrayBuffer());
    expect(body.subarray(0, 6).toString()).toBe('ARROW1');
    expect(body.subarray(-6).toString()).toBe('ARROW1');
  }, 120_000);
});

describe('a file over HTTP', () => {
  let whole: Buffer;
  let etag: string;
  const url = () => fileUrl(open.url, 'parquet');
  beforeAll(async () => {
    const res = await fetch(url());
    expect(res.status).toBe(200);
    whole = Buffer.from(await res.arrayBuffer());
    etag = res.headers.get('etag')!;
    expect(res.headers.get('content-length')).toBe(String(whole.length));
    expect(res.headers.get('accept-ranges')).toBe('bytes');
    expect(res.headers.get('last-modified')).toMatch(/GMT$/);
    expect(res.headers.get('cache-control')).toMatch(/^private, max-age=\d+, immutable$/);
    expect(res.headers.get('vary')).toMatch(/Authorization/);
  });

  it('HEAD: the length and validators of the GET, no body', async () => {
    const res = await fetch(url(), { method: 'HEAD' });
    expect([res.status, res.headers.get('content-length'), res.headers.get('etag')]).toEqual([
      200,
      String(whole.length),
      etag,
    ]);
    expect((await res.arrayBuffer()).byteLength).toBe(0);
  });

  it.each(['bytes=0-3', 'bytes=100-4195', 'bytes=-8', 'bytes=1000-'])(
    'Range %s: 206, the bytes of that slice',
    async (range) => {
      const res = await fetch(url(), { headers: { range } });
      const body = Buffer.from(await res.arrayBuffer());
      const [, a = '', b = ''] = /^bytes=(\d*)-(\d*)$/.exec(range)!;
      const start = a === '' ? whole.length - Number(b) : Number(a);
      const end = a !== '' && b !== '' ? Number(b) : whole.length - 1;
      expect(res.status).toBe(206);
      expect(res.headers.get('content-range')).toBe(`bytes ${start}-${end}/${whole.length}`);
      expect(body.equals(whole.subarray(start, end + 1))).toBe(true);
    },
  );

  it('a Range past the end: 416 with the length, a TG_ code', async () => {
    const res = await fetch(url(), { headers: { range: `bytes=${whole.length}-` } });
    expect(res.status).toBe(416);
    expect(res.headers.get('content-range')).toBe(`bytes */${whole.length}`);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('TG_RANGE_NOT_SATISFIABLE');
  });

  it("If-Range: the range while the tag is the file's, the whole file when it is another", async () => {
    const same = await fetch(url(), { headers: { range: 'bytes=0-9', 'if-range': etag } });
    expect([same.status, (await same.arrayBuffer()).byteLength]).toEqual([206, 10]);
    const other = await fetch(url(), { headers: { range: 'bytes=0-9', 'if-range': '"another"' } });
    expect([other.status, (await other.arrayBuffer()).byteLength]).toEqual([200, whole.length]);
  });

  it('If-None-Match naming the tag: 304, no body', async () => {
    const res = await fetch(url(), { headers: { 'if-none-match': etag } });
    expect([res.status, res.headers.get('etag'), (await res.arrayBuffer()).byteLength]).toEqual([304, etag, 0]);
  });

  it('a window not settled: 409 naming the instant it settles; a relative one: 409', async () => {
    const until = new Date(Date.now() + 3_600_000).toISOString();
    const res = await fetch(`${open.url}/v1/topics/orders/events.parquet?since=${SINCE}&until=${until}`);
    const body = (await res.json()) as { error: { code: string; details: { settlesAt: string } } };
    expect([res.status, body.error.code]).toEqual([409, 'TG_WINDOW_NOT_SETTLED']);
    expect(Date.parse(body.error.details.settlesAt)).toBeGreaterThan(Date.parse(until));
    const relative = await fetch(`${open.url}/v1/topics/orders/events.csv?since=-2d&until=-1d`);
    expect(relative.status).toBe(409);
  });

  it('a parameter that does not apply to a file is a 400, never ignored', async () => {
    for (const p of ['limit=5', 'format=json', 'order=key.asc', 'cursor=x']) {
      const res = await fetch(`${url()}&${p}`);
      expect([res.status, ((await res.json()) as { error: { code: string } }).error.code], p).toEqual([
        400,
        'TG_BAD_REQUEST',
      ]);
    }
  });

  it('concurrent requests for a window not made yet: one make, every answer the same bytes', async () => {
    const made = async () =>
      (await open.app.metrics.registry.getSingleMetric('topicgate_file_cache_made_total')?.get())?.values[0]?.value ??
      0;
    const before = await made();
    const u = fileUrl(open.url, 'ndjson', '&select=key,timestamp_broker');
    const bodies = await Promise.all(
      Array.from({ length: 5 }, async () => Buffer.from(await (await fetch(u)).arrayBuffer())),
    );
    expect((await made()) - before).toBe(1);
    expect(bodies.every((b) => b.equals(bodies[0]!))).toBe(true);
    expect(bodies[0]!.toString().trim().split('\n')).toHaveLength(expected.rows);
    // Made whole, then renamed: no temporary file is left behind.
    expect(readdirSync(join(dir, 'open')).filter((f) => f.startsWith('.tmp-'))).toEqual([]);
  });
});

describe('access before the cache', () => {
  const ndjson = () => fileUrl(secured.url, 'ndjson', '&select=key,timestamp_broker');

  it('two principals with different row policies: different files (tags, rows), each its own scope', async () => {
    const a = await fetch(ndjson(), { headers: all });
    const e = await fetch(ndjson(), { headers: eu });
    expect([a.status, e.status]).toEqual([200, 200]);
    expect(a.headers.get('etag')).not.toBe(e.headers.get('etag'));
    const rows = async (r: Response) =>
      (await r.text())
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { key: string });
    const [allRows, euRows] = [await rows(a), await rows(e)];
    expect(allRows).toHaveLength(expected.rows);
    expect(euRows).toHaveLength(expected.eu);
    expect(euRows.every((r) => r.key.endsWith('1'))).toBe(true);
    // Another scope's tag revalidates nothing: eu-1 naming all-1's tag gets its own rows, not a 304.
    const named = await fetch(ndjson(), { headers: { ...eu, 'if-none-match': a.headers.get('etag')! } });
    expect(named.status).toBe(200);
    expect(await rows(named)).toHaveLength(expected.eu);
  }, 120_000);

  it('a revoked grant (access reloaded) is refused although its file is cached', async () => {
    const url = fileUrl(secured.url, 'parquet');
    expect((await fetch(url, { headers: all })).status).toBe(200);
    const files = readdirSync(join(dir, 'secured')).length;
    const problems = await reloadAccess(secured.app, {
      load: () =>
        loadConfig(
          env({ TOPICGATE_CONFIG: configFile('b.yaml', true), TOPICGATE_FILE_CACHE_DIR: join(dir, 'secured') }),
        ),
      policyProblems: async () => [],
    });
    expect(problems).toEqual([]);
    for (const headers of [all, { ...all, range: 'bytes=0-3' }]) {
      const res = await fetch(url, { headers });
      expect([res.status, ((await res.json()) as { error: { code: string } }).error.code]).toEqual([
        404,
        'TG_TOPIC_NOT_FOUND',
      ]);
    }
    // The file is still there (eu-1's scope is unchanged and still served).
    expect(readdirSync(join(dir, 'secured')).length).toBe(files);
    expect((await fetch(url, { headers: eu })).status).toBe(200);
  }, 120_000);
});

describe('presigned file URLs: a read session with files', () => {
  it('each stream has file URLs; the URL alone reads them, by range, and together they are the window', async () => {
    const res = await fetch(`${secured.url}/v1/topics/orders/sessions`, {
      method: 'POST',
      // eu-1's: all-1's grant is revoked by the test above, whichever runs first.
      headers: { ...eu, 'content-type': 'application/json' },
      body: JSON.stringify({ since: SINCE, until: UNTIL, streams: 3, presign: true, files: true }),
    });
    expect(res.status).toBe(201);
    const session = (await res.json()) as { streams: { files: Record<string, string> }[] };
    expect(session.streams).toHaveLength(3);
    const urls = session.streams.map((s) => `${secured.url}${s.files.parquet}`);
    expect(urls[0]).toMatch(/\/streams\/0\.parquet\?token=/);
    // pandas and Polars with nothing but the URL (no headers): every row of each stream, the scope's in all.
    const rows = await Promise.all(urls.map((url) => readWith({ reader: 'pandas', url })));
    expect(rows.reduce((n, r) => n + Number(r.rows), 0)).toBe(expected.eu);
    expect((await readWith({ reader: 'polars', url: urls[2]! })).rows).toBe(rows[2]!.rows);
    // DuckDB over the list of presigned URLs, no secret: the session's files in one read.
    expect((await readWith({ reader: 'duckdb-list', url: JSON.stringify(urls) })).rows).toBe(expected.eu);
    const head = await fetch(urls[0]!, { method: 'HEAD' });
    expect([head.status, head.headers.get('accept-ranges'), head.headers.get('cache-control')]).toEqual([
      200,
      'bytes',
      'private, no-store',
    ]);
    expect(Number(head.headers.get('content-length'))).toBeGreaterThan(0);
    const range = await fetch(urls[0]!, { headers: { range: 'bytes=0-3' } });
    expect([range.status, Buffer.from(await range.arrayBuffer()).toString()]).toEqual([206, 'PAR1']);
    // The token is the credential: altered, it reads nothing.
    const altered = await fetch(urls[0]!.replace(/token=(.{20})/, 'token=$1x'));
    expect(altered.status).toBe(400);
  }, 120_000);
});

describe('holes closed', () => {
  it('a window whose file would outgrow the whole cache: 422 naming the limit, nothing left on disk', async () => {
    const small = await listening({
      TOPICGATE_FILE_CACHE_DIR: join(dir, 'small'),
      TOPICGATE_FILE_CACHE_BYTES: '100000',
    });
    try {
      const res = await fetch(fileUrl(small.url, 'ndjson'));
      const body = (await res.json()) as { error: { code: string; details: { limit: string } } };
      expect([res.status, body.error.code, body.error.details.limit]).toEqual([
        422,
        'TG_TOO_EXPENSIVE',
        'TOPICGATE_FILE_CACHE_BYTES',
      ]);
      expect(readdirSync(join(dir, 'small'))).toEqual([]);
    } finally {
      await small.app.close();
    }
  }, 120_000);

  it('a file that cannot be written (its directory gone): a 500 for that request, the gateway goes on', async () => {
    const fragile = await listening({ TOPICGATE_FILE_CACHE_DIR: join(dir, 'fragile') });
    try {
      expect((await fetch(fileUrl(fragile.url, 'csv', '&select=key'))).status).toBe(200);
      rmSync(join(dir, 'fragile'), { recursive: true, force: true });
      const res = await fetch(fileUrl(fragile.url, 'ndjson', '&select=key'));
      expect([res.status, ((await res.json()) as { error: { code: string } }).error.code]).toEqual([
        500,
        'TG_INTERNAL',
      ]);
      expect((await fetch(`${fragile.url}/healthz`)).status).toBe(200);
    } finally {
      await fragile.app.close();
    }
  }, 120_000);

  it("the cache directory and its files are the gateway user's alone (0700, 0600)", async () => {
    expect((await fetch(fileUrl(open.url, 'csv'))).status).toBe(200);
    expect(statSync(join(dir, 'open')).mode & 0o777).toBe(0o700);
    const files = readdirSync(join(dir, 'open'));
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) expect(statSync(join(dir, 'open', f)).mode & 0o777, f).toBe(0o600);
  });
});

describe('sessions with files', () => {
  it('order none has no files: 400 naming files', async () => {
    const res = await fetch(`${open.url}/v1/topics/orders/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ since: SINCE, until: UNTIL, order: 'none', files: true }),
    });
    const body = (await res.json()) as { error: { code: string; details: { parameter: string } } };
    expect([res.status, body.error.code, body.error.details.parameter]).toEqual([400, 'TG_BAD_REQUEST', 'files']);
  });
});
