/**
 * Filters on an Avro `key` stay pushed down (issue 13): the stored key is a Confluent frame, so `key=eq.pay-1`
 * must compare the column with the framed bytes, not with the text. The key's value is encoded with every version
 * of the key subject whose schema is a string, int or long, and framed with that version's id:
 * `key=eq.pay-1` -> `"key" IN (X'00 <id1> 0a7061792d31', X'00 <id2> ...')`, a bare column against varbinary
 * literals, which the storage evaluates. `neq` is NOT IN; `in` lists every value in every framing. Ranges and
 * patterns mean nothing on framed bytes, so they are refused. A pass over the request's filter tree, applied
 * before planning, so explain, paging tokens and the query all see the same SQL.
 */
import { ApiError } from '../../core/errors.js';
import type { LiteralNode, PredicateNode } from '../tree/nodes.js';
import { avroType } from '../../blob/avro/avro-codec.js';
import type { PayloadSettings } from '../../config/registry-config.js';
import type { RegistryPort } from '../../blob/avro/schema-registry.js';

export interface KeyFraming {
  subject: string;
  /** One encoder per key schema version that can be written from text. */
  encoders: readonly { id: number; version: number; encode(text: string): Buffer | null }[];
}

const PRIMITIVE_KEYS = new Set(['string', 'int', 'long']);

/** The key framings of a topic whose key is Avro (every version of its subject); null otherwise. */
export async function keyFraming(
  topic: string,
  key: PayloadSettings | undefined,
  registry: RegistryPort | undefined,
): Promise<KeyFraming | null> {
  if (key?.format !== 'avro' || !registry) return null;
  const subject = key.subject ?? `${topic}-key`;
  const versions = await registry.versions(subject);
  const found = await Promise.all(versions.map((v) => registry.version(subject, v)));
  const encoders: KeyFraming['encoders'][number][] = [];
  for (const s of found) {
    if (s?.schemaType !== 'AVRO') continue;
    const parsed = JSON.parse(s.schema) as unknown;
    const name = typeof parsed === 'string' ? parsed : (parsed as { type?: unknown }).type;
    if (typeof name !== 'string' || !PRIMITIVE_KEYS.has(name)) continue;
    const type = avroType(s.schema);
    const head = Buffer.alloc(5);
    head.writeUInt32BE(s.id, 1);
    encoders.push({
      id: s.id,
      version: s.version,
      encode: (text) => {
        if (name !== 'string' && !/^-?\d{1,19}$/.test(text)) return null;
        const value = name === 'string' ? text : name === 'long' ? BigInt(text) : Number(text);
        if (!type.isValid(value)) return null;
        return Buffer.concat([head, type.toBuffer(value)]);
      },
    });
  }
  return { subject, encoders };
}

/** The filter tree with every comparison on the table's `key` column made a comparison with framed bytes. */
export function frameKeyFilters(where: PredicateNode | null, framing: KeyFraming): PredicateNode | null {
  return where && frame(where, framing);
}

function frame(p: PredicateNode, f: KeyFraming): PredicateNode {
  switch (p.kind) {
    case 'and':
    case 'or':
      return { kind: p.kind, items: p.items.map((x) => frame(x, f)) };
    case 'not':
      return { kind: 'not', inner: frame(p.inner, f) };
    case 'compare':
    case 'in':
    case 'like':
    case 'match':
      break;
    default:
      return p;
  }
  if (p.column.name !== 'key' || p.column.source.kind !== 'table') return p;
  const framed = (values: readonly LiteralNode[]): LiteralNode[] =>
    values.flatMap((l) => {
      const text = l.value.t === 'varbinary' ? l.value.v.toString('utf8') : String((l.value as { v: unknown }).v);
      return f.encoders.flatMap((e) => {
        const bytes = e.encode(text);
        return bytes
          ? [{ kind: 'literal' as const, type: 'varbinary', value: { t: 'varbinary' as const, v: bytes } }]
          : [];
      });
    });
  if (p.kind === 'in') return { kind: 'in', column: p.column, values: framed(p.values) };
  if (p.kind === 'compare' && (p.op === 'eq' || p.op === 'neq')) {
    const list: PredicateNode = { kind: 'in', column: p.column, values: framed([p.value]) };
    return p.op === 'eq' ? list : { kind: 'not', inner: list };
  }
  const op = p.kind === 'compare' ? p.op : p.kind;
  throw new ApiError(
    'TG_BAD_OPERATOR',
    `key is an Avro key (subject ${f.subject}): filter it with eq, neq, in or is, not ${op}`,
    { column: 'key', operator: op },
  );
}
