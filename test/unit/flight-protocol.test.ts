/**
 * The Flight entrance's own codecs and rules, without services: FlightData written by hand (its protobuf keys),
 * an Arrow IPC stream cut anywhere and re-framed into Flight messages that rebuild the same table, the Flight SQL
 * commands' field numbers on the wire, the gRPC status of each HTTP status of the catalog, the handshake's sealed
 * tokens, the LIKE filter patterns, and an entrance that imports nothing of fastify or of the HTTP entrance.
 */
import { fileURLToPath } from 'node:url';
import { Int64, Schema, Utf8, Binary, Field, tableFromIPC, tableToIPC, type Table } from 'apache-arrow';
import { status } from '@grpc/grpc-js';
import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { AuthRefused } from '../../src/access/authenticate.js';
import { Keyring } from '../../src/core/signed-token.js';
import { ERROR_CATALOG, type ErrorCode } from '../../src/core/errors.js';
import { tableOf } from '../../src/flight/arrow-tables.js';
import { CallRate } from '../../src/flight/call-rate.js';
import { SchemaCache } from '../../src/flight/schema-cache.js';
import { likeTest } from '../../src/flight/catalog-commands.js';
import { HANDSHAKE_TOKEN_MS, HandshakeTokens } from '../../src/flight/flight-auth.js';
import { bodyLengthOf, encodeFlightData, ipcMessages } from '../../src/flight/flight-data.js';
import { decodeMessage } from '../../src/flight/flight-messages.js';
import { packCommand, unpackCommand } from '../../src/flight/flight-sql-messages.js';
import { grpcCodeOf, grpcErrorOf } from '../../src/flight/flight-status.js';
import { packageImports, readSources } from '../import-graph.js';

const schema = new Schema([
  new Field('id', new Int64(), true),
  new Field('name', new Utf8(), true),
  new Field('bytes', new Binary(), true),
]);
const rows = (from: number, n: number) =>
  Array.from({ length: n }, (_, i) => [
    BigInt(from + i) * 2n ** 40n,
    i % 3 ? `row ${from + i}` : null,
    Buffer.from([i, 255 - i]),
  ]);

/** A stream of several batches: three tables' batches written as one stream. */
function threeBatches(): Table {
  const t = tableOf(schema, rows(0, 5));
  return new (t.constructor as typeof import('apache-arrow').Table)([
    ...t.batches,
    ...tableOf(schema, rows(5, 7)).batches,
    ...tableOf(schema, rows(12, 1)).batches,
  ]);
}

async function* chunksOf(bytes: Uint8Array, size: number) {
  for (let at = 0; at < bytes.length; at += size) yield bytes.slice(at, at + size);
}

/** Rebuilds an IPC stream from re-framed messages: marker, length, header, body, then the end-of-stream marker. */
function rebuild(messages: { header: Uint8Array; body: Uint8Array }[]): Buffer {
  const parts: Uint8Array[] = [];
  for (const m of messages) {
    const prefix = Buffer.alloc(8);
    prefix.writeUInt32LE(0xffffffff, 0);
    prefix.writeInt32LE(m.header.length, 4);
    parts.push(prefix, m.header, m.body);
  }
  parts.push(Buffer.from([0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0]));
  return Buffer.concat(parts);
}

describe('re-framing an Arrow IPC stream into Flight messages', () => {
  const table = threeBatches();
  const stream = tableToIPC(table, 'stream');

  it.each([1, 3, 7, 8, 64, 1000, stream.length])(
    'cut every %i bytes: the schema and each batch, rebuilding the table',
    async (size) => {
      const messages: { header: Uint8Array; body: Uint8Array }[] = [];
      for await (const m of ipcMessages(chunksOf(stream, size)))
        messages.push({ header: Buffer.from(m.header), body: Buffer.from(m.body) });
      expect(messages).toHaveLength(1 + 3);
      expect(messages[0]!.body.length).toBe(0);
      const back = tableFromIPC(rebuild(messages));
      expect(back.numRows).toBe(13);
      expect(back.toArray().map((r) => r.toJSON())).toEqual(table.toArray().map((r) => r.toJSON()));
    },
  );

  it("the body length is the flatbuffer Message's bodyLength", async () => {
    const lengths: number[] = [];
    for await (const m of ipcMessages(chunksOf(stream, stream.length)))
      lengths.push(bodyLengthOf(m.header), m.body.length);
    for (let i = 0; i < lengths.length; i += 2) expect(lengths[i]).toBe(lengths[i + 1]);
    expect(lengths.filter((n) => n > 0)).toHaveLength(6);
  });

  it('FlightData: data_header as field 2 and data_body as field 1000, nothing else', () => {
    const header = Buffer.from('header bytes');
    const body = Buffer.alloc(300, 7);
    const reader = protobuf.Reader.create(encodeFlightData(header, body));
    const fields: [number, Buffer][] = [];
    while (reader.pos < reader.len) {
      const tag = reader.uint32();
      expect(tag & 7).toBe(2);
      fields.push([tag >>> 3, Buffer.from(reader.bytes())]);
    }
    expect(fields).toEqual([
      [2, header],
      [1000, body],
    ]);
    // A schema message has no body: the field is left out.
    expect(encodeFlightData(header, new Uint8Array(0))).toEqual(
      Buffer.concat([Buffer.from([0x12, header.length]), header]),
    );
  });
});

