/**
 * The frames of an Avro key's texts (query/passes/frame-key-filters.ts): each text a read's filters compare the key with,
 * Avro-encoded with every version of the key subject whose schema is a string, int or long, behind that
 * version's Confluent frame header. Computed before planning (registry lookups are asynchronous; planning is not)
 * and handed to the planning entry as data.
 */
import type { PayloadSettings } from '../../config/registry-config.js';
import type { PredicateNode } from '../../query/tree/nodes.js';
import { keyTexts } from '../../query/passes/frame-key-filters.js';
import type { KeyFrames } from '../../query/tree/key-frames.js';
import { avroType } from './avro-codec.js';
import { subjectOf } from './payload-decoder.js';
import type { RegistryPort } from './schema-registry.js';

/** An Avro key subject's versions that can be written from text, each with its encoder. */
export interface KeyFraming {
  subject: string;
  /** One encoder per key schema version that can be written from text (null: this text does not fit it). */
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
  const subject = subjectOf(topic, 'key', key);
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

/** The frames of every key text the filters name, in every version of the framing that can hold it. */
export function keyFrames(framing: KeyFraming, wheres: readonly (PredicateNode | null)[]): KeyFrames {
  const frames = new Map<string, Buffer[]>();
  for (const text of keyTexts(...wheres)) {
    frames.set(
      text,
      framing.encoders.flatMap((e) => e.encode(text) ?? []),
    );
  }
  return { subject: framing.subject, frames };
}

/** The key frames of a read on `topic` (its filters and the caller's row filter); null when its key is not Avro. */
export async function keyFramesFor(
  topic: string,
  key: PayloadSettings | undefined,
  registry: RegistryPort | undefined,
  wheres: readonly (PredicateNode | null)[],
): Promise<KeyFrames | null> {
  const framing = await keyFraming(topic, key, registry);
  return framing && keyFrames(framing, wheres);
}
