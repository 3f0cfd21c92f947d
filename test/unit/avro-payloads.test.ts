/**
 * Avro payloads without services: the Avro -> Trino shape and its lossless values, Confluent frames,
 * resolution of an older writer schema into the reader schema, the companion columns that report what was not
 * decoded, and the registry settings. The registry here is a fake port; the integration test uses a real one.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/config.js';
import { loadConfig } from '../../src/server/load-config.js';
import { avroType } from '../../src/blob/avro/avro-codec.js';
import { avroShape } from '../../src/blob/avro/avro-shape.js';
import { enumsAsText } from '../../src/core/type-family.js';
import { decimalText, timestampText } from '../../src/blob/avro/avro-values.js';
import { subjectOf } from '../../src/blob/avro/payload-decoder.js';
import { MAX_LOOKUPS, preparePayloads } from '../../src/blob/avro/payload-decoder.js';
import type { RegisteredSchema, RegistryPort, SubjectVersion } from '../../src/blob/avro/schema-registry.js';
import type { ResultStream } from '../../src/core/result-stream.js';
import { ApiError } from '../../src/core/errors.js';
import { batchLength, rowValues } from '../../src/core/text-rows.js';

const V1 = {
  type: 'record',
  name: 'Payment',
  namespace: 'demo',
  fields: [
    { name: 'id', type: 'long' },
    { name: 'amount', type: { type: 'bytes', logicalType: 'decimal', precision: 12, scale: 2 } },
    { name: 'at', type: { type: 'long', logicalType: 'timestamp-micros' } },
    { name: 'day', type: { type: 'int', logicalType: 'date' } },
    { name: 'status', type: { type: 'enum', name: 'Status', symbols: ['NEW', 'PAID'] } },
    { name: 'note', type: ['null', 'string'], default: null },
    { name: 'either', type: ['null', 'string', 'long'], default: null },
    { name: 'tags', type: { type: 'map', values: 'string' } },
    { name: 'digest', type: { type: 'fixed', name: 'Digest', size: 2 } },
  ],
};
const V2 = { ...V1, fields: [...V1.fields, { name: 'channel', type: 'string', default: 'web' }] };
/** Not resolvable into V2: `id` became a string without a default. */
const BAD = { ...V1, fields: [{ name: 'id', type: 'string' }, ...V1.fields.slice(1)] };

const event = {
  id: 9007199254740993n,
  amount: Buffer.from([0xfe, 0x0c]), // -500 -> -5.00
  at: 1793491200123456n,
  day: 20_393,
  status: 'PAID',
  note: { string: 'hi' },
  either: { long: 7n },
  tags: { a: 'b' },
  digest: Buffer.from([0xff, 0x00]),
};

const frame = (id: number, body: Buffer) => Buffer.concat([Buffer.from([0, 0, 0, 0, id]), body]);

class FakeRegistry implements RegistryPort {
  down = false;
  /** Ids asked for, in order. */
  readonly asked: number[] = [];
  readonly schemas = new Map<number, unknown>([
    [1, V1],
    [2, V2],
    [3, BAD],
  ]);
  async byId(id: number): Promise<RegisteredSchema | null> {
    this.asked.push(id);
    if (this.down) throw new ApiError('TG_SCHEMA_REGISTRY', 'down');
    const s = this.schemas.get(id);
    return s ? { id, schemaType: 'AVRO', schema: JSON.stringify(s) } : null;
  }
  isKnown(id: number): boolean {
    return this.asked.includes(id) && this.schemas.has(id);
  }
  async version(subject: string, version: number | 'latest'): Promise<SubjectVersion | null> {
    if (this.down) throw new ApiError('TG_SCHEMA_REGISTRY', 'down');
    const v = version === 'latest' ? 2 : version;
    const s = await this.byId(v);
    return s ? { ...s, subject, version: v } : null;
  }
  async versions(): Promise<number[]> {
    return [1, 2];
  }
}

