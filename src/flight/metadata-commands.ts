/**
 * The metadata commands served by GetFlightInfo (their schema, and one endpoint whose ticket is the command) and
 * DoGet (their table): catalog-commands.ts and sql-info.ts make the tables.
 */
import type { Schema, Table } from 'apache-arrow';
import { ApiError, assertNever } from '../core/errors.js';
import { tableBytes, tableOf } from './arrow-tables.js';
import {
  CATALOGS_SCHEMA,
  DB_SCHEMAS_SCHEMA,
  FOREIGN_KEYS_SCHEMA,
  PRIMARY_KEYS_SCHEMA,
  TABLE_TYPES_SCHEMA,
  catalogsTable,
  dbSchemasTable,
  tableTypesTable,
  tablesSchema,
  tablesTable,
  type TablesFields,
} from './catalog-commands.js';
import type { FlightCall } from './flight-call.js';
import { encodeFlightData, ipcMessages } from './flight-data.js';
import type { SqlCommand, SqlCommandName } from './flight-sql-messages.js';
import { SERVER_VERSION, SQL_INFO_SCHEMA, XDBC_TYPE_INFO_SCHEMA, sqlInfoTable, xdbcTypeInfoTable } from './sql-info.js';

const METADATA = [
  'CommandGetCatalogs',
  'CommandGetDbSchemas',
  'CommandGetTables',
  'CommandGetTableTypes',
  'CommandGetSqlInfo',
  'CommandGetXdbcTypeInfo',
  'CommandGetPrimaryKeys',
  'CommandGetExportedKeys',
  'CommandGetImportedKeys',
  'CommandGetCrossReference',
] as const satisfies readonly SqlCommandName[];

type MetadataName = (typeof METADATA)[number];
export type MetadataCommand = SqlCommand & { name: MetadataName };

export function isMetadata(cmd: SqlCommand): cmd is MetadataCommand {
  return (METADATA as readonly string[]).includes(cmd.name);
}

/** The schema of a metadata command's result, as the specification defines it. */
export function metadataSchema(cmd: MetadataCommand): Schema {
  switch (cmd.name) {
    case 'CommandGetCatalogs':
      return CATALOGS_SCHEMA;
    case 'CommandGetDbSchemas':
      return DB_SCHEMAS_SCHEMA;
    case 'CommandGetTables':
      return tablesSchema(cmd.fields.includeSchema === true);
    case 'CommandGetTableTypes':
      return TABLE_TYPES_SCHEMA;
    case 'CommandGetSqlInfo':
      return SQL_INFO_SCHEMA;
    case 'CommandGetXdbcTypeInfo':
      return XDBC_TYPE_INFO_SCHEMA;
    case 'CommandGetPrimaryKeys':
      return PRIMARY_KEYS_SCHEMA;
    case 'CommandGetExportedKeys':
    case 'CommandGetImportedKeys':
    case 'CommandGetCrossReference':
      return FOREIGN_KEYS_SCHEMA;
    default:
      return assertNever(cmd.name, 'metadata command');
  }
}

/** The result of a metadata command for the call's caller (what it may not read is absent). */
async function metadataTable(call: FlightCall, cmd: MetadataCommand): Promise<Table> {
  const f = cmd.fields;
  switch (cmd.name) {
    case 'CommandGetCatalogs':
      return catalogsTable();
    case 'CommandGetDbSchemas':
      return dbSchemasTable(call.services, f as { catalog?: string; dbSchemaFilterPattern?: string });
    case 'CommandGetTables':
      return tablesTable(call, f as TablesFields);
    case 'CommandGetTableTypes':
      return tableTypesTable();
    case 'CommandGetSqlInfo':
      return sqlInfoTable(SERVER_VERSION, (f.info as number[] | undefined) ?? []);
    case 'CommandGetXdbcTypeInfo':
      return xdbcTypeInfoTable(f.dataType as number | undefined);
    case 'CommandGetPrimaryKeys':
    case 'CommandGetExportedKeys':
    case 'CommandGetImportedKeys':
    case 'CommandGetCrossReference':
      // Topics have no keys in the relational sense: the answer is always empty.
      return tableOf(metadataSchema(cmd), []);
    default:
      return assertNever(cmd.name, 'metadata command');
  }
}

/** The FlightData messages of a metadata command's result. */
export async function* metadataData(call: FlightCall, cmd: SqlCommand): AsyncGenerator<Buffer> {
  if (!isMetadata(cmd)) throw new ApiError('TG_BAD_REQUEST', `${cmd.name} is not a ticket DoGet serves`);
  const table = await metadataTable(call, cmd);
  call.rows = table.numRows;
  const chunks = (async function* () {
    yield tableBytes(table);
  })();
  for await (const m of ipcMessages(chunks)) yield encodeFlightData(m.header, m.body);
}
