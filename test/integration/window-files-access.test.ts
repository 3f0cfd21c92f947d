/**
 * Settled windows as files (API.md "Windows as files"), access before the cache: two principals with different row
 * policies get different files, a revoked grant is refused although its file is cached, a read session's presigned
 * file URLs read by pandas, Polars and DuckDB without credentials; and the holes closed: a file larger than the cache,
 * a file that cannot be written, the cache directory's permissions, files with order none.
 */
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reloadAccess } from '../../src/server/access-reload.js';
import { loadConfig } from '../../src/server/load-config.js';
import { all, eu, FileGateways, fileUrl, metric, SINCE, UNTIL, until } from '../window-files-gateway.js';

const g = new FileGateways();
beforeAll(() => g.start(), 120_000);
afterAll(() => g.close());

describe('access before the cache', () => {
  const ndjson = () => fileUrl(g.secured.url, 'ndjson', '&select=key,timestamp_broker');

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
    expect(allRows).toHaveLength(g.expected.rows);
    expect(euRows).toHaveLength(g.expected.eu);
    expect(euRows.every((r) => r.key.endsWith('1'))).toBe(true);
    // Another scope's tag revalidates nothing: eu-1 naming all-1's tag gets its own rows, not a 304.
    const named = await fetch(ndjson(), { headers: { ...eu, 'if-none-match': a.headers.get('etag')! } });
    expect(named.status).toBe(200);
    expect(await rows(named)).toHaveLength(g.expected.eu);
  }, 120_000);

  it('a revoked grant (access reloaded) is refused although its file is cached', async () => {
    const url = fileUrl(g.secured.url, 'parquet');
    expect((await fetch(url, { headers: all })).status).toBe(200);
    const files = readdirSync(join(g.dir, 'secured')).length;
    const problems = await reloadAccess(g.secured.app, {
      load: () =>
        loadConfig(
          g.env({ TOPICGATE_CONFIG: g.configFile('b.yaml', true), TOPICGATE_FILE_CACHE_DIR: join(g.dir, 'secured') }),
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
    expect(readdirSync(join(g.dir, 'secured')).length).toBe(files);
    expect((await fetch(url, { headers: eu })).status).toBe(200);
  }, 120_000);
});

describe('presigned file URLs: a read session with files', () => {
  it('each stream has file URLs; the URL alone reads them, by range, and together they are the window', async () => {
    const res = await fetch(`${g.secured.url}/v1/topics/orders/sessions`, {
      method: 'POST',
      // eu-1's: all-1's grant is revoked by the test above, whichever runs first.
      headers: { ...eu, 'content-type': 'application/json' },
      body: JSON.stringify({ since: SINCE, until: UNTIL, streams: 3, presign: true, files: true }),
    });
    expect(res.status).toBe(201);
    const session = (await res.json()) as { streams: { files: Record<string, string> }[] };
    expect(session.streams).toHaveLength(3);
    const urls = session.streams.map((s) => `${g.secured.url}${s.files.parquet}`);
    expect(urls[0]).toMatch(/\/streams\/0\.parquet\?token=/);
    // pandas and Polars with nothing but the URL (no headers): every row of each stream, the scope's in all.
    const rows = await Promise.all(urls.map((url) => g.readWith({ reader: 'pandas', url })));
    expect(rows.reduce((n, r) => n + Number(r.rows), 0)).toBe(g.expected.eu);
    expect((await g.readWith({ reader: 'polars', url: urls[2]! })).rows).toBe(rows[2]!.rows);
    // DuckDB over the list of presigned URLs, no secret: the session's files in one read.
    expect((await g.readWith({ reader: 'duckdb-list', url: JSON.stringify(urls) })).rows).toBe(g.expected.eu);
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
  it('a reader that leaves while its file is made: the make goes on, and its next request finds the file', async () => {
    const made = () => metric(g.open.app, 'topicgate_file_cache_made_total');
    const hits = () => metric(g.open.app, 'topicgate_file_cache_hits_total');
    const url = fileUrl(g.open.url, 'parquet', '&select=key,value,headers');
    const [made0, hits0] = [await made(), await hits()];
    const leaving = new AbortController();
    const first = fetch(url, { signal: leaving.signal }).then(
      () => 'answered',
      () => 'left',
    );
    // The client leaves once the make is writing its file (or, on a fast machine, has made it).
    const temp = () =>
      existsSync(join(g.dir, 'open')) && readdirSync(join(g.dir, 'open')).some((f) => f.startsWith('.tmp-'));
    await until(async () => temp() || (await made()) > made0);
    leaving.abort();
    expect(await first).toBe('left');
    await until(async () => (await made()) > made0);
    expect((await fetch(url)).status).toBe(200);
    expect([(await made()) - made0, (await hits()) - hits0]).toEqual([1, 1]);
  }, 120_000);

  it('a window whose file would outgrow the whole cache: 422 naming the limit, nothing left on disk', async () => {
    const small = await g.listening({
      TOPICGATE_FILE_CACHE_DIR: join(g.dir, 'small'),
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
      expect(readdirSync(join(g.dir, 'small'))).toEqual([]);
    } finally {
      await small.app.close();
    }
  }, 120_000);

  it('a file that cannot be written (its directory gone): a 500 for that request, the gateway goes on', async () => {
    const fragile = await g.listening({ TOPICGATE_FILE_CACHE_DIR: join(g.dir, 'fragile') });
    try {
      expect((await fetch(fileUrl(fragile.url, 'csv', '&select=key'))).status).toBe(200);
      rmSync(join(g.dir, 'fragile'), { recursive: true, force: true });
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
    expect((await fetch(fileUrl(g.open.url, 'csv'))).status).toBe(200);
    expect(statSync(join(g.dir, 'open')).mode & 0o777).toBe(0o700);
    const files = readdirSync(join(g.dir, 'open'));
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) expect(statSync(join(g.dir, 'open', f)).mode & 0o777, f).toBe(0o600);
  });
});

describe('sessions with files', () => {
  it('order none has no files: 400 naming files', async () => {
    const res = await fetch(`${g.open.url}/v1/topics/orders/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ since: SINCE, until: UNTIL, order: 'none', files: true }),
    });
    const body = (await res.json()) as { error: { code: string; details: { parameter: string } } };
    expect([res.status, body.error.code, body.error.details.parameter]).toEqual([400, 'TG_BAD_REQUEST', 'files']);
  });
});