function result(values: (Buffer | null)[]): ResultStream {
  return {
    queryId: 'q',
    columns: [
      { name: 'value', type: 'varbinary' },
      { name: 'n', type: 'integer' },
    ],
    batches: (async function* () {
      yield values.map((v, i) => [v === null ? null : v.toString('base64'), i]);
    })(),
  };
}

async function rowsOf(r: ResultStream): Promise<unknown[][]> {
  const out: unknown[][] = [];
  for await (const b of r.batches) out.push(...(b as unknown[][]));
  return out;
}

describe('Avro values as Trino values', () => {
  it('maps every type to a Trino type', () => {
    expect(avroShape(V1).type).toBe(
      'row(id bigint, amount decimal(12,2), at timestamp(6), day date, status enum(row("NEW" boolean, "PAID" boolean)), ' +
        'note varchar, either row(string varchar, long bigint), tags map(varchar, varchar), digest varbinary)',
    );
    // The text formats: enums are their symbols, bytes `\\x` hex; discovery names enums varchar.
    expect(avroShape(V1, { hexBytes: true }).type).toBe(
      'row(id bigint, amount decimal(12,2), at timestamp(6), day date, status varchar, note varchar, ' +
        'either row(string varchar, long bigint), tags map(varchar, varchar), digest varchar)',
    );
    expect(enumsAsText(avroShape(V1).type)).toBe(
      'row(id bigint, amount decimal(12,2), at timestamp(6), day date, status varchar, note varchar, ' +
        'either row(string varchar, long bigint), tags map(varchar, varchar), digest varbinary)',
    );
  });

  it.each([
    [[0x01, 0x00], 2, '2.56'],
    [[0xff], 2, '-0.01'],
    [[0x00], 0, '0'],
    [[0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff], 3, '2361183241434822606.847'],
  ])('decimal bytes %j scale %d -> %s', (bytes, scale, text) => {
    expect(decimalText(Buffer.from(bytes), scale)).toBe(text);
  });

  it('keeps every digit of timestamps, before and after the epoch', () => {
    expect(timestampText(1793491200123456n, 1000)).toBe('2026-11-01 00:00:00.123456');
    expect(timestampText(-1n, 1000)).toBe('1969-12-31 23:59:59.999999');
    expect(timestampText(1793491200123n, 1)).toBe('2026-11-01 00:00:00.123');
  });

  it('decodes a record losslessly: long beyond 2^53, decimal, micros, date, enum, unions, map, fixed', () => {
    const t = avroType(JSON.stringify(V1));
    const v = avroShape(V1).convert(t.fromBuffer(t.toBuffer(event)));
    expect(v).toEqual([
      '9007199254740993',
      '-5.00',
      '2026-11-01 00:00:00.123456',
      '2025-11-01',
      'PAID',
      'hi',
      [null, 7],
      { a: 'b' },
      Buffer.from([0xff, 0x00]).toString('base64'),
    ]);
  });
});

