/**
 * Small Arrow tables for the metadata commands, and the Arrow IPC bytes Flight wants: a schema as one encapsulated
 * IPC message (FlightInfo.schema, SchemaResult, GetTables' `table_schema`, a prepared statement's dataset schema),
 * and a table as an IPC stream (re-framed into FlightData by flight-data.ts).
 */
import {
  Field,
  makeBuilder,
  makeData,
  RecordBatch,
  type Schema,
  Struct,
  Table,
  tableToIPC,
  type DataType,
} from 'apache-arrow';

/** A field of a metadata schema: nullable unless `notNull`. */
export const field = (name: string, type: DataType, notNull = false) => new Field(name, type, !notNull);

/** A table of `schema` with `rows` (one array of values per row, in the schema's order). */
export function tableOf(
  schema: Schema,
  rows: readonly (readonly unknown[])[],
  union?: { valueToChildTypeId: (builder: unknown, value: unknown) => number },
): Table {
  const children = schema.fields.map((f, i) => {
    const builder = makeBuilder({ type: f.type, nullValues: [null, undefined], ...union } as Parameters<
      typeof makeBuilder
    >[0]);
    for (const row of rows) builder.append(row[i]);
    return builder.finish().flush();
  });
  const data = makeData({ type: new Struct(schema.fields), length: rows.length, nullCount: 0, children });
  return new Table([new RecordBatch(schema, data)]);
}

/** The end-of-stream marker an IPC stream ends with: continuation, then a zero length. */
const EOS_BYTES = 8;

/** A schema as one encapsulated IPC message (continuation marker, length, flatbuffer Message), as Flight sends it. */
export function schemaBytes(schema: Schema): Buffer {
  const stream = tableToIPC(new Table(schema), 'stream');
  return Buffer.from(stream.subarray(0, stream.length - EOS_BYTES));
}

/** A table as an Arrow IPC stream. */
export function tableBytes(table: Table): Uint8Array {
  return tableToIPC(table, 'stream');
}
