/**
 * Decodes a topic's Confluent-framed `key` / `value` in a result stream, batch by batch, before any encoder sees
 * it (API.md "Schema Registry payloads"). A frame is one magic byte 0, a 4-byte big-endian schema id, then the
 * payload. The decoded column takes the reader schema's Trino type (avro-shape.ts), so every format shows it
 * typed; three columns follow it, in this order, for every decoded column `c`:
 * - `c_schema_id` (integer): the writer's schema id from the frame (null when unframed);
 * - `c_raw` (varbinary): the payload's bytes, exactly as stored, whenever it was not decoded (else null);
 * - `c_error` (varchar): why it was not decoded, else null: `unframed`, `unknown-schema-id`, `not-avro`,
 *   `unresolvable: <Avro's reason>` (the writer schema does not resolve into the reader schema),
 *   `undecodable: <reason>` (the bytes do not decode with their writer schema), `too-many-schema-ids` (the
 *   response already asked the registry for MAX_LOOKUPS ids it did not have: this one was not looked up).
 * So no event is dropped or fails the query: it is reported with its bytes. `json-sr` strips the frame and
 * keeps the JSON (a varbinary, shown as JSON by the text formats).
 *
 * The reader schema is fetched once, when the response starts (the subject's latest version, or the pinned
 * `readerVersion`); writer schemas by id as new ids appear (cached by the registry client).
 */
import { ApiError } from '../../core/errors.js';
import type { ResultColumn, ResultStream } from '../../core/result-stream.js';
import { avroType, writerDecoder, type AvroType, type WriterDecoder } from './avro-codec.js';
import { avroShape, type Shape } from './avro-shape.js';
import type { PayloadSettings } from '../../config/registry-config.js';
import type { RegistryPort } from './schema-registry.js';
import { flattenRow, type Flattening } from './flatten-rows.js';
import { trinoTypeOf } from '../../core/type-family.js';
import { rowValues } from '../../core/text-rows.js';

export const PAYLOAD_COLUMNS = ['key', 'value'] as const;
export type PayloadColumn = (typeof PAYLOAD_COLUMNS)[number];
/** The suffixes of the columns that follow a decoded one (see the header). */
export const COMPANION_SUFFIXES = ['_schema_id', '_raw', '_error'] as const;

export interface ReaderSchema {
  subject: string;
  version: number;
  id: number;
  type: AvroType;
  shape: Shape;
}

type Writer = { decoder: WriterDecoder } | { error: string };

interface ColumnDecoding {
  column: PayloadColumn;
  format: 'avro' | 'json-sr';
  reader: ReaderSchema | null;
  writers: Map<number, Writer>;
  /** Registry requests made for this column (ids the client did not have at hand). */
  lookups: number;
}

export interface TopicPayloads {
  key?: PayloadSettings;
  value?: PayloadSettings;
}

/**
 * The subject of a column by Confluent's TopicNameStrategy, `<Kafka topic>-key` / `-value`, unless configured. The
 * Kafka topic is the table's name: a topic id served beside other schemas is `<schema>:<table>`, and a Kafka topic
 * name has no colon, so the topic is what follows the last one.
 */
export const subjectOf = (topic: string, column: PayloadColumn, s: Pick<PayloadSettings, 'subject'> | undefined) =>
  s?.subject ?? `${topic.slice(topic.lastIndexOf(':') + 1)}-${column}`;

/** The reader schema of a decoded column: fetched now, its Trino shape compiled. */
export async function readerSchema(
  registry: RegistryPort,
  subject: string,
  version: number | 'latest',
  o: { hexBytes?: boolean } = {},
): Promise<ReaderSchema> {
  const found = await registry.version(subject, version);
  if (!found) {
    throw new ApiError('TG_SCHEMA_REGISTRY', `the Schema Registry has no version ${version} of subject ${subject}`, {
      subject,
      version,
    });
  }
  if (found.schemaType !== 'AVRO') {
    throw new ApiError('TG_SCHEMA_REGISTRY', `subject ${subject} holds a ${found.schemaType} schema, not Avro`, {
      subject,
    });
  }
  try {
    return {
      subject,
      version: found.version,
      id: found.id,
      type: avroType(found.schema),
      shape: avroShape(JSON.parse(found.schema), o),
    };
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new ApiError('TG_SCHEMA_REGISTRY', `the reader schema of subject ${subject} cannot be used: ${why}`, {
      subject,
    });
  }
}

