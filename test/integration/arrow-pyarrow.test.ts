/**
 * Arrow from the real gateway over the real Trino, read back by pyarrow (test/pyarrow/read_arrow.py): the same rows
 * as the JSON format of the same request, with the Arrow types API.md promises (Int64, Decimal128 with its scale,
 * UTC millisecond timestamps, Binary bytes, headers as list<struct<key: string, value: binary>>), and the bytes
 * exactly as Trino holds them.
 */
import { isUtf8 } from 'node:buffer';
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseLosslessJson } from '../../src/core/lossless-json.js';
import { sql, testApp } from '../helpers.js';

const hasPyarrow = spawnSync('python3', ['-c', 'import pyarrow'], { stdio: 'ignore' }).status === 0;
// Never skipped: without pyarrow the suite fails, saying how to get it (.ci/run installs it).
if (!hasPyarrow) throw new Error('pyarrow missing: pip install -r test/pyarrow/requirements.txt');

type PyRow = Record<string, unknown>;
interface PyTable {
  schema: { name: string; type: string }[];
  rows: PyRow[];
  eos: boolean;
}

let app: FastifyInstance;
const dir = mkdtempSync(join(tmpdir(), 'topicgate-arrow-'));
beforeAll(async () => {
  app = await testApp();
});
afterAll(async () => {
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function arrowOf(url: string): Promise<PyTable> {
  const res = await app.inject(url);
  expect(res.statusCode, res.body).toBe(200);
  expect(res.headers['content-type']).toBe('application/vnd.apache.arrow.stream');
  const file = join(dir, `${Math.random().toString(36).slice(2)}.arrow`);
  writeFileSync(file, res.rawPayload);
  // Asynchronously: a synchronous child would hold the event loop the app under test shares (see parquet-pyarrow).
  const { stdout } = await execFileAsync('python3', ['test/pyarrow/read_arrow.py', file], { encoding: 'utf8' });
  return JSON.parse(stdout) as PyTable;
}

/** The JSON format of the same request: the parsed rows (BIGINT digits kept) and each row's raw line. */
async function jsonOf(url: string): Promise<{ rows: Record<string, unknown>[]; lines: string[] }> {
  const res = await app.inject(url.replace('format=arrow', 'format=json'));
  expect(res.statusCode, res.body).toBe(200);
  const body = parseLosslessJson(res.body) as { rows: Record<string, unknown>[]; complete: boolean };
  expect(body.complete).toBe(true);
  // The JSON encoder writes one row object per line, between the `"rows":[` line and the `],"next"` line.
  const lines = res.body.split('\n').slice(1, -2);
  expect(lines).toHaveLength(body.rows.length);
  return { rows: body.rows, lines };
}

/** A timestamp of the JSON format (`...Z`) as read_arrow.py prints an Arrow ms timestamp. */
const msOf = (iso: unknown) => (iso === null ? null : `${Date.parse(iso as string)} ms`);

/**
 * A varbinary as the JSON format shows it (text, `\x` hex, or embedded JSON) against the bytes pyarrow read (hex).
 * Embedded JSON is compared as parsed JSON (digits kept); text and hex byte for byte.
 */
function expectSameBytes(arrowHex: unknown, json: unknown, where: string): void {
  if (json === null) return void expect(arrowHex, where).toBeNull();
  expect(typeof arrowHex, where).toBe('string');
  const bytes = Buffer.from(arrowHex as string, 'hex');
  if (typeof json === 'string') {
    const hex = json.startsWith('\\x') ? json.slice(2) : Buffer.from(json, 'utf8').toString('hex');
    return void expect(arrowHex, where).toBe(hex);
  }
  expect(parseLosslessJson(bytes.toString('utf8')), where).toEqual(json);
}

describe('Arrow read by pyarrow, from the real gateway', () => {
  it('an expansion table: int64, decimal128(12, 2), string, timestamp[ms, tz=UTC]; same rows as JSON', async () => {
    const url =
      '/v1/topics/orders_expanded/events?format=arrow&limit=50&select=order_id,amount,customer__name,created_at,trace_id';
    const [arrow, json] = await Promise.all([arrowOf(url), jsonOf(url)]);
    expect(arrow.schema).toEqual([
      { name: 'order_id', type: 'int64' },
      { name: 'amount', type: 'decimal128(12, 2)' },
      { name: 'customer__name', type: 'string' },
      { name: 'created_at', type: 'timestamp[ms, tz=UTC]' },
      { name: 'trace_id', type: 'int64' },
    ]);
    expect(arrow.eos).toBe(true);
    expect(arrow.rows).toHaveLength(50);
    // The decimal's exact text as the JSON line carries it (a JSON number written with its scale: 19.50, not 19.5).
    const amountText = (line: string) => /"amount":(null|-?\d+\.\d+)[,}]/.exec(line)![1]!;
    const expected = json.rows.map((r, i) => ({
      order_id: r.order_id === null ? null : String(r.order_id),
      amount: amountText(json.lines[i]!) === 'null' ? null : amountText(json.lines[i]!),
      customer__name: r.customer__name,
      created_at: msOf(r.created_at),
      trace_id: r.trace_id === null ? null : String(r.trace_id),
    }));
    expect(arrow.rows).toEqual(expected);
    // Values beyond 2^53 survived every hop, and the data holds the hard cases this test is about.
    expect(arrow.rows[0]).toMatchObject({ order_id: '1000000', trace_id: '9007199254740993' });
    expect(arrow.rows.some((r) => r.amount === null)).toBe(true);
    expect(arrow.rows.every((r) => r.amount === null || /^\d+\.\d{2}$/.test(r.amount as string))).toBe(true);
    expect(arrow.rows.some((r) => /[^\x00-\x7f]/.test(String(r.customer__name)))).toBe(true);
  });

  it('a topic table: binary key and value, UTC ms timestamps, headers list<struct<key: string, value: binary>>', async () => {
    const url = '/v1/topics/orders/events?format=arrow&limit=50';
    const [arrow, json] = await Promise.all([arrowOf(url), jsonOf(url)]);
    expect(arrow.schema).toEqual([
      { name: 'key', type: 'binary' },
      { name: 'value', type: 'binary' },
      { name: 'timestamp_broker', type: 'timestamp[ms, tz=UTC]' },
      { name: 'timestamp_producer', type: 'timestamp[ms, tz=UTC]' },
      { name: 'headers', type: 'list<item: struct<key: string, value: binary>>' },
    ]);
    expect(arrow.eos).toBe(true);
    expect(arrow.rows).toHaveLength(50);
    expect(json.rows).toHaveLength(50);
    arrow.rows.forEach((a, i) => {
      const j = json.rows[i]!;
      expectSameBytes(a.key, j.key, `row ${i} key`);
      expectSameBytes(a.value, j.value, `row ${i} value`);
      expect([a.timestamp_broker, a.timestamp_producer], `row ${i} times`).toEqual([
        msOf(j.timestamp_broker),
        msOf(j.timestamp_producer),
      ]);
      const headers = j.headers as { key: string; value: unknown }[];
      expect((a.headers as unknown[]).length, `row ${i} headers`).toBe(headers.length);
      (a.headers as { key: string; value: string }[]).forEach((h, k) => {
        expect(h.key).toBe(headers[k]!.key);
        expectSameBytes(h.value, headers[k]!.value, `row ${i} header ${k}`);
      });
    });
    // The first page holds the hard cases: a NULL key, bytes that are not UTF-8 in key, value and a header value,
    // a value that is not JSON, an event without headers.
    const rows = arrow.rows as { key: string | null; value: string; headers: { value: string }[] }[];
    const text = (hex: string) => Buffer.from(hex, 'hex');
    expect(rows.some((r) => r.key === null)).toBe(true);
    expect(rows.some((r) => r.key !== null && !isUtf8(text(r.key)))).toBe(true);
    expect(rows.some((r) => r.value.startsWith('c328'))).toBe(true);
    expect(rows.some((r) => text(r.value).toString().startsWith('not json'))).toBe(true);
    expect(rows.some((r) => r.headers.length === 0)).toBe(true);
    expect(rows.some((r) => r.headers.some((h) => h.value === 'ff00fe'))).toBe(true);
  });

  it('the topic table bytes are exactly the bytes in Trino', async () => {
    const arrow = await arrowOf('/v1/topics/orders/events?format=arrow&limit=50&select=key,value,timestamp_broker');
    // The gateway's order: broker time, then every other column (NULL keys last, Trino's default).
    const rows = await sql(
      `SELECT lower(to_hex(key)), lower(to_hex(value)), to_milliseconds(timestamp_broker - TIMESTAMP '1970-01-01 00:00:00.000') FROM orders ` +
        `ORDER BY timestamp_broker, key, value, timestamp_producer, headers LIMIT 50`,
    );
    expect(arrow.rows).toEqual(rows.map(([k, v, t]) => ({ key: k, value: v, timestamp_broker: `${String(t)} ms` })));
  });
});
