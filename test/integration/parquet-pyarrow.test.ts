/**
 * Parquet from the real gateway over the real Trino, read back by pyarrow (test/pyarrow/read_parquet.py): every
 * demo topic in full (`limit=all`), on events GET, query POST and cursor reads, with the Arrow output's types
 * (Binary, Int64, Decimal128 with its scale, UTC millisecond timestamps, headers as list<struct<key: string,
 * value: binary>>) and every value exactly as Trino holds it: non-UTF-8 bytes, BIGINT beyond 2^53, decimals,
 * NULLs, nested headers.
 */
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql, testApp } from '../helpers.js';

const hasPyarrow = spawnSync('python3', ['-c', 'import pyarrow'], { stdio: 'ignore' }).status === 0;
// Never skipped: without pyarrow the suite fails, saying how to get it (.ci/run installs it).
if (!hasPyarrow) throw new Error('pyarrow missing: pip install -r test/pyarrow/requirements.txt');

type Row = Record<string, unknown>;
interface ParquetRead {
  complete: boolean;
  schema: { name: string; type: string }[];
  rows: Row[];
  row_groups: number;
  codecs: string[];
  metadata: Record<string, string>;
}

let app: FastifyInstance;
const dir = mkdtempSync(join(tmpdir(), 'topicgate-parquet-'));
beforeAll(async () => {
  // A page may hold a whole demo table: the expansion table has no broker time, so no `limit=all` there.
  app = await testApp({ TOPICGATE_MAX_LIMIT: '20000' });
});
afterAll(async () => {
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

const WINDOW = 'since=2026-01-01T00:00:00Z&until=2027-06-01T00:00:00Z';
const TOPIC_SCHEMA = [
  { name: 'key', type: 'binary' },
  { name: 'value', type: 'binary' },
  { name: 'timestamp_broker', type: 'timestamp[ms, tz=UTC]' },
  { name: 'timestamp_producer', type: 'timestamp[ms, tz=UTC]' },
  { name: 'headers', type: 'list<item: struct<key: string, value: binary>>' },
];

async function parquetOf(request: string | InjectOptions): Promise<ParquetRead & { headers: Row }> {
  const res = await app.inject(request);
  expect(res.statusCode, res.body.slice(0, 500)).toBe(200);
  expect(res.headers['content-type']).toBe('application/vnd.apache.parquet');
  const file = join(dir, `${Math.random().toString(36).slice(2)}.parquet`);
  writeFileSync(file, res.rawPayload);
  // Asynchronously: a synchronous child would hold this process's event loop, which the app under test (in the
  // same process) would rightly take for an overloaded gateway.
  const { stdout: out } = await execFileAsync('python3', ['test/pyarrow/read_parquet.py', file], {
    encoding: 'utf8',
    maxBuffer: 1 << 30,
  });
  const read = JSON.parse(out) as ParquetRead;
  expect(read.complete).toBe(true);
  expect(read.metadata['topicgate.query_id']).toBe(res.headers['x-trino-query-id']);
  return { ...read, headers: res.headers };
}

const ms = `to_milliseconds(%s - TIMESTAMP '1970-01-01 00:00:00.000')`;
const msOf = (column: string) => ms.replace('%s', column);
const text = (v: unknown) => (v === null ? null : String(v));

/** A topic table as Trino holds it, in read_parquet.py's notation: bytes as hex, timestamps as "<n> ms". */
async function trinoTopic(topic: string): Promise<Row[]> {
  const rows = await sql(
    `SELECT lower(to_hex(key)), lower(to_hex(value)), ${msOf('timestamp_broker')}, ${msOf('timestamp_producer')}, ` +
      `transform(headers, h -> ARRAY[h.key, lower(to_hex(h.value))]) FROM ${topic}`,
  );
  return rows.map(([key, value, broker, producer, headers]) => ({
    key,
    value,
    timestamp_broker: `${text(broker)} ms`,
    timestamp_producer: producer === null ? null : `${text(producer)} ms`,
    headers: headers === null ? null : (headers as string[][]).map(([k, v]) => ({ key: k, value: v ?? null })),
  }));
}

/** Rows as a sorted list of their JSON (a multiset: the order is checked separately). */
const canon = (rows: Row[]) => rows.map((r) => JSON.stringify(r)).sort();

function expectBrokerOrder(rows: Row[]): void {
  const times = rows.map((r) => Number(String(r.timestamp_broker).split(' ')[0]));
  for (let i = 1; i < times.length; i++) if (times[i]! < times[i - 1]!) expect.fail(`row ${i} out of order`);
}

describe('Parquet read by pyarrow, from the real gateway', () => {
  it.each(['orders', 'clicks', 's3_events'])(
    'the whole %s topic (limit=all): types of the Arrow output, every row exactly as in Trino',
    async (topic) => {
      const [parquet, trino] = await Promise.all([
        parquetOf(`/v1/topics/${topic}/events?format=parquet&limit=all&${WINDOW}`),
        trinoTopic(topic),
      ]);
      expect(parquet.schema).toEqual(TOPIC_SCHEMA);
      expect(parquet.rows).toHaveLength(trino.length);
      expect(canon(parquet.rows)).toEqual(canon(trino));
      expectBrokerOrder(parquet.rows);
      if (topic !== 'orders') return;
      // The hard cases are there: a NULL key, bytes that are not UTF-8 in key, value and a header value,
      // a value that is not JSON, an event without headers.
      const rows = parquet.rows as { key: string | null; value: string; headers: { value: string }[] }[];
      const utf8 = (hex: string) => Buffer.from(hex, 'hex').toString('utf8');
      expect(rows.some((r) => r.key === null)).toBe(true);
      expect(rows.some((r) => r.key !== null && utf8(r.key).includes('\uFFFD'))).toBe(true);
      expect(rows.some((r) => r.value.startsWith('c328'))).toBe(true);
      expect(rows.some((r) => utf8(r.value).startsWith('not json'))).toBe(true);
      expect(rows.some((r) => r.headers.length === 0)).toBe(true);
      expect(rows.some((r) => r.headers.some((h) => h.value === 'ff00fe'))).toBe(true);
    },
  );

  it('an expansion table (POST query): int64 beyond 2^53, decimal128(12, 2) with its scale, NULLs', async () => {
    const parquet = await parquetOf({
      method: 'POST',
      url: '/v1/topics/orders_expanded/query',
      payload: { limit: 20_000, format: 'parquet' },
    });
    const trino = await sql(
      `SELECT CAST(order_id AS varchar), status, CAST(amount AS varchar), currency, customer__name, ` +
        `customer__address__country, ${msOf('created_at')}, CAST(trace_id AS varchar) FROM orders_expanded`,
    );
    expect(parquet.schema).toEqual([
      { name: 'order_id', type: 'int64' },
      { name: 'status', type: 'string' },
      { name: 'amount', type: 'decimal128(12, 2)' },
      { name: 'currency', type: 'string' },
      { name: 'customer__name', type: 'string' },
      { name: 'customer__address__country', type: 'string' },
      { name: 'created_at', type: 'timestamp[ms, tz=UTC]' },
      { name: 'trace_id', type: 'int64' },
    ]);
    const expected = trino.map(([id, status, amount, currency, name, country, created, trace]) => ({
      order_id: id,
      status,
      amount,
      currency,
      customer__name: name,
      customer__address__country: country,
      created_at: created === null ? null : `${text(created)} ms`,
      trace_id: trace,
    }));
    expect(parquet.rows).toHaveLength(expected.length);
    expect(canon(parquet.rows)).toEqual(canon(expected));
    expect(parquet.rows.some((r) => r.amount === null)).toBe(true);
    expect(parquet.rows.some((r) => r.trace_id === '9007199254740993')).toBe(true);
    expect(parquet.rows.every((r) => r.amount === null || /^\d+\.\d{2}$/.test(r.amount as string))).toBe(true);
  });

  it('a cursor batch (limit=all) is the whole topic, and its rows are the batch header says', async () => {
    const put = await app.inject({
      method: 'PUT',
      url: '/v1/cursors/parquet-clicks',
      payload: { topic: 'clicks', start: 'earliest', settle: '30s' },
    });
    expect([200, 201]).toContain(put.statusCode);
    const [parquet, trino] = await Promise.all([
      parquetOf({ method: 'POST', url: '/v1/cursors/parquet-clicks/read?format=parquet&limit=all' }),
      trinoTopic('clicks'),
    ]);
    expect(parquet.schema).toEqual(TOPIC_SCHEMA);
    expect(Number(parquet.headers['topicgate-batch-rows'])).toBe(parquet.rows.length);
    expect(canon(parquet.rows)).toEqual(canon(trino));
    expectBrokerOrder(parquet.rows);
  });

  it.each([
    ['', 'ZSTD'],
    ['&compression=zstd', 'ZSTD'],
    ['&compression=snappy', 'SNAPPY'],
    ['&compression=none', 'UNCOMPRESSED'],
  ])('column codec %j (API.md "Compression on the wire"): %s, every row exactly as in Trino', async (param, codec) => {
    const [parquet, trino] = await Promise.all([
      parquetOf(`/v1/topics/orders/events?format=parquet&limit=all&${WINDOW}${param}`),
      trinoTopic('orders'),
    ]);
    expect(parquet.codecs).toEqual([codec]);
    expect(canon(parquet.rows)).toEqual(canon(trino));
  });

  it('a page (Accept: application/vnd.apache.parquet) links the next one; the pages add up to the JSON pages', async () => {
    const url = `/v1/topics/clicks/events?limit=700&${WINDOW}`;
    const first = await parquetOf({ url, headers: { accept: 'application/vnd.apache.parquet' } });
    expect(first.rows).toHaveLength(700);
    expect(String(first.headers.link)).toMatch(/^<.*>; rel="next"$/);
    const json = (await app.inject(`${url}&format=json`)).json() as { rows: { timestamp_broker: string }[] };
    expect(first.rows.map((r) => r.timestamp_broker)).toEqual(
      json.rows.map((r) => `${Date.parse(r.timestamp_broker)} ms`),
    );
    const next = String(first.headers.link).slice(1, String(first.headers.link).indexOf('>'));
    const second = await parquetOf({ url: next, headers: { accept: 'application/vnd.apache.parquet' } });
    expect(second.rows).toHaveLength(700);
  });
});