/** Prepares the decoding of a topic's payloads (fetching reader schemas now); null when nothing is decoded. */
export async function preparePayloads(
  topic: string,
  payloads: TopicPayloads | undefined,
  registry: RegistryPort | undefined,
  o: { hexBytes?: boolean; versions?: Partial<Record<PayloadColumn, number>> } = {},
): Promise<PayloadDecoding | null> {
  const columns: ColumnDecoding[] = [];
  for (const column of PAYLOAD_COLUMNS) {
    const s = payloads?.[column];
    if (!s || s.format === 'raw') continue;
    if (s.format === 'json-sr') {
      columns.push({ column, format: 'json-sr', reader: null, writers: new Map(), lookups: 0 });
      continue;
    }
    if (!registry) throw new ApiError('TG_SCHEMA_REGISTRY', 'no Schema Registry is configured');
    const version = o.versions?.[column] ?? s.readerVersion ?? 'latest';
    const reader = await readerSchema(registry, subjectOf(topic, column, s), version, o);
    columns.push({ column, format: 'avro', reader, writers: new Map(), lookups: 0 });
  }
  return columns.length ? new PayloadDecoding(columns, registry) : null;
}

type Row = readonly unknown[];
/** Rows decoded between two turns of the event loop. */
const SLICE_ROWS = 1024;
/**
 * Schema ids one response asks the registry for at most, per decoded column, besides those the registry client
 * has at hand: a subject has a few versions, so a window framed with hundreds of ids the registry does not have
 * is no serializer's doing. Their events keep their bytes, and one response makes a bounded number of requests.
 */
export const MAX_LOOKUPS = 256;

export class PayloadDecoding {
  constructor(
    private readonly columns: readonly ColumnDecoding[],
    private readonly registry: RegistryPort | undefined,
  ) {}

  /**
   * The result with its payload columns decoded; columns not in the result (not selected) are left alone.
   * `flatten` (CSV): a decoded record is one column per leaf field, named by path (flatten-rows.ts).
   */
  wrap(result: ResultStream, o: { flatten?: boolean } = {}): ResultStream {
    const at = this.columns
      .map((d) => ({ d, i: result.columns.findIndex((c) => c.name === d.column && c.type === 'varbinary') }))
      .filter((x) => x.i >= 0);
    if (at.length === 0) return result;
    const byIndex = new Map(at.map((x) => [x.i, x.d]));
    const flat = new Map<PayloadColumn, Flattening>();
    const columns: ResultColumn[] = [];
    result.columns.forEach((c, i) => {
      const d = byIndex.get(i);
      const type = d?.reader ? d.reader.shape.type : 'varbinary';
      if (d && o.flatten && trinoTypeOf(type).base === 'row') flat.set(d.column, flattenRow(c.name, type));
      if (!d) columns.push(c);
      else
        columns.push(
          ...(flat.get(d.column)?.columns ?? [{ name: c.name, type }]),
          { name: `${c.name}_schema_id`, type: 'integer' },
          { name: `${c.name}_raw`, type: 'varbinary' },
          { name: `${c.name}_error`, type: 'varchar' },
        );
    });
    const self = this;
    async function* batches(): AsyncGenerator<Row[]> {
      for await (const batch of result.batches) {
        const rows = rowValues(batch);
        if (rows.length === 0) {
          yield [];
          continue;
        }
        for (const { d, i } of at) await self.learnWriters(d, rows, i);
        // A Trino page can hold many thousand rows: decoded and handed on in slices, so the event loop turns
        // between them (decoding is CPU work; one whole page at once would hold every other response up).
        for (let from = 0; from < rows.length; from += SLICE_ROWS) {
          yield rows.slice(from, from + SLICE_ROWS).map((row) => self.decodeRow(row, byIndex, flat));
          if (from + SLICE_ROWS < rows.length) await new Promise<void>((resolve) => setImmediate(resolve));
        }
      }
    }
    return { queryId: result.queryId, columns, batches: batches() };
  }

