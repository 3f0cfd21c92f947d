/**
 * The Trino types of a topic's decoded Avro key and value, for planning: with them a request can name
 * decoded fields (`value.amount`, query/request/decoded-column.ts). The reader versions found are pinned for the response, so
 * the fields planned are the fields decoded even when a new version is registered meanwhile.
 */
import { PAYLOAD_COLUMNS, readerSchema, subjectOf, type PayloadColumn, type TopicPayloads } from './payload-decoder.js';
import type { RegistryPort } from './schema-registry.js';

export interface DecodedTypes {
  types: Map<PayloadColumn, string>;
  versions: Partial<Record<PayloadColumn, number>>;
}

/**
 * Null when the topic decodes no Avro payload (or there is no registry: the read itself then says so). `pinned`:
 * versions an earlier response chose (a read session's streams decode with the versions the session was made with).
 */
export async function decodedTypes(
  topic: string,
  payloads: TopicPayloads | undefined,
  registry: RegistryPort | undefined,
  pinned: DecodedTypes['versions'] = {},
): Promise<DecodedTypes | null> {
  const out: DecodedTypes = { types: new Map(), versions: {} };
  for (const column of PAYLOAD_COLUMNS) {
    const s = payloads?.[column];
    if (!registry || s?.format !== 'avro') continue;
    const reader = await readerSchema(
      registry,
      subjectOf(topic, column, s),
      pinned[column] ?? s.readerVersion ?? 'latest',
    );
    out.types.set(column, reader.shape.type);
    out.versions[column] = reader.version;
  }
  return out.types.size ? out : null;
}
