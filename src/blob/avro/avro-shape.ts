/**
 * An Avro schema as a Trino type, and Avro values (as avsc decodes them, see avro-codec.ts) as the values the
 * encoders already take (core/result-stream.ts): so a decoded payload is one more typed column for every format,
 * with no encoder knowing Avro. The mapping (documented in the OpenAPI description):
 * - boolean, int, long, float, double, string -> boolean, integer, bigint, real, double, varchar;
 * - bytes, fixed -> varbinary (in the text formats: varchar `\x` hex, see avroShape); `decimal` (on bytes or fixed) -> decimal(p,s) (varchar beyond Trino's 38 digits);
 * - `date` -> date; `time-millis`/`-micros` -> time(3)/(6); `timestamp-millis`/`-micros` (and the local- ones)
 *   -> timestamp(3)/(6), UTC; `uuid` -> varchar; enum -> varchar (its symbol; a dictionary in Arrow, see enumShape);
 * - record -> row (fields in order), array -> array, map -> map(varchar, ...);
 * - a union of null and one type -> that type, nullable ("unwrapped"); a union of several types -> a row with one
 *   field per branch (named by the branch's type), only the branch present set.
 * Lossless: longs beyond 2^53 keep every digit (bigint text), decimals keep their scale, times every digit.
 */

import { dateText, decimalText, floatValue, longValue, timestampText, timeText } from './avro-values.js';

export type AvroSchemaJson = string | AvroSchemaJson[] | { [k: string]: unknown };

export interface Shape {
  /** Trino type text, e.g. `row(amount decimal(12,2), at timestamp(3))`. */
  type: string;
  /** The branch name avsc gives this type inside a wrapped union. */
  branch: string;
  /** A non-null avsc value -> the encoder's value (see core/result-stream.ts). */
  convert(v: unknown): unknown;
}

const PRIMITIVES = new Set(['null', 'boolean', 'int', 'long', 'float', 'double', 'bytes', 'string']);
const same = (v: unknown) => v;
const base64 = (v: unknown) => (v as Buffer).toString('base64');

interface Ctx {
  named: Map<string, Shape>;
  namespace: string | undefined;
  hexBytes: boolean;
}

/** bytes and fixed: Binary for Arrow and Parquet; `\x` hex text for the text formats (hexBytes), always. */
function bytesShape(ctx: Ctx, branch: string): Shape {
  return ctx.hexBytes
    ? { type: 'varchar', branch, convert: (v) => `\\x${(v as Buffer).toString('hex')}` }
    : { type: 'varbinary', branch, convert: base64 };
}

function fullName(name: string, namespace: string | undefined): string {
  return name.includes('.') || !namespace ? name : `${namespace}.${name}`;
}

/**
 * Compiles a reader schema (parsed JSON) into its shape. Throws on a schema it cannot map (say, recursive).
 * `hexBytes` (the text formats): bytes and fixed as `\x` hex text, as the issue asks of Avro bytes, whatever they
 * hold (the varbinary rule would show bytes that happen to be UTF-8 as text).
 */
export function avroShape(schema: AvroSchemaJson, o: { hexBytes?: boolean } = {}): Shape {
  return shapeOf(schema, { named: new Map(), namespace: undefined, hexBytes: o.hexBytes === true });
}

function shapeOf(s: AvroSchemaJson, ctx: Ctx): Shape {
  if (typeof s === 'string') {
    if (PRIMITIVES.has(s)) return primitive(s, undefined, {}, ctx);
    const named = ctx.named.get(fullName(s, ctx.namespace)) ?? ctx.named.get(s);
    if (!named) throw new Error(`the schema names an undefined type ${s}`);
    return named;
  }
  if (Array.isArray(s)) return union(s, ctx);
  const type = s.type as AvroSchemaJson;
  const logical = typeof s.logicalType === 'string' ? s.logicalType : undefined;
  if (typeof type !== 'string') return shapeOf(type, ctx); // {"type": {...}}
  if (PRIMITIVES.has(type)) return primitive(type, logical, s, ctx);
  const ns = typeof s.namespace === 'string' ? s.namespace : ctx.namespace;
  switch (type) {
    case 'record':
    case 'error':
      return recordShape(s as Record<string, unknown>, fullName(String(s.name), ns), ns, ctx);
    case 'enum':
    case 'fixed': {
      const name = fullName(String(s.name), ns);
      const shape =
        type === 'enum' ? enumShape(s, name, ctx) : logical === 'decimal' ? decimal(s, name) : bytesShape(ctx, name);
      ctx.named.set(name, shape);
      return shape;
    }
    case 'array': {
      const items = shapeOf(s.items as AvroSchemaJson, { ...ctx, namespace: ns });
      return {
        type: `array(${items.type})`,
        branch: 'array',
        convert: (v) => (v as unknown[]).map((x) => (x === null ? null : items.convert(x))),
      };
    }
    case 'map': {
      const values = shapeOf(s.values as AvroSchemaJson, { ...ctx, namespace: ns });
      return {
        type: `map(varchar, ${values.type})`,
        branch: 'map',
        convert: (v) => {
          const out: Record<string, unknown> = {};
          for (const [k, x] of Object.entries(v as Record<string, unknown>))
            out[k] = x === null ? null : values.convert(x);
          return out;
        },
      };
    }
    default: {
      const named = ctx.named.get(fullName(type, ns)) ?? ctx.named.get(type);
      if (named) return named;
      throw new Error(`unknown Avro type ${type}`);
    }
  }
}