describe('decoding framed payloads in a result', () => {
  const v1 = avroType(JSON.stringify(V1));

  it('resolves an older writer into the latest reader, and reports what it cannot decode', async () => {
    const registry = new FakeRegistry();
    const d = await preparePayloads('payments_avro', { value: { format: 'avro' } }, registry);
    const body = v1.toBuffer(event);
    const r = d!.wrap(
      result([frame(1, body), frame(9, body), Buffer.from('plain'), frame(3, body), frame(1, Buffer.from([1])), null]),
    );
    expect(r.columns.map((c) => c.name)).toEqual(['value', 'value_schema_id', 'value_raw', 'value_error', 'n']);
    expect(r.columns[0]?.type).toMatch(/, channel varchar\)$/);
    const rows = await rowsOf(r);
    expect((rows[0] as unknown[][])[0]?.at(-1)).toBe('web'); // V2's default for the field V1 lacks
    expect(rows[0]?.slice(1)).toEqual([1, null, null, 0]);
    expect(rows[1]?.slice(1, 4)).toEqual([9, frame(9, body).toString('base64'), 'unknown-schema-id']);
    expect(rows[2]?.slice(0, 4)).toEqual([null, null, Buffer.from('plain').toString('base64'), 'unframed']);
    expect(rows[3]?.[3]).toMatch(/^unresolvable: /);
    expect(rows[4]?.[3]).toMatch(/^undecodable: /);
    expect(rows[5]).toEqual([null, null, null, null, 5]);
  });

  it('one response asks the registry for at most MAX_LOOKUPS ids it does not have', async () => {
    const registry = new FakeRegistry();
    await registry.byId(1);
    const d = await preparePayloads('payments_avro', { value: { format: 'avro' } }, registry);
    const framed = (id: number) => Buffer.concat([Buffer.from([0, 0, 0, id >> 8, id & 0xff]), Buffer.from([2])]);
    const ids = Array.from({ length: MAX_LOOKUPS + 44 }, (_, i) => 1000 + i);
    // A schema the client has at hand is still used after the flood.
    const rows = await rowsOf(d!.wrap(result([...ids.map(framed), frame(1, v1.toBuffer(event))])));
    expect(registry.asked.filter((id) => id >= 1000)).toEqual(ids.slice(0, MAX_LOOKUPS));
    expect(rows.slice(0, MAX_LOOKUPS).every((r) => r[3] === 'unknown-schema-id')).toBe(true);
    expect(rows.slice(MAX_LOOKUPS, ids.length).every((r) => r[3] === 'too-many-schema-ids')).toBe(true);
    // Their bytes are kept, as for any event not decoded.
    expect(rows[ids.length - 1]?.slice(1, 3)).toEqual([ids.at(-1), framed(ids.at(-1)!).toString('base64')]);
    expect(rows[ids.length]?.slice(1, 4)).toEqual([1, null, null]);
  });

  it('flattens a decoded record into one column per leaf path (CSV)', async () => {
    const d = await preparePayloads('t', { value: { format: 'avro', readerVersion: 1 } }, new FakeRegistry());
    const r = d!.wrap(result([frame(1, v1.toBuffer(event)), Buffer.from('x')]), { flatten: true });
    expect(r.columns.map((c) => c.name)).toEqual([
      ...['id', 'amount', 'at', 'day', 'status', 'note', 'either.string', 'either.long', 'tags', 'digest'].map(
        (f) => `value.${f}`,
      ),
      'value_schema_id',
      'value_raw',
      'value_error',
      'n',
    ]);
    const rows = await rowsOf(r);
    expect(rows[0]?.slice(0, 8)).toEqual([
      '9007199254740993',
      '-5.00',
      '2026-11-01 00:00:00.123456',
      '2025-11-01',
      'PAID',
      'hi',
      null,
      7,
    ]);
    expect(rows[1]?.slice(0, 10)).toEqual(new Array(10).fill(null));
    expect(rows[1]?.[12]).toBe('unframed');
  });

  it('hands a large page on in slices, every row once, in order', async () => {
    const d = await preparePayloads('t', { value: { format: 'json-sr' } }, undefined);
    const page = Array.from({ length: 2500 }, () => frame(1, Buffer.from('{}')));
    const sizes: number[] = [];
    const ns: unknown[] = [];
    for await (const b of d!.wrap(result(page)).batches) {
      sizes.push(batchLength(b));
      ns.push(...rowValues(b).map((r) => r[4]));
    }
    expect(sizes).toEqual([1024, 1024, 452]);
    expect(ns).toEqual(page.map((_, i) => i));
  });

  it('pins the reader version', async () => {
    const d = await preparePayloads('t', { value: { format: 'avro', readerVersion: 1 } }, new FakeRegistry());
    const r = d!.wrap(result([frame(1, v1.toBuffer(event))]));
    expect(r.columns[0]?.type).toBe(avroShape(V1).type);
  });

  it('json-sr strips the frame and keeps the JSON', async () => {
    const d = await preparePayloads('t', { value: { format: 'json-sr' } }, undefined);
    const rows = await rowsOf(d!.wrap(result([frame(4, Buffer.from('{"a":1}'))])));
    expect(rows[0]).toEqual([Buffer.from('{"a":1}').toString('base64'), 4, null, null, 0]);
  });

  it('a registry that fails is a 502 TG_SCHEMA_REGISTRY before the response starts', async () => {
    const registry = new FakeRegistry();
    registry.down = true;
    await expect(preparePayloads('t', { value: { format: 'avro' } }, registry)).rejects.toMatchObject({
      code: 'TG_SCHEMA_REGISTRY',
      status: 502,
    });
  });

  it('a registry failing mid-stream (a new writer id) fails the stream with TG_SCHEMA_REGISTRY', async () => {
    const registry = new FakeRegistry();
    const d = await preparePayloads('t', { value: { format: 'avro' } }, registry);
    const body = v1.toBuffer(event);
    const r = d!.wrap({
      queryId: 'q',
      columns: [{ name: 'value', type: 'varbinary' }],
      batches: (async function* () {
        yield [[frame(1, body).toString('base64')]];
        registry.down = true;
        yield [[frame(2, body).toString('base64')]];
      })(),
    });
    const it = r.batches[Symbol.asyncIterator]();
    expect((await it.next()).value[0][3]).toBeNull();
    await expect(it.next()).rejects.toMatchObject({ code: 'TG_SCHEMA_REGISTRY' });
  });

  it('raw topics and unselected payload columns are left alone', async () => {
    expect(await preparePayloads('t', { value: { format: 'raw' } }, new FakeRegistry())).toBeNull();
    const d = await preparePayloads('t', { key: { format: 'avro' } }, new FakeRegistry());
    const r = result([Buffer.from('x')]);
    expect(d!.wrap(r)).toBe(r);
  });
});

