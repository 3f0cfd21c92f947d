/**
 * Avro payloads through a real Schema Registry (Apicurio, started by the global setup) and the real Trino (issue
 * 13): the demo topic `payments_avro` decoded in every format (Arrow and Parquet read back by pyarrow), schema
 * evolution across its two versions (latest and pinned reader), unframed and unknown-id events kept with their
 * bytes, decode=false, and a registry that is down (502 TG_SCHEMA_REGISTRY), then back (recovery, no restart).
 * Expected values come from the generator (scripts/demo-avro.ts), not from the gateway.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { stringify } from 'yaml';
import { parseLosslessJson } from '../../src/core/lossless-json.js';
import { DEFAULT_DEMO_EVENTS, PG_CATALOG, PG_SCHEMA } from '../../scripts/load-demo.js';
import { demoAvroEvent, registerDemoSchemas, UNKNOWN_SCHEMA_ID, type DemoSchemaIds } from '../../scripts/demo-avro.js';
import { testApp } from '../helpers.js';

const execFileAsync = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'topicgate-avro-'));
const registryUrl = inject('registryUrl');
const TOPICS = { payments_avro: { key: { format: 'avro' }, value: { format: 'avro' } } };
const BASE = Date.UTC(2026, 10, 1);
/** Events i in [from, to): their broker times are BASE + 30 s * i. */
const window = (from: number, to: number) =>
  `since=${new Date(BASE + from * 30_000).toISOString()}&until=${new Date(BASE + to * 30_000).toISOString()}`;

function configFile(name: string, doc: object): string {
  const file = join(dir, name);
  writeFileSync(file, stringify(doc));
  return file;
}

