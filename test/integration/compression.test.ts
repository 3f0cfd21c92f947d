/**
 * Compression on the wire (API.md "Compression on the wire"), over real HTTP from gateways on the real Trino:
 * - every format compressed on the wire (json, ndjson, csv, arrow) decodes, under each coding, to exactly the bytes
 *   of the uncompressed response (the Trino query id, which differs per response, masked), with decoders other than
 *   the gateway's own for zstd (the zstd CLI, curl, urllib3 as requests uses it);
 * - a cut read (test/cut-topic.ts), compressed: the transfer is aborted, no strict decoder takes what arrived for a
 *   complete stream, and what decodes ends with the format's in-body cut mark;
 * - negotiation (q-values, `*`, identity, unknown codings: never a 406), `Vary`, Parquet never compressed on the
 *   wire, `compression=` refused outside Parquet, and TOPICGATE_COMPRESSION=off.
 */
import { execFile, spawn } from 'node:child_process';
import http from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTENT_CODINGS, type ContentCoding } from '../../src/core/content-codings.js';
import { CUT_SCHEMA, cutReadPath, ensureCutTopic, windowReadPath } from '../cut-topic.js';
import { testApp, testGateway, trinoUrl } from '../helpers.js';

const run = promisify(execFile);
const WIRE_FORMATS = ['json', 'ndjson', 'csv', 'arrow'] as const;
const ARROW_EOS = Buffer.from([0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0]);
/** An hour of orders, for small reads. */
const HOUR = '/v1/topics/orders/events?since=2026-11-01T00:00:00Z&until=2026-11-01T01:00:00Z&limit=all';
const dir = mkdtempSync(join(tmpdir(), 'topicgate-compression-'));
const apps: FastifyInstance[] = [];
let complete = '';
let cut = '';
let off: FastifyInstance;

beforeAll(async () => {
  await ensureCutTopic(trinoUrl());
  const started = await Promise.all([testGateway('demo|kafka_topics'), testGateway(CUT_SCHEMA)]);
  apps.push(...started.map((s) => s.app));
  [complete, cut] = started.map((s) => s.url) as [string, string];
  off = await testApp({ TOPICGATE_COMPRESSION: 'off' });
  apps.push(off);
}, 120_000);

afterAll(async () => {
  await Promise.all(apps.map((a) => a.close()));
  rmSync(dir, { recursive: true, force: true });
});

interface Got {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The header lines as sent (name, value, name, value...): tells one Vary line from several joined. */
  rawHeaders: string[];
  body: Buffer;
  /** The transfer ended as HTTP says a complete one ends (the chunked body terminated). */
  complete: boolean;
}

/** One GET over real HTTP, the body as it came on the wire (nothing decoded). */
function get(url: string, headers: Record<string, string> = {}): Promise<Got> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', () => {}); // an aborted transfer: told by `complete`
      res.on('close', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          rawHeaders: res.rawHeaders,
          body: Buffer.concat(chunks),
          complete: res.complete,
        }),
      );
    });
    req.on('error', reject);
  });
}

/** A child's stdout for `input` on its stdin, and its exit code. */
function pipeThrough(command: string, args: string[], input: Buffer): Promise<{ code: number; out: Buffer }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'ignore'] });
    const out: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, out: Buffer.concat(out) }));
    child.stdin.on('error', () => {});
    child.stdin.end(input);
  });
}

/** Decodes a complete body strictly (a stream that is not complete throws): Node's zlib, the zstd CLI. */
async function decode(coding: ContentCoding, body: Buffer): Promise<Buffer> {
  if (coding === 'gzip') return zlib.gunzipSync(body);
  if (coding === 'br') return zlib.brotliDecompressSync(body);
  const { code, out } = await pipeThrough('zstd', ['-d', '-c', '-q'], body);
  if (code !== 0) throw new Error(`zstd -d exited ${code}`);
  return out;
}

/** Decodes what arrived of a cut body: strictly (must fail), then as far as it goes. */
async function decodeCut(coding: ContentCoding, body: Buffer): Promise<{ strictFailed: boolean; prefix: Buffer }> {
  if (coding === 'zstd') {
    const { code, out } = await pipeThrough('zstd', ['-d', '-c', '-q'], body);
    return { strictFailed: code !== 0, prefix: out }; // the CLI writes every whole frame before it fails
  }
  const strictFailed = await decode(coding, body).then(
    () => false,
    () => true,
  );
  const prefix =
    coding === 'gzip'
      ? zlib.gunzipSync(body, { finishFlush: zlib.constants.Z_SYNC_FLUSH })
      : zlib.brotliDecompressSync(body, { finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH });
  return { strictFailed, prefix };
}

/** What a settled window's response varies on (http/read-cache.ts): the media type and the credentials. */
const CACHED_VARY = ['Accept', 'Authorization', 'X-API-Key'];
/** ...and, in a format compressed on the wire, the content coding. */
const WIRE_VARY = ['Accept-Encoding', ...CACHED_VARY];

