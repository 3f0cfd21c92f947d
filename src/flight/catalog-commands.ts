/**
 * The metadata commands (Flight SQL's GetCatalogs, GetDbSchemas, GetTables, GetTableTypes and the key commands),
 * each a small Arrow table of the schema the specification defines for it (docs/format/FlightSql.html). The model:
 * catalog `topicgate`, one db schema per served schema, one table per topic or table the caller may see (the same
 * visibility as GET /v1/topics: access/grants.ts), of type TOPIC or TABLE; a table's schema is its columns as
 * GET /v1/topics/{topic} gives them (expanded fields, and decoded Avro key and value as their records), typed as
 * the Arrow output types them.
 */
import { Binary, Int32, Schema, Uint8, Utf8 } from 'apache-arrow';
import { withDecodedFields } from '../entry/read-topic.js';
import { arrowBatches } from '../encode/arrow/arrow-batches.js';
import { topicDetail, type topicSummary, visibleTopics } from '../entry/topic-detail.js';
import { field, schemaBytes, tableOf } from './arrow-tables.js';
import type { FlightCall, FlightServices } from './flight-call.js';

/** The one catalog. */
export const CATALOG = 'topicgate';
/** Table types: a table with the topic layout, and any other served table. */
export const TABLE_TYPES = ['TOPIC', 'TABLE'] as const;

const text = (name: string, notNull = false) => field(name, new Utf8(), notNull);

export const CATALOGS_SCHEMA = new Schema([text('catalog_name', true)]);
export const DB_SCHEMAS_SCHEMA = new Schema([text('catalog_name'), text('db_schema_name', true)]);
export const TABLE_TYPES_SCHEMA = new Schema([text('table_type', true)]);

/** GetTables' schema: with `table_schema` when the command asks to include the schemas. */
export function tablesSchema(includeSchema: boolean): Schema {
  const base = [text('catalog_name'), text('db_schema_name'), text('table_name', true), text('table_type', true)];
  return new Schema(includeSchema ? [...base, field('table_schema', new Binary(), true)] : base);
}

export const PRIMARY_KEYS_SCHEMA = new Schema([
  text('catalog_name'),
  text('db_schema_name'),
  text('table_name', true),
  text('column_name', true),
  text('key_name'),
  field('key_sequence', new Int32(), true),
]);

/** GetExportedKeys, GetImportedKeys and GetCrossReference share one schema. */
export const FOREIGN_KEYS_SCHEMA = new Schema([
  text('pk_catalog_name'),
  text('pk_db_schema_name'),
  text('pk_table_name', true),
  text('pk_column_name', true),
  text('fk_catalog_name'),
  text('fk_db_schema_name'),
  text('fk_table_name', true),
  text('fk_column_name', true),
  field('key_sequence', new Int32(), true),
  text('fk_key_name'),
  text('pk_key_name'),
  field('update_rule', new Uint8(), true),
  field('delete_rule', new Uint8(), true),
]);

/** A LIKE pattern's wildcards: `_` one character, `%` any run. */
const ONE = Symbol('_');
const ANY = Symbol('%');
type LikeToken = string | typeof ONE | typeof ANY;

/**
 * A SQL LIKE pattern (`%` any run, `_` one character, `\` escapes the next) as a test; absent or empty: everything,
 * as the specification says of the filter patterns. Matched by the greedy wildcard walk (back to the last `%` only),
 * never a regular expression: a client's pattern of many `%` costs at most pattern x name steps, not a backtracking
 * search that would hold the event loop.
 */
export function likeTest(pattern: string | undefined | null): (s: string) => boolean {
  if (!pattern) return () => true;
  const tokens: LikeToken[] = [];
  const chars = Array.from(pattern);
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    if (c === '\\' && i + 1 < chars.length) tokens.push(chars[++i]!);
    else if (c === '%') {
      if (tokens.at(-1) !== ANY) tokens.push(ANY);
    } else tokens.push(c === '_' ? ONE : c);
  }
  return (s) => likeMatches(tokens, Array.from(s));
}

