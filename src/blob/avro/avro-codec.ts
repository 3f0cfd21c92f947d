/**
 * avsc, set up for lossless decoding: longs as bigint (never rounded at 2^53), unions always wrapped (so the
 * branch is known), logical types left to avro-shape.ts (avsc then decodes their underlying type exactly).
 * Writer schemas are resolved into the reader schema by Avro's resolution rules (avsc's createResolver).
 */
import avro from 'avsc';

/** avsc's documented custom long: the 8 bytes it hands over are the long, little-endian two's complement. */
const LosslessLong = avro.types.LongType.__with({
  fromBuffer: (buf: Buffer) => buf.readBigInt64LE(),
  toBuffer: (n: bigint) => {
    const buf = Buffer.alloc(8);
    buf.writeBigInt64LE(BigInt(n));
    return buf;
  },
  fromJSON: (x: unknown) => BigInt(x as string),
  toJSON: (n: bigint) => (n >= -(2n ** 53n) && n <= 2n ** 53n ? Number(n) : n.toString()),
  isValid: (n: unknown) => typeof n === 'bigint',
  compare: (a: bigint, b: bigint) => (a === b ? 0 : a < b ? -1 : 1),
});

export type AvroType = avro.Type;

function isLong(schema: unknown): boolean {
  return (
    schema === 'long' ||
    (typeof schema === 'object' && schema !== null && (schema as { type?: unknown }).type === 'long')
  );
}

/** Parses a schema text into an avsc type with the options above; throws on a schema avsc refuses. */
export function avroType(schemaText: string): AvroType {
  // A fresh registry per schema: avsc records named types in it.
  return avro.Type.forSchema(JSON.parse(schemaText) as avro.Schema, {
    wrapUnions: true,
    // Every long, also `{"type": "long", "logicalType": ...}` (which avsc would build without the registry).
    typeHook: (schema) => (isLong(schema) ? LosslessLong : undefined),
  });
}

export interface WriterDecoder {
  /** Decodes one Avro body (after the 5-byte frame) into the reader schema's value; throws when it cannot. */
  decode(body: Buffer): unknown;
}

/** How to read the writer's bytes as the reader's type; throws (with Avro's reason) when they do not resolve. */
export function writerDecoder(reader: AvroType, writer: AvroType, sameSchema: boolean): WriterDecoder {
  if (sameSchema) return { decode: (body) => reader.fromBuffer(body) };
  const resolver = reader.createResolver(writer);
  return { decode: (body) => reader.fromBuffer(body, resolver) };
}