describe('registry settings', () => {
  const dir = mkdtempSync(join(tmpdir(), 'topicgate-registry-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const cfg = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };

  it('reads the block, the env URL winning', () => {
    const file = cfg(
      'a.yaml',
      'schemaRegistry: { url: "http://file:1/x/" }\ntopics: { p: { value: { format: avro } } }',
    );
    expect(loadConfig({ TOPICGATE_CONFIG: file }).schemaRegistry?.url).toBe('http://file:1/x');
    const env = { TOPICGATE_CONFIG: file, TOPICGATE_SCHEMA_REGISTRY_URL: 'http://env:2/apis/ccompat/v7' };
    expect(loadConfig(env).schemaRegistry).toMatchObject({ url: 'http://env:2/apis/ccompat/v7', maxConcurrent: 4 });
  });

  it.each([
    ['topics: { p: { value: { format: avro } } }', /needs schemaRegistry.url/],
    ['schemaRegistry: { url: "ftp://x" }', /must be an http\(s\) URL/],
    ['schemaRegistry: { url: "http://u:p@x" }', /must not carry credentials/],
    ['schemaRegistry: { url: "http://x", username: u }', /go together/],
    ['topics: { p: { value: { format: protobuf } } }', /value\/format/],
  ])('refuses %s', (text, problem) => {
    try {
      loadConfig({ TOPICGATE_CONFIG: cfg('b.yaml', text) });
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).problems.join('\n')).toMatch(problem);
    }
  });
});

describe('default subjects (TopicNameStrategy)', () => {
  it('are named after the Kafka topic: the table, without the schema a multi-schema topic id starts with', () => {
    expect(subjectOf('payments_avro', 'key', undefined)).toBe('payments_avro-key');
    expect(subjectOf('demo|kafka_topics:payments_avro', 'value', {})).toBe('payments_avro-value');
    expect(subjectOf('demo|kafka_topics:payments_avro', 'value', { subject: 'custom' })).toBe('custom');
  });
});
