/**
 * The Avro demo topic `payments_avro`: payments as Confluent's serializers frame them (magic byte 0,
 * 4-byte big-endian schema id, Avro binary), with the schemas registered in a real Schema Registry under
 * `payments_avro-key` (a string) and `payments_avro-value` (two versions). `payments_json` (loaded by the benchmark
 * only) holds the same events as JSON text. Generated here (Trino cannot write Avro) and inserted as varbinary literals.
 *
 * Where each hard case is, by event number i (tests rely on these): see AVRO_CASES.
 */
import { avroType } from '../src/blob/avro/avro-codec.js';
import { quoteIdent } from '../src/query/sql/sql-text.js';
import { DEMO_CATALOG, DEMO_SCHEMA, TOPIC_COLUMNS } from './demo-data.js';

export const AVRO_TOPIC = 'payments_avro';
export const AVRO_JSON_TOPIC = 'payments_json';
/** First event's broker time (ms since the epoch): 2026-11-01T00:00:00Z, like the other demo topics. */
const BASE_MS = Date.UTC(2026, 10, 1);
const STEP_MS = 30_000;
/** A schema id no registry assigns in the demo: its events are reported as `unknown-schema-id`. */
export const UNKNOWN_SCHEMA_ID = 999_999;

export const AVRO_CASES = {
  writerV1: 'i < events / 2 (the rest are written with v2, which adds `channel`)',
  unframed: 'i % 97 = 5: the value is plain text, not framed',
  unknownId: 'i % 101 = 7: the value is framed with schema id 999999',
  nullKey: 'i % 50 = 0: no key',
  negativeAmount: 'i % 13 = 0: amount is negative (a refund)',
  bigPaymentId: 'payment_id = 9007199254740993 + i (beyond 2^53)',
  nullNote: 'i % 3 = 0: note is null',
} as const;

const PAYMENT_V1 = {
  type: 'record',
  name: 'Payment',
  namespace: 'demo.payments',
  fields: [
    { name: 'payment_id', type: 'long' },
    { name: 'amount', type: { type: 'bytes', logicalType: 'decimal', precision: 12, scale: 2 } },
    { name: 'currency', type: 'string' },
    { name: 'created_at', type: { type: 'long', logicalType: 'timestamp-millis' } },
    { name: 'settled_at', type: ['null', { type: 'long', logicalType: 'timestamp-micros' }], default: null },
    { name: 'booking_date', type: { type: 'int', logicalType: 'date' } },
    { name: 'status', type: { type: 'enum', name: 'Status', symbols: ['AUTHORIZED', 'CAPTURED', 'REFUNDED'] } },
    { name: 'note', type: ['null', 'string'], default: null },
    { name: 'reference', type: ['null', 'string', 'long'], default: null },
    { name: 'signature', type: 'bytes' },
    { name: 'digest', type: { type: 'fixed', name: 'Digest', size: 4 } },
    {
      name: 'customer',
      type: {
        type: 'record',
        name: 'Customer',
        fields: [
          { name: 'id', type: 'string' },
          { name: 'country', type: 'string' },
        ],
      },
    },
    {
      name: 'items',
      type: {
        type: 'array',
        items: {
          type: 'record',
          name: 'Item',
          fields: [
            { name: 'sku', type: 'string' },
            { name: 'qty', type: 'int' },
          ],
        },
      },
    },
    { name: 'attributes', type: { type: 'map', values: 'string' } },
  ],
};
/** v2 adds a field with a default: events written with v1 resolve into it. */
const PAYMENT_V2 = {
  ...PAYMENT_V1,
  fields: [...PAYMENT_V1.fields, { name: 'channel', type: 'string', default: 'web' }],
};

export const DEMO_AVRO_SCHEMAS = { key: 'string', v1: PAYMENT_V1, v2: PAYMENT_V2 } as const;

export interface DemoSchemaIds {
  key: number;
  v1: number;
  v2: number;
}