describe('Flight SQL commands on the wire', () => {
  it('packed in an Any with the specification type URL and field numbers', () => {
    const packed = packCommand('CommandGetTables', {
      tableNameFilterPattern: 'o%',
      includeSchema: true,
      tableTypes: ['TOPIC'],
    });
    const any = decodeMessage<{ typeUrl: string; value: Buffer }>('Any', packed);
    expect(any.typeUrl).toBe('type.googleapis.com/arrow.flight.protocol.sql.CommandGetTables');
    // table_name_filter_pattern = 3 (string), table_types = 4 (repeated string), include_schema = 5 (bool).
    expect([...any.value]).toEqual([0x1a, 2, 0x6f, 0x25, 0x22, 5, ...Buffer.from('TOPIC'), 0x28, 1]);
    expect(unpackCommand(packed)).toEqual({
      name: 'CommandGetTables',
      fields: expect.objectContaining({ tableNameFilterPattern: 'o%', includeSchema: true, tableTypes: ['TOPIC'] }),
    });
  });

  it("absent fields: proto3's defaults, but an optional one stays absent", () => {
    expect(unpackCommand(packCommand('CommandGetXdbcTypeInfo', {})).fields).toEqual({});
    expect(unpackCommand(packCommand('CommandGetXdbcTypeInfo', { dataType: -5 })).fields).toEqual({ dataType: -5 });
    expect(unpackCommand(packCommand('TicketStatementQuery', {})).fields).toEqual({ statementHandle: Buffer.alloc(0) });
    expect(unpackCommand(packCommand('CommandGetTables', {})).fields).toEqual({ tableTypes: [], includeSchema: false });
  });

  it('the statement ticket: statement_handle = 1', () => {
    const any = decodeMessage<{ value: Buffer }>(
      'Any',
      packCommand('TicketStatementQuery', { statementHandle: Buffer.from('h') }),
    );
    expect([...any.value]).toEqual([0x0a, 1, 0x68]);
  });

  it('anything else is a 400 naming it, never a crash', () => {
    for (const bytes of [Buffer.from('garbage'), Buffer.alloc(0), Buffer.from([0x0a, 0xff, 0xff])]) {
      expect(() => unpackCommand(bytes)).toThrow(expect.objectContaining({ code: 'TG_BAD_REQUEST' }));
    }
  });
});

describe('gRPC statuses', () => {
  it.each([
    [401, status.UNAUTHENTICATED],
    [403, status.PERMISSION_DENIED],
    [404, status.NOT_FOUND],
    [400, status.INVALID_ARGUMENT],
    [406, status.INVALID_ARGUMENT],
    [413, status.RESOURCE_EXHAUSTED],
    [422, status.RESOURCE_EXHAUSTED],
    [429, status.RESOURCE_EXHAUSTED],
    [502, status.UNAVAILABLE],
    [503, status.UNAVAILABLE],
    [504, status.DEADLINE_EXCEEDED],
  ])('HTTP %i is gRPC %i', (http, grpc) => expect(grpcCodeOf(http)).toBe(grpc));

  it('no 4xx of the catalog is INTERNAL, and the message starts with the code', () => {
    for (const [code, { status: http }] of Object.entries(ERROR_CATALOG)) {
      if (http < 500) expect(grpcCodeOf(http), code).not.toBe(status.INTERNAL);
    }
    const e = grpcErrorOf(new AuthRefused('unknown key', 'the API key was not accepted'));
    expect(e.code).toBe(status.UNAUTHENTICATED);
    expect(e.details).toBe('TG_UNAUTHENTICATED: the API key was not accepted');
    expect(grpcErrorOf(new Error('secret internals')).details).toBe('TG_INTERNAL: internal error');
    expect(Object.keys(ERROR_CATALOG)).toContain('TG_BAD_SQL' satisfies ErrorCode);
  });
});

describe('handshake tokens', () => {
  const tokens = new HandshakeTokens(Keyring.fromSecrets('a-secret-of-at-least-32-bytes-for-tokens'));

  it('seal the credential, which only the gateway can read back, until they expire', () => {
    const t = tokens.seal('the-api-key', 1_000);
    expect(t).not.toContain('the-api-key');
    expect(tokens.open(t, 1_000 + HANDSHAKE_TOKEN_MS - 1)).toBe('the-api-key');
    expect(() => tokens.open(t, 1_000 + HANDSHAKE_TOKEN_MS)).toThrow(/expired/);
  });

  it('another bearer is not one: a key or a JWT is authenticated as itself', () => {
    expect(tokens.open('some-api-key')).toBeNull();
    expect(tokens.open('eyJhbGciOiJIUzI1NiJ9.e30.sig')).toBeNull();
  });

  it('a token altered, or sealed by another secret, is refused', () => {
    const t = tokens.seal('k');
    const other = new HandshakeTokens(Keyring.fromSecrets('another-secret-of-at-least-32-bytes!!'));
    expect(() => tokens.open(`${t.slice(0, -2)}AA`)).toThrow(AuthRefused);
    expect(() => tokens.open(other.seal('k'))).toThrow(AuthRefused);
  });
});