/** The names of the response's one Vary header line, sorted; several lines or a name twice fail the test. */
function varyOf(r: Pick<Got, 'rawHeaders'>): string[] {
  const lines = r.rawHeaders.filter((_, i) => i % 2 === 0 && r.rawHeaders[i]!.toLowerCase() === 'vary');
  expect(lines.length, 'Vary header lines').toBeLessThanOrEqual(1);
  const at = r.rawHeaders.findIndex((h, i) => i % 2 === 0 && h.toLowerCase() === 'vary');
  const names = at < 0 ? [] : r.rawHeaders[at + 1]!.split(',').map((s) => s.trim());
  expect(new Set(names.map((n) => n.toLowerCase())).size, `Vary: ${names.join(', ')}`).toBe(names.length);
  return names.sort();
}

/** The body with this response's Trino query id masked (Arrow's schema metadata carries it). */
const masked = (body: Buffer, headers: http.IncomingHttpHeaders) =>
  Buffer.from(body.toString('latin1').replaceAll(String(headers['x-trino-query-id']), 'QUERY-ID'), 'latin1');

/**
 * The cut read's two-day window, complete, in one slice: thousands of rows, many Trino batches (many flushes, many
 * zstd frames) from one Trino query instead of two (the slices are what the cut reads are about, not these).
 */
const completePath = (format: string) => windowReadPath(format).replace('parallel=2', 'parallel=1');
const plainReads = new Map<string, Promise<Got>>();
/** The uncompressed read of `url`: read once, compared with each coding's (the same query and path each time). */
const plainOf = (url: string): Promise<Got> => {
  if (!plainReads.has(url)) plainReads.set(url, get(url));
  return plainReads.get(url)!;
};

describe('every format decodes to exactly the uncompressed bytes', () => {
  it.each(WIRE_FORMATS)(
    '%s, under zstd, br and gzip',
    async (format) => {
      const url = complete + completePath(format);
      expect(url).toContain('parallel=1');
      const plain = await plainOf(url);
      expect(plain.status).toBe(200);
      expect(plain.headers['content-encoding']).toBeUndefined();
      // A settled window: one Vary naming the coding, the media type and the credentials, each once.
      expect(varyOf(plain)).toEqual([...WIRE_VARY].sort());
      expect(plain.body.length).toBeGreaterThan(500_000); // several Trino batches
      for (const coding of CONTENT_CODINGS) {
        const r = await get(url, { 'accept-encoding': coding });
        expect([r.status, r.complete, r.headers['content-encoding'], varyOf(r)]).toEqual([
          200,
          true,
          coding,
          [...WIRE_VARY].sort(),
        ]);
        expect(r.body.length).toBeLessThan(plain.body.length / 2);
        const decoded = await decode(coding, r.body);
        expect(masked(decoded, r.headers).equals(masked(plain.body, plain.headers)), `${format} ${coding}`).toBe(true);
      }
    },
    120_000,
  );

  it.each(CONTENT_CODINGS)(
    '%s: curl --compressed and urllib3 (under requests) read the same bytes',
    async (coding) => {
      const url = complete + completePath('ndjson');
      const plain = await plainOf(url);
      expect(plain.status).toBe(200);
      const file = join(dir, `curl-${coding}`);
      await run('curl', ['-sS', '--fail', '--compressed', '-H', `Accept-Encoding: ${coding}`, '-o', file, url]);
      expect(readFileSync(file).equals(plain.body)).toBe(true);
      const script =
        'import sys, urllib3\n' +
        'r = urllib3.request("GET", sys.argv[1], headers={"Accept-Encoding": sys.argv[2]})\n' +
        'assert r.headers["Content-Encoding"] == sys.argv[2], r.headers\n' +
        'sys.stdout.buffer.write(r.data)\n';
      const { stdout } = await run('python3', ['-c', script, url, coding], { encoding: 'buffer', maxBuffer: 1 << 30 });
      expect(stdout.equals(plain.body)).toBe(true);
    },
    120_000,
  );
});

describe('a cut read, compressed, is still visibly cut', () => {
  const cases = WIRE_FORMATS.flatMap((format) => CONTENT_CODINGS.map((coding) => [format, coding] as const));
  it.each(cases)(
    '%s under %s: aborted transfer, no complete stream, the in-body cut mark',
    async (format, coding) => {
      const r = await get(cut + cutReadPath(format), { 'accept-encoding': coding });
      expect([r.status, r.headers['content-encoding']]).toEqual([200, coding]);
      expect(r.complete).toBe(false); // the chunked body was never terminated
      const { strictFailed, prefix } = await decodeCut(coding, r.body);
      expect(strictFailed).toBe(true);
      expect(prefix.length).toBeGreaterThan(100_000); // the first day's rows arrived, decodable
      const text = prefix.toString('latin1');
      const last = text.trimEnd().split(/\r?\n/).pop() ?? '';
      if (format === 'json') {
        expect(JSON.parse(prefix.toString())).toMatchObject({ complete: false, error: { code: 'TG_BAD_VALUE' } });
      }
      if (format === 'ndjson') expect(JSON.parse(last)).toMatchObject({ error: { code: 'TG_BAD_VALUE' } });
      if (format === 'csv') expect(last.startsWith('#error ')).toBe(true);
      if (format === 'arrow') expect(prefix.subarray(-8).equals(ARROW_EOS)).toBe(false);
    },
    120_000,
  );

  it.each(CONTENT_CODINGS)(
    'curl --compressed fails on a cut %s read',
    async (coding) => {
      const file = join(dir, `cut-${coding}`);
      const code = await run('curl', [
        '-sS',
        '--compressed',
        '-H',
        `Accept-Encoding: ${coding}`,
        '-o',
        file,
        cut + cutReadPath('ndjson'),
      ]).then(
        () => 0,
        (err: { code: number }) => err.code,
      );
      expect(code).not.toBe(0);
    },
    120_000,
  );
});

