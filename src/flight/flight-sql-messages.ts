/**
 * Flight SQL's commands (Arrow's FlightSql.proto, package `arrow.flight.protocol.sql`), declared with protobufjs
 * reflection from the specification's field numbers (docs/format/FlightSql.html). A command travels packed in a
 * google.protobuf.Any whose type URL names it: `type.googleapis.com/arrow.flight.protocol.sql.<Name>`, in a
 * FlightDescriptor's `cmd`, a Ticket, or an Action's body.
 */
import protobuf from 'protobufjs';
import { ApiError } from '../core/errors.js';
import { decodeMessage, encodeMessage } from './flight-messages.js';

const { Type, Field } = protobuf;

type FieldSpec = [string, number, string, ('repeated' | 'optional')?];

/** The commands and their fields, as the specification numbers them. */
const COMMANDS = {
  CommandGetSqlInfo: [['info', 1, 'uint32', 'repeated']],
  CommandGetXdbcTypeInfo: [['dataType', 1, 'int32', 'optional']],
  CommandGetCatalogs: [],
  CommandGetDbSchemas: [
    ['catalog', 1, 'string', 'optional'],
    ['dbSchemaFilterPattern', 2, 'string', 'optional'],
  ],
  CommandGetTables: [
    ['catalog', 1, 'string', 'optional'],
    ['dbSchemaFilterPattern', 2, 'string', 'optional'],
    ['tableNameFilterPattern', 3, 'string', 'optional'],
    ['tableTypes', 4, 'string', 'repeated'],
    ['includeSchema', 5, 'bool'],
  ],
  CommandGetTableTypes: [],
  CommandGetPrimaryKeys: [
    ['catalog', 1, 'string', 'optional'],
    ['dbSchema', 2, 'string', 'optional'],
    ['table', 3, 'string'],
  ],
  CommandGetExportedKeys: [
    ['catalog', 1, 'string', 'optional'],
    ['dbSchema', 2, 'string', 'optional'],
    ['table', 3, 'string'],
  ],
  CommandGetImportedKeys: [
    ['catalog', 1, 'string', 'optional'],
    ['dbSchema', 2, 'string', 'optional'],
    ['table', 3, 'string'],
  ],
  CommandGetCrossReference: [
    ['pkCatalog', 1, 'string', 'optional'],
    ['pkDbSchema', 2, 'string', 'optional'],
    ['pkTable', 3, 'string'],
    ['fkCatalog', 4, 'string', 'optional'],
    ['fkDbSchema', 5, 'string', 'optional'],
    ['fkTable', 6, 'string'],
  ],
  CommandStatementQuery: [
    ['query', 1, 'string'],
    ['transactionId', 2, 'bytes', 'optional'],
  ],
  TicketStatementQuery: [['statementHandle', 1, 'bytes']],
  CommandPreparedStatementQuery: [['preparedStatementHandle', 1, 'bytes']],
  ActionCreatePreparedStatementRequest: [
    ['query', 1, 'string'],
    ['transactionId', 2, 'bytes', 'optional'],
  ],
  ActionCreatePreparedStatementResult: [
    ['preparedStatementHandle', 1, 'bytes'],
    ['datasetSchema', 2, 'bytes'],
    ['parameterSchema', 3, 'bytes'],
  ],
  ActionClosePreparedStatementRequest: [['preparedStatementHandle', 1, 'bytes']],
} satisfies Record<string, FieldSpec[]>;

export type SqlCommandName = keyof typeof COMMANDS;

const root = new protobuf.Root();
const ns = root.define('arrow.flight.protocol.sql');
for (const [name, fields] of Object.entries(COMMANDS) as [string, FieldSpec[]][]) {
  const t = new Type(name);
  for (const [field, id, type, rule] of fields) t.add(new Field(field, id, type, rule));
  ns.add(t);
}
root.resolveAll();

const TYPE_URL_PREFIX = 'type.googleapis.com/arrow.flight.protocol.sql.';

/** A decoded command: its name and its fields (bytes as Buffers). */
export interface SqlCommand {
  name: SqlCommandName;
  fields: Record<string, unknown>;
}

/** proto3's defaults for absent fields, but for `optional` ones, which stay absent (an absent data_type is not 0). */
function withDefaults(specs: readonly FieldSpec[], fields: Record<string, unknown>): Record<string, unknown> {
  const out = { ...fields };
  for (const [field, , type, rule] of specs) {
    if (out[field] !== undefined || rule === 'optional') continue;
    if (rule === 'repeated') out[field] = [];
    else out[field] = type === 'bytes' ? Buffer.alloc(0) : type === 'string' ? '' : type === 'bool' ? false : 0;
  }
  return out;
}

/** The command packed in an Any, as a descriptor's `cmd`, a ticket or an action body carries it. */
export function packCommand(name: SqlCommandName, fields: Record<string, unknown> = {}): Buffer {
  const t = root.lookupType(`arrow.flight.protocol.sql.${name}`);
  const value = t.encode(t.fromObject(fields)).finish();
  return encodeMessage('Any', { typeUrl: `${TYPE_URL_PREFIX}${name}`, value });
}

/** The command in an Any; a 400 (INVALID_ARGUMENT) for bytes that are not one of the commands served. */
export function unpackCommand(bytes: Uint8Array): SqlCommand {
  let any: { typeUrl: string; value: Buffer };
  try {
    any = decodeMessage('Any', bytes);
  } catch {
    throw new ApiError('TG_BAD_REQUEST', 'the command is not a protobuf Any');
  }
  const name = any.typeUrl.startsWith(TYPE_URL_PREFIX) ? any.typeUrl.slice(TYPE_URL_PREFIX.length) : '';
  if (!Object.hasOwn(COMMANDS, name)) {
    throw new ApiError('TG_BAD_REQUEST', `command ${JSON.stringify(any.typeUrl.slice(0, 200))} is not served`);
  }
  const t = root.lookupType(`arrow.flight.protocol.sql.${name}`);
  try {
    const fields = t.toObject(t.decode(any.value), { longs: Number, bytes: Buffer, arrays: true });
    return { name: name as SqlCommandName, fields: withDefaults(COMMANDS[name as SqlCommandName], fields) };
  } catch {
    throw new ApiError('TG_BAD_REQUEST', `command ${name} is malformed`);
  }
}