/** A record as a row of its fields, in order; a record that contains itself is refused. */
function recordShape(s: Record<string, unknown>, name: string, ns: string | undefined, ctx: Ctx): Shape {
  if (ctx.named.has(name)) throw new Error(`recursive type ${name} cannot be a column`);
  const inner: Ctx = {
    ...ctx,
    namespace: name.includes('.') ? name.slice(0, name.lastIndexOf('.')) : ns,
  };
  // Registered before the fields so a reference to itself is caught above, not looped on.
  const placeholder: Shape = { type: '', branch: name, convert: same };
  ctx.named.set(name, placeholder);
  const fields = (s.fields as { name: string; type: AvroSchemaJson }[]).map((f) => ({
    name: f.name,
    shape: shapeOf(f.type, inner),
  }));
  const shape: Shape = {
    type: `row(${fields.map((f) => `${f.name} ${f.shape.type}`).join(', ')})`,
    branch: name,
    convert: (v) => {
      const rec = v as Record<string, unknown>;
      return fields.map((f) => {
        const x = rec[f.name];
        return x === null || x === undefined ? null : f.shape.convert(x);
      });
    },
  };
  ctx.named.set(name, shape);
  return shape;
}

/**
 * An enum: its symbol as text in the text formats; for Arrow and Parquet a dictionary of the reader's symbols, typed
 * `enum(row("A" boolean, ...))` (Trino has no enum type: the row's field names carry the symbols, in order, to the
 * Arrow encoder; filters and aggregates treat it as varchar).
 */
function enumShape(s: Record<string, unknown>, branch: string, ctx: Ctx): Shape {
  const symbols = (s.symbols as string[]).map((x) => `"${x}" boolean`);
  return { type: ctx.hexBytes ? 'varchar' : `enum(row(${symbols.join(', ')}))`, branch, convert: same };
}

function decimal(s: Record<string, unknown>, branch: string): Shape {
  const precision = Number(s.precision);
  const scale = Number(s.scale ?? 0);
  const type = precision >= 1 && precision <= 38 ? `decimal(${precision},${scale})` : 'varchar';
  return { type, branch, convert: (v) => decimalText(v as Buffer, scale) };
}

function primitive(type: string, logical: string | undefined, s: Record<string, unknown>, ctx: Ctx): Shape {
  switch (`${type}:${logical ?? ''}`) {
    case 'int:date':
      return { type: 'date', branch: type, convert: dateText };
    case 'int:time-millis':
      return { type: 'time(3)', branch: type, convert: (v) => timeText(BigInt(v as number), 1) };
    case 'long:time-micros':
      return { type: 'time(6)', branch: type, convert: (v) => timeText(v, 1000) };
    case 'long:timestamp-millis':
    case 'long:local-timestamp-millis':
      return { type: 'timestamp(3)', branch: type, convert: (v) => timestampText(v, 1) };
    case 'long:timestamp-micros':
    case 'long:local-timestamp-micros':
      return { type: 'timestamp(6)', branch: type, convert: (v) => timestampText(v, 1000) };
    case 'bytes:decimal':
      return decimal(s, type);
  }
  switch (type) {
    case 'null':
      return { type: 'varchar', branch: type, convert: () => null };
    case 'boolean':
      return { type: 'boolean', branch: type, convert: same };
    case 'int':
      return { type: 'integer', branch: type, convert: same };
    case 'long':
      return { type: 'bigint', branch: type, convert: longValue };
    case 'float':
      return { type: 'real', branch: type, convert: floatValue };
    case 'double':
      return { type: 'double', branch: type, convert: floatValue };
    case 'bytes':
      return bytesShape(ctx, type);
    default:
      return { type: 'varchar', branch: type, convert: same };
  }
}

/** Unions are decoded wrapped (`{branch: value}`), so the branch is always known; see the header for the shape. */
function union(branches: AvroSchemaJson[], ctx: Ctx): Shape {
  const shapes = branches.map((b) => shapeOf(b, ctx));
  const present = shapes.filter((x) => x.branch !== 'null');
  const unwrap = (v: unknown): [string, unknown] => {
    // avsc's wrapped union value: an object with the one branch present as its only own key.
    for (const k in v as Record<string, unknown>)
      if (Object.hasOwn(v as object, k)) return [k, (v as Record<string, unknown>)[k]];
    return ['null', null];
  };
  if (present.length === 1) {
    const only = present[0] as Shape;
    return {
      type: only.type,
      branch: 'union',
      convert: (v) => {
        const [, x] = unwrap(v);
        return x === null ? null : only.convert(x);
      },
    };
  }
  const fieldName = (b: string) => b.slice(b.lastIndexOf('.') + 1).replace(/[^A-Za-z0-9_]/g, '_');
  return {
    type: `row(${present.map((x) => `${fieldName(x.branch)} ${x.type}`).join(', ')})`,
    branch: 'union',
    convert: (v) => {
      const [k, x] = unwrap(v);
      return present.map((p) => (p.branch === k && x !== null ? p.convert(x) : null));
    },
  };
}