let app: FastifyInstance;
let ids: DemoSchemaIds;
beforeAll(async () => {
  ids = await registerDemoSchemas(registryUrl); // idempotent: the ids the demo data was framed with
  app = await testApp({
    TOPICGATE_CONFIG: configFile('a.yaml', { schemaRegistry: { url: registryUrl }, topics: TOPICS }),
  });
});
afterAll(async () => {
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Event i as the gateway must show it in JSON (from the generator's own values). */
function expected(i: number) {
  const cents = (((i * 7919) % 50_000) + 99) * (i % 13 === 0 ? -1 : 1);
  const abs = Math.abs(cents);
  const created = new Date(BASE + i * 30_000 - 1500).toISOString();
  return {
    payment_id: (9007199254740993n + BigInt(i)).toString(),
    amount: `${cents < 0 ? '-' : ''}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`,
    created_at: created,
    settled_at: i % 4 === 0 ? null : `${created.slice(0, 23)}${String(i % 1000).padStart(3, '0')}Z`,
    booking_date: new Date(BASE + i * 30_000).toISOString().slice(0, 10),
    status: ['AUTHORIZED', 'CAPTURED', 'REFUNDED'][i % 3],
    note: i % 3 === 0 ? null : `payment ${i} ✓`,
    reference: i % 2 === 0 ? { string: `ref-${i}`, long: null } : { string: null, long: i * 1_000_000_007 },
    signature: `\\xff00${(i & 0xff).toString(16).padStart(2, '0')}fe`,
    // Bytes that happen to be valid UTF-8 are hex too (Avro bytes and fixed always are, in text formats).
    digest: `\\xdead${((i >> 8) & 0xff).toString(16).padStart(2, '0')}${(i & 0xff).toString(16).padStart(2, '0')}`,
    customer: { id: `c${i % 100}`, country: ['DE', 'FR', 'US', 'JP', 'BR'][i % 5] },
  };
}

async function ndjson(url: string): Promise<{ rows: Record<string, unknown>[]; lines: string[] }> {
  const res = await app.inject(url);
  expect(res.statusCode, res.body).toBe(200);
  const lines = res.body.split('\n');
  expect(lines.at(-1)).toBe(''); // complete
  const rows = lines.filter((l) => l !== '').map((l) => parseLosslessJson(l) as Record<string, unknown>);
  return { rows, lines: lines.filter((l) => l !== '') };
}

describe('payments_avro decoded (NDJSON and JSON)', () => {
  it('every Avro type and logical type, losslessly; v1 events resolved into the latest reader', async () => {
    const { rows, lines } = await ndjson(`/v1/topics/payments_avro/events?${window(0, 40)}&limit=100&format=ndjson`);
    expect(rows).toHaveLength(40);
    for (let i = 0; i < 40; i++) {
      const row = rows[i] as Record<string, unknown>;
      expect(row.key).toBe(i % 50 === 0 ? null : `pay-${i}`);
      if (i % 97 === 5 || i % 101 === 7) continue;
      const e = expected(i);
      const v = row.value as Record<string, unknown>;
      expect(v).toMatchObject({ ...e, amount: Number(e.amount), channel: 'web' });
      expect(String(v.payment_id)).toBe(e.payment_id); // beyond 2^53, every digit
      expect(lines[i]).toContain(`"amount":${e.amount},`); // the scale kept in the text
      expect(row).toMatchObject({
        value_schema_id: ids.v1,
        value_raw: null,
        value_error: null,
        key_schema_id: i % 50 ? ids.key : null,
      });
    }
  });

  it('unframed and unknown-id values keep their bytes and say why; the query does not fail', async () => {
    const { rows } = await ndjson(`/v1/topics/payments_avro/events?${window(5, 8)}&format=ndjson`);
    expect(rows[0]).toMatchObject({
      value: null,
      value_schema_id: null,
      value_raw: 'not avro: payment 5',
      value_error: 'unframed',
    });
    const unknown = demoAvroEvent(7, DEFAULT_DEMO_EVENTS, ids).value;
    expect(rows[2]).toMatchObject({
      value: null,
      value_schema_id: UNKNOWN_SCHEMA_ID,
      value_raw: `\\x${unknown.toString('hex')}`,
      value_error: 'unknown-schema-id',
    });
    expect(rows[1]?.value).not.toBeNull();
  });

  it('two writer versions in one response resolve into one reader; a pinned reader drops the new field', async () => {
    const half = DEFAULT_DEMO_EVENTS / 2;
    const url = `/v1/topics/payments_avro/events?${window(half - 2, half + 2)}&format=ndjson`;
    const { rows } = await ndjson(url);
    expect(rows.map((r) => r.value_schema_id)).toEqual([ids.v1, ids.v1, ids.v2, ids.v2]);
    expect(rows.map((r) => (r.value as { channel: string }).channel)).toEqual(['web', 'web', 'web', 'app']);
    const pinned = await testApp({
      TOPICGATE_CONFIG: configFile('pinned.yaml', {
        schemaRegistry: { url: registryUrl },
        topics: { payments_avro: { value: { format: 'avro', readerVersion: 1 } } },
      }),
    });
    try {
      const res = await pinned.inject(url);
      const pinnedRows = res.body
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l));
      expect(pinnedRows.map((r: { value: object }) => 'channel' in r.value)).toEqual([false, false, false, false]);
      expect(pinnedRows[3].value.customer).toEqual(expected(half + 1).customer);
      // The key was not declared here: its stored bytes (a Confluent frame around an Avro string; valid UTF-8).
      expect(pinnedRows[0].key).toBe(demoAvroEvent(half - 2, DEFAULT_DEMO_EVENTS, ids).key?.toString('utf8'));
    } finally {
      await pinned.close();
    }
  });

  it('JSON has the same rows; decode=false returns the stored bytes', async () => {
    const url = `/v1/topics/payments_avro/events?${window(1, 4)}`;
    const json = await app.inject(`${url}&format=json`);
    const body = parseLosslessJson(json.body) as { rows: Record<string, unknown>[]; complete: boolean };
    expect(body.complete).toBe(true);
    expect(body.rows).toEqual((await ndjson(`${url}&format=ndjson`)).rows);
    const raw = await ndjson(`${url}&format=ndjson&decode=false`);
    const stored = demoAvroEvent(1, DEFAULT_DEMO_EVENTS, ids);
    expect(raw.rows[0]).toEqual(expect.objectContaining({ value: `\\x${stored.value.toString('hex')}` }));
    expect(raw.rows[0]).not.toHaveProperty('value_schema_id');
  });
});

describe('payments_avro in CSV, Arrow and Parquet', () => {
  it('CSV flattens records by path', async () => {
    const res = await app.inject(`/v1/topics/payments_avro/events?${window(1, 3)}&format=csv`);
    const [header, first] = res.body.split('\r\n');
    const cols = (header ?? '').split(',');
    expect(cols).toEqual(
      expect.arrayContaining([
        'value.payment_id',
        'value.amount',
        'value.customer.country',
        'value.items',
        'value.reference.long',
      ]),
    );
    const cells = (first ?? '').split(',');
    const e = expected(1);
    expect(cells[cols.indexOf('value.payment_id')]).toBe(e.payment_id);
    expect(cells[cols.indexOf('value.amount')]).toBe(e.amount);
    expect(cells[cols.indexOf('value.customer.country')]).toBe('FR');
    expect(cells[cols.indexOf('value.settled_at')]).toBe(e.settled_at);
  });

  it.each([
    ['arrow', 'read_arrow.py'],
    ['parquet', 'read_parquet.py'],
  ])('%s carries typed columns from the Avro schema (read back by pyarrow)', async (format, reader) => {
    const res = await app.inject(`/v1/topics/payments_avro/events?${window(1, 3)}&format=${format}`);
    expect(res.statusCode, res.body).toBe(200);
    const file = join(dir, `p.${format}`);
    writeFileSync(file, res.rawPayload);
    const { stdout } = await execFileAsync('python3', [`test/pyarrow/${reader}`, file], { encoding: 'utf8' });
    const t = JSON.parse(stdout) as { schema: { name: string; type: string }[]; rows: Record<string, unknown>[] };
    const type = t.schema.find((c) => c.name === 'value')?.type ?? '';
    for (const part of [
      'payment_id: int64',
      'amount: decimal128(12, 2)',
      'created_at: timestamp[ms, tz=UTC]',
      'settled_at: timestamp[us, tz=UTC]',
      'booking_date: date32[day]',
      'signature: binary',
      'customer: struct<id: string, country: string>',
      'items: list<',
      'attributes: map<string, string',
      // An enum: a dictionary of its symbols (sent once, before the first batch).
      'status: dictionary<values=string, indices=int32',
    ]) {
      expect(type).toContain(part);
    }
    const v = t.rows[0]?.value as Record<string, unknown>;
    const e = expected(1);
    expect(v).toMatchObject({
      payment_id: e.payment_id,
      amount: e.amount,
      signature: 'ff0001fe',
      booking_date: '2026-11-01',
      status: e.status,
    });
    expect(t.rows.map((r) => (r.value as { status: string } | null)?.status)).toEqual(
      [1, 2].map((i) => expected(i).status),
    );
    expect(v.settled_at).toBe('2026-11-01 00:00:28.500001+00:00');
  });
});

describe('discovery', () => {
  it('GET /v1/topics/{topic} names the decoding, the subject, the reader schema and the columns a read returns', async () => {
    const res = await app.inject('/v1/topics/payments_avro');
    expect(res.statusCode, res.body).toBe(200);
    const { payloads } = res.json();
    expect(payloads.key).toMatchObject({
      format: 'avro',
      subject: 'payments_avro-key',
      readerVersion: 'latest',
      reader: { version: 1, id: ids.key, schema: 'string' },
      columns: [
        { name: 'key', type: 'varchar' },
        { name: 'key_schema_id' },
        { name: 'key_raw' },
        { name: 'key_error' },
      ],
    });
    expect(payloads.value).toMatchObject({ subject: 'payments_avro-value', reader: { version: 2, id: ids.v2 } });
    expect(payloads.value.reader.schema.fields.map((f: { name: string }) => f.name)).toContain('channel');
    expect(payloads.value.columns[0].type).toMatch(/^row\(payment_id bigint, amount decimal\(12,2\), /);
    expect((await app.inject('/v1/topics/orders')).json()).not.toHaveProperty('payloads');
  });

  it('schema inference reports the schema ids and versions found in the sample, and the unframed events', async () => {
    const half = DEFAULT_DEMO_EVENTS / 2;
    const since = new Date(BASE + (half - 100) * 30_000).toISOString();
    const until = new Date(BASE + (half + 100) * 30_000).toISOString();
    const res = await app.inject(`/v1/topics/payments_avro/schema/infer?since=${since}&until=${until}&sample=1000`);
    expect(res.statusCode, res.body).toBe(200);
    const { payload, sampled } = res.json();
    expect(sampled).toBe(200);
    // Events half-100 .. half+99: unframed where i % 97 = 5, the unknown id where i % 101 = 7.
    const range = Array.from({ length: 200 }, (_, k) => half - 100 + k);
    const unframed = range.filter((i) => i % 97 === 5).length;
    const unknown = range.filter((i) => i % 101 === 7 && i % 97 !== 5).length;
    const v1 = range.filter((i) => i < half && i % 97 !== 5 && i % 101 !== 7).length;
    expect(payload).toEqual({
      format: 'avro',
      subject: 'payments_avro-value',
      schemaIds: [
        { id: ids.v1, events: v1, version: 1 },
        { id: ids.v2, events: 200 - v1 - unknown - unframed, version: 2 },
        { id: UNKNOWN_SCHEMA_ID, events: unknown, version: null },
      ],
      unframed,
    });
  });
});

describe('filters on the Avro key', () => {
  it('key=eq and key=in find the events by their decoded key, through framed-byte literals', async () => {
    const one = await ndjson(`/v1/topics/payments_avro/events?key=eq.pay-3&since=2026-11-01T00:00:00Z&format=ndjson`);
    expect(one.rows.map((r) => r.key)).toEqual(['pay-3']);
    const two = await ndjson(
      `/v1/topics/payments_avro/events?key=in.(pay-3,pay-9001,nope)&since=2026-11-01T00:00:00Z&format=ndjson`,
    );
    expect(two.rows.map((r) => r.key)).toEqual(['pay-3', 'pay-9001']);
    const not = await ndjson(`/v1/topics/payments_avro/events?key=neq.pay-1&${window(0, 3)}&format=ndjson`);
    expect(not.rows.map((r) => r.key)).toEqual(['pay-2']); // event 0 has no key: neq excludes it, as SQL does
  });

  it('a cursor filtered on the Avro key reads exactly that key, decoded', async () => {
    const put = await app.inject({
      method: 'PUT',
      url: '/v1/cursors/avro-pay-3',
      payload: {
        topic: 'payments_avro',
        start: '2026-11-01T00:00:00Z',
        filter: { field: 'key', op: 'eq', value: 'pay-3' },
      },
    });
    expect(put.statusCode, put.body).toBeLessThan(300);
    const read = await app.inject({ method: 'POST', url: '/v1/cursors/avro-pay-3/read?limit=all&format=json' });
    expect(read.statusCode, read.body).toBe(200);
    const body = parseLosslessJson(read.body) as { rows: Record<string, unknown>[] };
    expect(body.rows.map((r) => [r.key, (r.value as { payment_id: string }).payment_id])).toEqual([
      ['pay-3', expected(3).payment_id],
    ]);
  });

  it('where nothing is decoded (a cursor filter, decode=false), a decoded field is a 400 that says so', async () => {
    const put = await app.inject({
      method: 'PUT',
      url: '/v1/cursors/avro-by-status',
      payload: {
        topic: 'payments_avro',
        start: '2026-11-01T00:00:00Z',
        filter: { field: 'value.status', op: 'eq', value: 'CAPTURED' },
      },
    });
    expect(put.statusCode, put.body).toBe(400);
    expect(put.json().error).toMatchObject({ code: 'TG_BAD_REQUEST', details: { column: 'value.status' } });
    expect(put.json().error.message).toContain('cursor filters and decode=false reads see the stored bytes');
    expect((await app.inject('/v1/cursors/avro-by-status')).statusCode).toBe(404); // nothing was created
    const raw = await app.inject(
      `/v1/topics/payments_avro/events?value.status=eq.CAPTURED&${window(0, 3)}&decode=false`,
    );
    expect(raw.statusCode).toBe(400);
    expect(raw.json().error).toMatchObject({ code: 'TG_BAD_REQUEST', details: { column: 'value.status' } });
  });

  it('an arrow path on an Avro value reads the decoded field; a path the reader schema lacks is a 400 naming it', async () => {
    // An Avro value holds no JSON: `->`/`->>` step into the decoded record (the same field as `value.status`).
    const window = `since=2026-11-01T00:00:00Z&until=2026-11-01T06:00:00Z`;
    const arrow = await app.inject(
      `/v1/topics/payments_avro/events?value->>status=eq.CAPTURED&${window}&limit=all&format=ndjson`,
    );
    const dotted = await app.inject(
      `/v1/topics/payments_avro/events?value.status=eq.CAPTURED&${window}&limit=all&format=ndjson`,
    );
    expect(arrow.statusCode, arrow.body).toBe(200);
    const rows = arrow.body
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { value: { status: string } });
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => r.value.status === 'CAPTURED')).toBe(true);
    expect(arrow.body).toBe(dotted.body);
    const unknown = await app.inject(`/v1/topics/payments_avro/events?value->>nosuch=eq.CAPTURED&${window}`);
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().error).toMatchObject({ code: 'TG_UNKNOWN_COLUMN', details: { column: 'value->nosuch' } });
  });

  it('a range on a framed key is refused, naming the column', async () => {
    const res = await app.inject(`/v1/topics/payments_avro/events?key=gt.pay-3&since=2026-11-01T00:00:00Z`);
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ code: 'TG_BAD_OPERATOR', details: { column: 'key' } });
  });

  it('the filter is the bare column against framed varbinary literals, labelled pushed (explain on the pushdown catalog)', async () => {
    const pg = await testApp({
      TOPICGATE_CATALOG: PG_CATALOG,
      TOPICGATE_SCHEMAS: PG_SCHEMA,
      TOPICGATE_CONFIG: configFile('pg.yaml', { schemaRegistry: { url: registryUrl }, topics: TOPICS }),
    });
    try {
      const res = await pg.inject(
        `/v1/topics/payments_avro/events?key=eq.pay-3&since=2026-11-01T00:00:00Z&explain=true`,
      );
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json() as { sql: string; pushdown: { pushed: string[]; residual: string[] }; plan: string };
      const literal = `X'${Buffer.concat([Buffer.from([0, 0, 0, 0, ids.key]), Buffer.from([10]), Buffer.from('pay-3')]).toString('hex')}'`;
      expect(body.sql).toContain(`"key" IN (${literal})`);
      expect(body.pushdown.pushed).toContain(`"key" IN (${literal})`);
      expect(body.pushdown.residual).toEqual([]);
      // Trino's own plan on PostgreSQL: the time range is inside the scan; the key test is the bare column against
      // the framed literal (no function on the column: what VAST pushes). The PostgreSQL connector itself pushes no
      // varbinary predicate (TRINO_NOTES.md), so there it stays in the scan's filterPredicate.
      const frame = Buffer.from(literal.slice(2, -1), 'hex').toString('base64');
      expect(body.plan).toMatch(/constraint on \[timestamp_broker\]/);
      expect(body.plan).toContain(`filterPredicate = (key = varbinary '${frame}')`);
    } finally {
      await pg.close();
    }
  });
});