  /** One row with its payload columns decoded (and flattened where asked), the other columns as they are. */
  private decodeRow(row: Row, byIndex: Map<number, ColumnDecoding>, flat: Map<PayloadColumn, Flattening>): unknown[] {
    const out: unknown[] = [];
    for (let i = 0; i < row.length; i++) {
      const d = byIndex.get(i);
      if (!d) {
        out.push(row[i]);
        continue;
      }
      const [decoded, ...rest] = this.decodeOne(d, row[i]);
      const f = flat.get(d.column);
      out.push(...(f ? f.leaves(decoded) : [decoded]), ...rest);
    }
    return out;
  }

  /** Fetches (once per response and id) the writer schemas of the batch's framed values. */
  private async learnWriters(d: ColumnDecoding, rows: readonly Row[], i: number): Promise<void> {
    if (d.format !== 'avro' || !d.reader || !this.registry) return;
    const registry = this.registry;
    const wanted = new Set<number>();
    for (const row of rows) {
      const id = frameId(row[i]);
      if (id === null || d.writers.has(id) || wanted.has(id)) continue;
      const known = registry.isKnown(id);
      if (!known && d.lookups >= MAX_LOOKUPS) continue;
      if (!known) d.lookups++;
      wanted.add(id);
    }
    const reader = d.reader;
    await Promise.all(
      [...wanted].map(async (id) => {
        const found = await registry.byId(id);
        d.writers.set(id, writerFor(reader, id, found));
      }),
    );
  }

  /** [decoded, schema id, raw, error] for one stored value. */
  private decodeOne(d: ColumnDecoding, v: unknown): unknown[] {
    if (v === null || v === undefined) return [null, null, null, null];
    const bytes = Buffer.from(v as string, 'base64');
    const id = frameIdOf(bytes);
    if (id === null) return [null, null, v, 'unframed'];
    const body = bytes.subarray(5);
    if (d.format === 'json-sr') return [body.toString('base64'), id, null, null];
    const w = d.writers.get(id);
    // Every id looked up has its writer (or its error): one without was past the response's lookups.
    if (!w) return [null, id, v, 'too-many-schema-ids'];
    if ('error' in w) return [null, id, v, w.error];
    try {
      return [(d.reader as ReaderSchema).shape.convert(w.decoder.decode(body)), id, null, null];
    } catch (err) {
      return [null, id, v, `undecodable: ${err instanceof Error ? err.message : String(err)}`];
    }
  }
}

function writerFor(reader: ReaderSchema, id: number, found: { schemaType: string; schema: string } | null): Writer {
  if (!found) return { error: 'unknown-schema-id' };
  if (found.schemaType !== 'AVRO') return { error: 'not-avro' };
  try {
    return { decoder: writerDecoder(reader.type, avroType(found.schema), id === reader.id) };
  } catch (err) {
    return { error: `unresolvable: ${err instanceof Error ? err.message : String(err)}` };
  }
}

/** The schema id of a Confluent frame, or null when the bytes are not framed. */
export function frameIdOf(bytes: Buffer): number | null {
  return bytes.length >= 5 && bytes[0] === 0 ? bytes.readUInt32BE(1) : null;
}

function frameId(v: unknown): number | null {
  if (typeof v !== 'string') return null;
  // The first 8 base64 characters hold the first 6 bytes: enough for the frame, without decoding the payload.
  return frameIdOf(Buffer.from(v.slice(0, 8), 'base64'));
}