function likeMatches(tokens: readonly LikeToken[], s: readonly string[]): boolean {
  let p = 0;
  let i = 0;
  // The last `%` seen, and where in the name its run now ends: a mismatch later lets that run take one more.
  let star = -1;
  let mark = 0;
  while (i < s.length) {
    const t = tokens[p];
    if (t === ANY) {
      star = p++;
      mark = i;
    } else if (t !== undefined && (t === ONE || t === s[i])) {
      p++;
      i++;
    } else if (star >= 0) {
      p = star + 1;
      i = ++mark;
    } else return false;
  }
  while (tokens[p] === ANY) p++;
  return p === tokens.length;
}

/** The catalog filter of a command: absent, empty or ours. */
const inCatalog = (catalog: unknown) =>
  catalog === undefined || catalog === null || catalog === '' || catalog === CATALOG;

export function catalogsTable() {
  return tableOf(CATALOGS_SCHEMA, [[CATALOG]]);
}

export function dbSchemasTable(services: FlightServices, fields: { catalog?: string; dbSchemaFilterPattern?: string }) {
  const test = likeTest(fields.dbSchemaFilterPattern);
  const rows = inCatalog(fields.catalog) ? services.config.schemas.filter(test).map((s) => [CATALOG, s]) : [];
  return tableOf(DB_SCHEMAS_SCHEMA, rows);
}

export function tableTypesTable() {
  return tableOf(
    TABLE_TYPES_SCHEMA,
    TABLE_TYPES.map((t) => [t]),
  );
}

/** The tables the caller may see (as GET /v1/topics lists them) that the command's filters select, in order. */
async function visibleTables(call: FlightCall, fields: TablesFields): Promise<TopicSummary[]> {
  if (!inCatalog(fields.catalog)) return [];
  const schemaTest = likeTest(fields.dbSchemaFilterPattern);
  const nameTest = likeTest(fields.tableNameFilterPattern);
  const types = new Set((fields.tableTypes ?? []).map((t) => t.toUpperCase()));
  return (await visibleTopics(call))
    .filter((t) => schemaTest(t.schema) && nameTest(t.table) && (types.size === 0 || types.has(typeOf(t))))
    .sort((a, b) => (a.schema === b.schema ? cmp(a.table, b.table) : cmp(a.schema, b.schema)));
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
type TopicSummary = ReturnType<typeof topicSummary>;
const typeOf = (t: TopicSummary) => (t.kind === 'topic' ? 'TOPIC' : 'TABLE');

export interface TablesFields {
  catalog?: string;
  dbSchemaFilterPattern?: string;
  tableNameFilterPattern?: string;
  tableTypes?: string[];
  includeSchema?: boolean;
}

/**
 * The Arrow schema of a table's columns as GET /v1/topics/{topic} gives them (entry/topic-detail.ts): table columns
 * and expanded fields, each decoded payload column replaced by the columns a read returns in its place (the decoded
 * record and its companions), typed as the Arrow output types them (no query metadata).
 */
export async function topicArrowSchema(call: FlightCall, id: string): Promise<Schema> {
  const detail = await topicDetail(call, id);
  const payloads: Record<string, { columns: { name: string; type: string }[] } | undefined> = detail.payloads ?? {};
  // The decoded record's type as the decoder gives it (enums kept as enums: the Arrow output's dictionaries).
  const { topic } = await withDecodedFields(call.services, await call.services.catalog.model(id), true);
  const decodedType = (name: string) => topic.decoded?.get(name as 'key' | 'value');
  const columns = detail.columns.flatMap(
    (c) =>
      payloads[c.name]?.columns.map((p) => (p.name === c.name ? { ...p, type: decodedType(c.name) ?? p.type } : p)) ?? [
        { name: c.name, type: c.type },
      ],
  );
  const empty = (async function* () {})();
  return new Schema(arrowBatches({ queryId: '', columns, batches: empty }).schema.fields);
}

export async function tablesTable(call: FlightCall, fields: TablesFields) {
  const tables = await visibleTables(call, fields);
  const include = fields.includeSchema === true;
  const rows = await Promise.all(
    tables.map(async (t) => {
      const row: unknown[] = [CATALOG, t.schema, t.table, typeOf(t)];
      if (include) row.push(schemaBytes(await topicArrowSchema(call, t.name)));
      return row;
    }),
  );
  return tableOf(tablesSchema(include), rows);
}