describe('calls per minute', () => {
  it('per caller, in one-minute windows, the 429 saying when to retry', async () => {
    const rate = new CallRate(2);
    await rate.take('principal:a', 0);
    await rate.take('principal:a', 10_000);
    await rate.take('principal:b', 10_000);
    await expect(rate.take('principal:a', 15_000)).rejects.toEqual(
      expect.objectContaining({ code: 'TG_TOO_MANY_REQUESTS', retryAfterS: 45 }),
    );
    await rate.take('principal:a', 60_000);
  });

  it('no limit set: never refused', async () => {
    const rate = new CallRate(undefined);
    for (let i = 0; i < 1000; i++) await rate.take('address:1.2.3.4', 0);
  });

  it('counted in the shared store when there is one, under the key given, with its window left as Retry-After', async () => {
    const seen: string[] = [];
    let hits = 0;
    const shared = {
      count: async (key: string, windowMs: number) => {
        seen.push(`${key} ${windowMs}`);
        return { current: ++hits, ttl: 12_500 };
      },
    };
    const rate = new CallRate(2, shared);
    await rate.take('principal:a', 0);
    await rate.take('principal:a', 0);
    await expect(rate.take('principal:a', 0)).rejects.toEqual(
      expect.objectContaining({ code: 'TG_TOO_MANY_REQUESTS', retryAfterS: 13 }),
    );
    expect(seen).toEqual(Array(3).fill('principal:a 60000'));
  });
});

describe('probed schemas', () => {
  it('reused for the same caller and SQL for a while, probed again after, never across callers', async () => {
    const cache = new SchemaCache();
    let probes = 0;
    const probe = async () => Buffer.from(`schema ${++probes}`);
    expect(String(await cache.get('key:a', 'SELECT 1', probe, 0))).toBe('schema 1');
    expect(String(await cache.get('key:a', 'SELECT 1', probe, 29_999))).toBe('schema 1');
    expect(String(await cache.get('key:b', 'SELECT 1', probe, 29_999))).toBe('schema 2');
    expect(String(await cache.get('key:a', 'SELECT 2', probe, 29_999))).toBe('schema 3');
    expect(String(await cache.get('key:a', 'SELECT 1', probe, 30_000))).toBe('schema 4');
  });

  it('a failed probe is not kept', async () => {
    const cache = new SchemaCache();
    await expect(cache.get('key:a', 'x', () => Promise.reject(new Error('refused')), 0)).rejects.toThrow('refused');
    expect(String(await cache.get('key:a', 'x', async () => Buffer.from('ok'), 1))).toBe('ok');
  });
});

describe('filter patterns', () => {
  it.each([
    [undefined, 'anything', true],
    ['', 'anything', true],
    ['ord%', 'orders', true],
    ['ord%', 'xorders', false],
    ['order_', 'orders', true],
    ['order_', 'order', false],
    ['a\\_b', 'a_b', true],
    ['a\\_b', 'axb', false],
    ['demo|kafka_topics', 'demo|kafka_topics', true],
    ['(.*)', '(.*)', true],
    ['(.*)', 'anything', false],
    ['%r%s', 'orders', true],
    ['%%_%', '', false],
    ['%_', 'x', true],
    ['o%d%s', 'orders', true],
    ['o%d%x', 'orders', false],
    ['é_', 'éa', true],
  ])('%s against %s: %s', (pattern, name, expected) => expect(likeTest(pattern)(name)).toBe(expected));

  it('a pattern of many wildcards is answered, not searched by backtracking (a regular expression took seconds at 10)', () => {
    const name = 'payments_avro_topic_name'.repeat(40);
    expect(likeTest(`${'%'.repeat(10_000)}!`)(name)).toBe(false);
    expect(likeTest(`${'%_'.repeat(5_000)}!`)(name)).toBe(false);
    expect(likeTest(`${'%_'.repeat(100)}e`)(name)).toBe(true);
  });
});

describe('the entrance', () => {
  it('imports nothing of fastify', () => {
    const src = fileURLToPath(new URL('../../src/flight', import.meta.url));
    const fastify = [...readSources(src)].flatMap(([file, text]) =>
      packageImports(text)
        .filter((p) => p === 'fastify' || p.startsWith('@fastify/') || p.startsWith('fastify-'))
        .map((p) => `${file} -> ${p}`),
    );
    expect(fastify).toEqual([]);
    expect(readSources(src).size).toBeGreaterThan(10);
  });
});