/** Registers the demo schemas (idempotent: the registry answers the existing id) and returns their ids. */
export async function registerDemoSchemas(registryUrl: string): Promise<DemoSchemaIds> {
  const register = async (subject: string, schema: unknown): Promise<number> => {
    const res = await fetch(`${registryUrl}/subjects/${subject}/versions`, {
      method: 'POST',
      headers: { 'content-type': 'application/vnd.schemaregistry.v1+json' },
      body: JSON.stringify({ schema: JSON.stringify(schema) }),
    });
    if (!res.ok) throw new Error(`the registry refused the ${subject} schema: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { id: number }).id;
  };
  const key = await register(`${AVRO_TOPIC}-key`, DEMO_AVRO_SCHEMAS.key);
  const v1 = await register(`${AVRO_TOPIC}-value`, PAYMENT_V1);
  const v2 = await register(`${AVRO_TOPIC}-value`, PAYMENT_V2);
  return { key, v1, v2 };
}

/** Big-endian two's complement, as Avro's decimal stores the unscaled value. */
function decimalBytes(unscaled: bigint): Buffer {
  let hex = (unscaled < 0n ? (1n << 64n) + unscaled : unscaled).toString(16).padStart(16, '0');
  // Shortest form that keeps the sign.
  while (hex.length > 2 && (hex.startsWith('00') || hex.startsWith('ff'))) {
    const next = hex.slice(2);
    const negative = Number.parseInt(next.slice(0, 1), 16) >= 8;
    if ((hex.startsWith('00') && negative) || (hex.startsWith('ff') && !negative)) break;
    hex = next;
  }
  return Buffer.from(hex, 'hex');
}

const STATUSES = ['AUTHORIZED', 'CAPTURED', 'REFUNDED'];
const COUNTRIES = ['DE', 'FR', 'US', 'JP', 'BR'];

/** Event i as the Avro value (avsc's form: longs as bigint, unions wrapped). */
export function demoPayment(i: number, withChannel: boolean): Record<string, unknown> {
  const cents = BigInt(((i * 7919) % 50_000) + 99) * (i % 13 === 0 ? -1n : 1n);
  const createdMs = BigInt(BASE_MS + i * STEP_MS - 1500);
  const p: Record<string, unknown> = {
    payment_id: 9007199254740993n + BigInt(i),
    amount: decimalBytes(cents),
    currency: 'EUR',
    created_at: createdMs,
    settled_at: i % 4 === 0 ? null : { long: createdMs * 1000n + BigInt(i % 1000) },
    booking_date: Math.floor((BASE_MS + i * STEP_MS) / 86_400_000),
    status: STATUSES[i % 3],
    note: i % 3 === 0 ? null : { string: `payment ${i} ✓` },
    reference: i % 2 === 0 ? { string: `ref-${i}` } : { long: BigInt(i) * 1_000_000_007n },
    signature: Buffer.from([0xff, 0x00, i & 0xff, 0xfe]),
    digest: Buffer.from([0xde, 0xad, (i >> 8) & 0xff, i & 0xff]),
    customer: { id: `c${i % 100}`, country: COUNTRIES[i % COUNTRIES.length] },
    items: Array.from({ length: (i % 3) + 1 }, (_, k) => ({ sku: `SKU-${(i + k) % 20}`, qty: k + 1 })),
    attributes: i % 5 === 0 ? {} : { source: 'pos', lane: String(i % 7) },
  };
  if (withChannel) p.channel = i % 2 === 0 ? 'web' : 'app';
  return p;
}

const frame = (id: number, body: Buffer) => {
  const head = Buffer.alloc(5);
  head.writeUInt32BE(id, 1);
  return Buffer.concat([head, body]);
};

const hex = (b: Buffer | null) => (b === null ? 'NULL' : `X'${b.toString('hex')}'`);
const ts = (ms: number) => `TIMESTAMP '${new Date(ms).toISOString().replace('T', ' ').replace('Z', '')}'`;

const TYPES = {
  key: avroType(JSON.stringify(DEMO_AVRO_SCHEMAS.key)),
  v1: avroType(JSON.stringify(PAYMENT_V1)),
  v2: avroType(JSON.stringify(PAYMENT_V2)),
};

/** The framed key and value of event i, and the same event as JSON text (payments_json). */
export function demoAvroEvent(i: number, events: number, ids: DemoSchemaIds) {
  const v2 = i >= events / 2;
  const payment = demoPayment(i, v2);
  const valueType = v2 ? TYPES.v2 : TYPES.v1;
  const keyType = TYPES.key;
  const key = i % 50 === 0 ? null : frame(ids.key, keyType.toBuffer(`pay-${i}`));
  const body = valueType.toBuffer(payment);
  const value =
    i % 97 === 5
      ? Buffer.from(`not avro: payment ${i}`)
      : frame(i % 101 === 7 ? UNKNOWN_SCHEMA_ID : v2 ? ids.v2 : ids.v1, body);
  return { key, value, json: Buffer.from(valueType.toString(payment)), brokerMs: BASE_MS + i * STEP_MS };
}

/** A batch of events as SQL literals, one array per column. */
interface Columns {
  key: string[];
  value: string[];
  broker: string[];
  producer: string[];
}
const columns = (): Columns => ({ key: [], value: [], broker: [], producer: [] });

/**
 * The statements that (re)create payments_avro (and, with `withJson`, payments_json: the benchmark's), `batch`
 * events per INSERT.
 */
export function demoAvroStatements(
  events: number,
  ids: DemoSchemaIds,
  o: { withJson?: boolean; batch?: number; schema?: string } = {},
): string[] {
  const { withJson = false, batch = 500, schema = DEMO_SCHEMA } = o;
  const t = (name: string) => `${quoteIdent(DEMO_CATALOG)}.${quoteIdent(schema)}.${quoteIdent(name)}`;
  const out: string[] = [];
  for (const name of withJson ? [AVRO_TOPIC, AVRO_JSON_TOPIC] : [AVRO_TOPIC]) {
    out.push(`DROP TABLE IF EXISTS ${t(name)}`, `CREATE TABLE ${t(name)} (${TOPIC_COLUMNS})`);
  }
  // One INSERT ... SELECT over UNNEST of four typed arrays per batch, not a VALUES list: Trino's planner rewrites
  // every row of a VALUES list once per expression rule (about 3-6 s of CPU for 500 of these rows), while an
  // array is one expression (0.3-0.4 s for the same rows). Same rows, same order.
  const insert = (table: string, rows: Columns) =>
    `INSERT INTO ${t(table)} SELECT key, value, timestamp_broker, timestamp_producer, ` +
    `CAST(ARRAY[] AS array(row(key varchar, value varbinary))) FROM UNNEST(` +
    `CAST(ARRAY[${rows.key.join(', ')}] AS array(varbinary)), CAST(ARRAY[${rows.value.join(', ')}] AS array(varbinary)), ` +
    `CAST(ARRAY[${rows.broker.join(', ')}] AS array(timestamp(3))), ` +
    `CAST(ARRAY[${rows.producer.join(', ')}] AS array(timestamp(3)))` +
    `) AS u(key, value, timestamp_broker, timestamp_producer)`;
  for (let from = 0; from < events; from += batch) {
    const avro = columns();
    const json = columns();
    for (let i = from; i < Math.min(events, from + batch); i++) {
      const e = demoAvroEvent(i, events, ids);
      for (const c of [avro, json]) {
        c.broker.push(ts(e.brokerMs));
        c.producer.push(ts(e.brokerMs - 3));
      }
      avro.key.push(hex(e.key));
      avro.value.push(hex(e.value));
      json.key.push(e.key === null ? 'NULL' : `to_utf8('pay-${i}')`);
      json.value.push(hex(e.json));
    }
    out.push(insert(AVRO_TOPIC, avro));
    if (withJson) out.push(insert(AVRO_JSON_TOPIC, json));
  }
  return out;
}
