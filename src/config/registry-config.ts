/**
 * API.md "Schema Registry payloads": the `schemaRegistry` block of the config file, and how a topic's `key` and
 * `value` are framed. One schema each (the Config type is derived from it); the checks across settings are here.
 */
import { Type, type Static } from 'typebox';
import { literalUnion } from './schema-problems.js';

/** `avro`: Confluent framing (magic 0, 4-byte big-endian schema id) around Avro binary; `json-sr`: around JSON. */
export const PAYLOAD_FORMATS = ['avro', 'json-sr', 'raw'] as const;
export type PayloadFormat = (typeof PAYLOAD_FORMATS)[number];

export const PayloadSettingsSchema = Type.Object(
  {
    format: literalUnion(PAYLOAD_FORMATS),
    /** The reader schema: the subject's latest version when the response starts (default), or a pinned version. */
    readerVersion: Type.Optional(Type.Union([Type.Literal('latest'), Type.Integer({ minimum: 1 })])),
    /** The subject; default `<topic>-key` / `<topic>-value` (Confluent's TopicNameStrategy). */
    subject: Type.Optional(Type.String({ minLength: 1 })),
  },
  { additionalProperties: false },
);
export type PayloadSettings = Static<typeof PayloadSettingsSchema>;

export const SchemaRegistrySchema = Type.Object(
  {
    /** The Confluent-compatible base URL; TOPICGATE_SCHEMA_REGISTRY_URL overrides it. */
    url: Type.Optional(Type.String({ minLength: 1 })),
    /** HTTP basic authentication: the user, and a file whose first line is the password (never in the file). */
    username: Type.Optional(Type.String({ minLength: 1 })),
    passwordFile: Type.Optional(Type.String({ minLength: 1 })),
    /** Registry requests in flight at once (schemas are cached by id, so this bounds only cold starts). */
    maxConcurrent: Type.Optional(Type.Integer({ minimum: 1, maximum: 64 })),
    /** Time limit of one registry request. */
    timeoutMs: Type.Optional(Type.Integer({ minimum: 100, maximum: 120_000 })),
    /** Schema ids cached at most (known or unknown), the least recently used going first. */
    maxCachedSchemas: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
    /** How long an id the registry does not know is remembered as unknown (it may be registered later). */
    unknownIdTtlMs: Type.Optional(Type.Integer({ minimum: 0, maximum: 86_400_000 })),
  },
  { additionalProperties: false },
);
export type SchemaRegistryFile = Static<typeof SchemaRegistrySchema>;

export interface SchemaRegistrySettings {
  url: string;
  username: string | undefined;
  passwordFile: string | undefined;
  maxConcurrent: number;
  timeoutMs: number;
  maxCachedSchemas: number;
  unknownIdTtlMs: number;
}

/** The registry settings (env URL over the file's), or undefined when none is configured. */
export function registrySettings(
  file: SchemaRegistryFile | undefined,
  envUrl: string | undefined,
  problems: string[],
): SchemaRegistrySettings | undefined {
  const raw = (envUrl || file?.url)?.replace(/\/+$/, '');
  if (!raw) return undefined;
  if (!URL.canParse(raw) || !/^https?:$/.test(new URL(raw).protocol)) {
    problems.push('schemaRegistry.url (or TOPICGATE_SCHEMA_REGISTRY_URL) must be an http(s) URL');
    return undefined;
  }
  const url = new URL(raw);
  if (url.username || url.password) {
    problems.push('schemaRegistry.url must not carry credentials: use schemaRegistry.username and passwordFile');
  }
  if (Boolean(file?.username) !== Boolean(file?.passwordFile)) {
    problems.push('schemaRegistry.username and schemaRegistry.passwordFile go together');
  }
  return {
    url: raw,
    username: file?.username,
    passwordFile: file?.passwordFile,
    maxConcurrent: file?.maxConcurrent ?? 4,
    timeoutMs: file?.timeoutMs ?? 10_000,
    // A topic's writers are a few versions of its subjects: a thousand ids serve hundreds of topics, and a schema
    // is a few kilobytes, so the cache stays a few megabytes whatever ids the events carry.
    maxCachedSchemas: file?.maxCachedSchemas ?? 1000,
    unknownIdTtlMs: file?.unknownIdTtlMs ?? 60_000,
  };
}

/** A topic that decodes a payload needs a registry. */
export function payloadProblems(
  topic: string,
  t: { key?: PayloadSettings; value?: PayloadSettings },
  registry: SchemaRegistrySettings | undefined,
): string[] {
  const decoded = [t.key, t.value].some((p) => p !== undefined && p.format !== 'raw');
  return decoded && !registry
    ? [`topics.${topic}: key/value format avro or json-sr needs schemaRegistry.url or TOPICGATE_SCHEMA_REGISTRY_URL`]
    : [];
}
