/**
 * Settled windows as files (API.md "Windows as files"), read over real HTTP by the readers that open files by URL
 * and fetch them by byte range (test/readers/window_files.py): DuckDB's httpfs with an HTTP secret carrying the
 * bearer header, Polars' scan_parquet, pandas' read_parquet, pyarrow's IPC file and Parquet metadata readers. Each
 * answer is Trino's answer for the window; the bytes a reader fetched are counted at the gateway (its served ranges).
 * Then the HTTP rules of a file (Range, 416, If-Range, If-None-Match, HEAD), a window not settled, parameters that do
 * not apply, and one make for concurrent requests. Access, presigned URLs and the holes: window-files-access.test.ts.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL, counted, FileGateways, fileUrl, MID, SINCE } from '../window-files-gateway.js';

const g = new FileGateways();
beforeAll(() => g.start(), 120_000);
afterAll(() => g.close());

describe('DuckDB (httpfs, an HTTP secret with the bearer header)', () => {
  it("read_parquet: the whole window, and with a filter on timestamp_broker fewer bytes fetched, both Trino's answer", async () => {
    const url = fileUrl(g.secured.url, 'parquet');
    const whole = await counted(g.secured.app, 'parquet', () => g.readWith({ reader: 'duckdb', url, bearer: ALL }));
    expect(whole.out).toMatchObject({ rows: g.expected.rows, keys: g.expected.keys });
    const filtered = await counted(g.secured.app, 'parquet', () =>
      g.readWith({ reader: 'duckdb', url, bearer: ALL, since: MID }),
    );
    expect(filtered.out.rows).toBe(g.expected.sinceMid);
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
      const out = await g.readWith({ reader, url: fileUrl(g.secured.url, suffix), bearer: ALL });
      expect(out, suffix).toEqual({ rows: g.expected.rows, keys: g.expected.keys });
    }
  }, 120_000);

  it('without the bearer header: 401, whatever is cached', async () => {
    const res = await fetch(fileUrl(g.secured.url, 'parquet'));
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('TG_UNAUTHENTICATED');
  });
});

describe('Polars, pandas, pyarrow', () => {
  it("Polars scan_parquet with a filter on timestamp_broker: Trino's count, by ranges", async () => {
    const url = fileUrl(g.open.url, 'parquet');
    const { out, bytes, ranges } = await counted(g.open.app, 'parquet', () =>
      g.readWith({ reader: 'polars', url, since: MID }),
    );
    expect(out.rows).toBe(g.expected.sinceMid);
    expect(bytes).toBeGreaterThan(0);
    expect(ranges).toBeGreaterThan(1);
  }, 120_000);

  it('the Parquet file: row groups of TOPICGATE_FILE_ROW_GROUP_ROWS in time order, statistics and the page index', async () => {
    const out = (await g.readWith({
      reader: 'pyarrow-parquet-layout',
      url: fileUrl(g.open.url, 'parquet'),
    })) as unknown as {
      rows: number;
      groups: number[];
      minMax: [string, string][];
      pageIndex: boolean;
    };
    expect(out.rows).toBe(g.expected.rows);
    expect(out.groups.slice(0, -1).every((n) => n === 1024)).toBe(true);
    expect(out.groups.length).toBe(Math.ceil(g.expected.rows / 1024));
    // Each group's times start where the previous group's end: a filter on time skips whole groups.
    for (let i = 1; i < out.minMax.length; i++) expect(out.minMax[i]![0] >= out.minMax[i - 1]![1]).toBe(true);
    expect(out.pageIndex).toBe(true);
  }, 120_000);

  it('pandas read_parquet: every row', async () => {
    expect((await g.readWith({ reader: 'pandas', url: fileUrl(g.open.url, 'parquet') })).rows).toBe(g.expected.rows);
  }, 120_000);

  it('pyarrow opens the .arrow file (the IPC file format, its footer indexing the batches)', async () => {
    const out = await g.readWith({ reader: 'pyarrow-arrow', url: fileUrl(g.open.url, 'arrow') });
    expect(out.rows).toBe(g.expected.rows);
    expect(out.batches).toBeGreaterThan(0);
    const body = Buffer.from(await (await fetch(fileUrl(g.open.url, 'arrow'))).arrayBuffer());
    expect(body.subarray(0, 6).toString()).toBe('ARROW1');
    expect(body.subarray(-6).toString()).toBe('ARROW1');
  }, 120_000);
});

describe('a file over HTTP', () => {
  let whole: Buffer;
  let etag: string;
  const url = () => fileUrl(g.open.url, 'parquet');
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
    const res = await fetch(`${g.open.url}/v1/topics/orders/events.parquet?since=${SINCE}&until=${until}`);
    const body = (await res.json()) as { error: { code: string; details: { settlesAt: string } } };
    expect([res.status, body.error.code]).toEqual([409, 'TG_WINDOW_NOT_SETTLED']);
    expect(Date.parse(body.error.details.settlesAt)).toBeGreaterThan(Date.parse(until));
    const relative = await fetch(`${g.open.url}/v1/topics/orders/events.csv?since=-2d&until=-1d`);
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
      (await g.open.app.metrics.registry.getSingleMetric('topicgate_file_cache_made_total')?.get())?.values[0]?.value ??
      0;
    const before = await made();
    const u = fileUrl(g.open.url, 'ndjson', '&select=key,timestamp_broker');
    const bodies = await Promise.all(
      Array.from({ length: 5 }, async () => Buffer.from(await (await fetch(u)).arrayBuffer())),
    );
    expect((await made()) - before).toBe(1);
    expect(bodies.every((b) => b.equals(bodies[0]!))).toBe(true);
    expect(bodies[0]!.toString().trim().split('\n')).toHaveLength(g.expected.rows);
    // Made whole, then renamed: no temporary file is left behind.
    expect(readdirSync(join(g.dir, 'open')).filter((f) => f.startsWith('.tmp-'))).toEqual([]);
  });
});
