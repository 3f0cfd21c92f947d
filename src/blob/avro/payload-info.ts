/**
 * What GET /v1/topics/{topic} says of a topic's Schema Registry payloads: per decoded column, its
 * format, subject, the reader schema (latest or pinned: version, id, the schema itself) and the columns a read
 * returns in its place (the decoded record's Trino type and the three companion columns).
 */
import { Type, type Static } from 'typebox';
import { enumsAsText } from '../../core/type-family.js';
import { PAYLOAD_COLUMNS, readerSchema, subjectOf, type TopicPayloads } from './payload-decoder.js';
import type { RegistryPort } from './schema-registry.js';

const ReaderInfo = Type.Object({
  version: Type.Integer({ description: 'The reader version: the latest when asked, or the pinned readerVersion' }),
  id: Type.Integer({ description: 'Its schema id' }),
  schema: Type.Unknown({ description: 'The Avro schema (JSON)' }),
});

export const PayloadInfoSchema = Type.Object({
  format: Type.Union([Type.Literal('avro'), Type.Literal('json-sr')]),
  subject: Type.Optional(Type.String()),
  readerVersion: Type.Union([Type.Literal('latest'), Type.Integer()]),
  reader: Type.Optional(ReaderInfo),
  columns: Type.Array(Type.Object({ name: Type.String(), type: Type.String() }), {
    description: 'What a read returns in place of the stored bytes (the companion columns say what was not decoded)',
  }),
});
export type PayloadInfo = Static<typeof PayloadInfoSchema>;

export const PayloadsSchema = Type.Object(
  { key: Type.Optional(PayloadInfoSchema), value: Type.Optional(PayloadInfoSchema) },
  { description: 'Keys and values decoded through the Schema Registry (the config file says which)' },
);

/** The payload description of a topic, reading its reader schemas now; undefined when nothing is decoded. */
export async function payloadInfo(
  topic: string,
  payloads: TopicPayloads | undefined,
  registry: RegistryPort | undefined,
): Promise<Static<typeof PayloadsSchema> | undefined> {
  const out: Static<typeof PayloadsSchema> = {};
  for (const column of PAYLOAD_COLUMNS) {
    const s = payloads?.[column];
    if (!s || s.format === 'raw') continue;
    const companions = [
      { name: `${column}_schema_id`, type: 'integer' },
      { name: `${column}_raw`, type: 'varbinary' },
      { name: `${column}_error`, type: 'varchar' },
    ];
    const readerVersion = s.readerVersion ?? 'latest';
    if (s.format === 'json-sr' || !registry) {
      out[column] = { format: s.format, readerVersion, columns: [{ name: column, type: 'varbinary' }, ...companions] };
      continue;
    }
    const subject = subjectOf(topic, column, s);
    const r = await readerSchema(registry, subject, readerVersion);
    const schema = (await registry.byId(r.id))?.schema;
    out[column] = {
      format: 'avro',
      subject,
      readerVersion,
      reader: { version: r.version, id: r.id, schema: schema === undefined ? null : JSON.parse(schema) },
      columns: [{ name: column, type: enumsAsText(r.shape.type) }, ...companions],
    };
  }
  return Object.keys(out).length ? out : undefined;
}