describe('negotiation', () => {
  const SMALL = HOUR.replace('limit=all', 'limit=5');
  it.each<[string | undefined, string | undefined]>([
    [undefined, undefined],
    ['gzip, deflate, br, zstd', 'zstd'],
    ['gzip, deflate, br', 'br'],
    ['br;q=0.5, gzip', 'gzip'],
    ['zstd;q=0, *', 'br'],
    ['identity', undefined],
    ['compress, deflate', undefined],
    ['*;q=0', undefined],
    ['identity;q=0', undefined],
    ['gzip;q=0, identity;q=0', undefined],
  ])('Accept-Encoding: %j -> %j, always 200', async (accept, coding) => {
    const r = await get(`${complete}${SMALL}&format=ndjson`, accept === undefined ? {} : { 'accept-encoding': accept });
    expect([r.status, r.headers['content-encoding'], varyOf(r)]).toEqual([200, coding, [...WIRE_VARY].sort()]);
    const body = coding ? await decode(coding as ContentCoding, r.body) : r.body;
    expect(body.toString().split('\n')).toHaveLength(5 + 2); // five rows, the empty line, and '' after it
  });

  it('Parquet is compressed by its columns, never on the wire', async () => {
    const r = await get(`${complete}${HOUR}&format=parquet`, { 'accept-encoding': 'gzip, br, zstd' });
    // Settled, so it varies on the media type and the credentials, but not on Accept-Encoding.
    expect([r.status, r.headers['content-encoding'], varyOf(r)]).toEqual([200, undefined, [...CACHED_VARY].sort()]);
    expect(r.body.subarray(0, 4).toString()).toBe('PAR1');
  });

  it('an error before the body is an uncompressed error body, whether planning or Trino failed', async () => {
    const bad = await get(`${complete}${HOUR}&format=ndjson&key=zz.1`, { 'accept-encoding': 'gzip' });
    expect([bad.status, bad.headers['content-encoding']]).toEqual([400, undefined]);
    expect(JSON.parse(bad.body.toString())).toMatchObject({ error: { code: 'TG_BAD_OPERATOR' } });
    // The cut topic fails on its first row of the second day: Trino fails before any byte of the body.
    const day2 = '/v1/topics/orders/events?since=2026-11-02T00:00:00Z&until=2026-11-02T01:00:00Z&limit=all';
    for (const coding of CONTENT_CODINGS) {
      const r = await get(`${cut}${day2}&format=ndjson`, { 'accept-encoding': coding });
      expect([r.status, r.complete, r.headers['content-encoding']]).toEqual([400, true, undefined]);
      expect(JSON.parse(r.body.toString())).toMatchObject({ error: { code: 'TG_BAD_VALUE' } });
    }
  });

  it('compression= names a Parquet codec: a 400 naming it with another format or an unknown codec', async () => {
    for (const query of ['format=ndjson&compression=zstd', 'format=parquet&compression=lz4']) {
      const r = await get(`${complete}${HOUR}&${query}`);
      expect(r.status, query).toBe(400);
      const { error } = JSON.parse(r.body.toString());
      expect(error.code).toBe('TG_BAD_REQUEST');
      expect(error.message).toContain('compression');
    }
    const ok = await get(`${complete}${HOUR}&compression=none`, { accept: 'application/vnd.apache.parquet' });
    expect(ok.status).toBe(200);
  });

  it('TOPICGATE_COMPRESSION=off: nothing compressed, no Vary on Accept-Encoding', async () => {
    for (const format of WIRE_FORMATS) {
      const r = await off.inject({
        url: `${SMALL}&format=${format}`,
        headers: { 'accept-encoding': 'gzip, br, zstd' },
      });
      // Header lines as inject keeps them: a header set twice is an array (two lines).
      const rawHeaders = Object.entries(r.headers).flatMap(([k, v]) =>
        (Array.isArray(v) ? v : [v]).flatMap((x) => [k, String(x)]),
      );
      expect([r.statusCode, r.headers['content-encoding'], varyOf({ rawHeaders })]).toEqual([
        200,
        undefined,
        [...CACHED_VARY].sort(),
      ]);
    }
  });
});
