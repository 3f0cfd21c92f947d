/**
 * GetSqlInfo and GetXdbcTypeInfo (docs/format/FlightSql.html): what the server is and which SQL it takes, in the
 * schemas the specification defines. SqlInfo's value column is the specification's dense union (string, bool,
 * bigint, int32 bitmask, string list, int32 to int32-list map); the ids are the specification's SqlInfo numbers.
 */
import {
  Bool,
  DenseUnion,
  Field,
  Int32,
  Int64,
  List,
  Map_,
  Schema,
  Struct,
  Uint32,
  Utf8,
  type DataType,
} from 'apache-arrow';
import { MAX_SQL_LENGTH, SQL_FUNCTIONS } from '../query/statement/parse-statement.js';
import { field, tableOf } from './arrow-tables.js';

/** The keywords of the SQL subset (API.md "Flight SQL", statements). */
const SQL_KEYWORDS = [
  'SELECT',
  'FROM',
  'WHERE',
  'AND',
  'OR',
  'NOT',
  'IN',
  'LIKE',
  'ESCAPE',
  'IS',
  'NULL',
  'BETWEEN',
  'AS',
  'GROUP',
  'BY',
  'ORDER',
  'ASC',
  'DESC',
  'NULLS',
  'FIRST',
  'LAST',
  'LIMIT',
  'TIMESTAMP',
  'TRUE',
  'FALSE',
  'DISTINCT',
] as const;
/** The time bucket functions among the subset's. */
const TIME_FUNCTIONS: readonly string[] = ['date_trunc', 'bucket'];

/** This server's version (package.json), as GetSqlInfo names it. */
export const SERVER_VERSION = '0.1.0';

const listOf = (t: DataType) => new List(new Field('item', t, true));

const VALUE_TYPE = new DenseUnion(
  [0, 1, 2, 3, 4, 5],
  [
    field('string_value', new Utf8()),
    field('bool_value', new Bool()),
    field('bigint_value', new Int64()),
    field('int32_bitmask', new Int32()),
    field('string_list', listOf(new Utf8())),
    field(
      'int32_to_int32_list_map',
      new Map_(
        new Field(
          'entries',
          new Struct([new Field('key', new Int32(), false), new Field('value', listOf(new Int32()), true)] as Field[]),
          false,
        ) as Field<never>,
      ),
    ),
  ],
);

export const SQL_INFO_SCHEMA = new Schema([field('info_name', new Uint32(), true), field('value', VALUE_TYPE, true)]);

/** A value of the union: a string, a bool, a bigint (int64), a number (int32 bitmask) or a string list. */
type InfoValue = string | boolean | bigint | number | string[];

/** SqlInfo ids (the specification's enum SqlInfo) and this server's answers. */
function infoValues(version: string): [number, InfoValue][] {
  return [
    [0, 'topicgate'], // FLIGHT_SQL_SERVER_NAME
    [1, version], // FLIGHT_SQL_SERVER_VERSION
    [2, '21'], // FLIGHT_SQL_SERVER_ARROW_VERSION (apache-arrow's major version)
    [3, true], // FLIGHT_SQL_SERVER_READ_ONLY
    [4, true], // FLIGHT_SQL_SERVER_SQL: the SQL subset of API.md
    [5, false], // FLIGHT_SQL_SERVER_SUBSTRAIT
    [8, 0], // FLIGHT_SQL_SERVER_TRANSACTION: none
    [9, true], // FLIGHT_SQL_SERVER_CANCEL: a cancelled call cancels its Trino query
    [500, false], // SQL_DDL_CATALOG
    [501, false], // SQL_DDL_SCHEMA
    [502, false], // SQL_DDL_TABLE
    [503, 3], // SQL_IDENTIFIER_CASE: lowercase (Trino's names)
    [504, '"'], // SQL_IDENTIFIER_QUOTE_CHAR
    [10, false], // FLIGHT_SQL_SERVER_BULK_INGESTION
    [506, true], // SQL_ALL_TABLES_ARE_SELECTABLE: only what the caller may read is listed
    [508, [...SQL_KEYWORDS]], // SQL_KEYWORDS: the subset's
    [509, SQL_FUNCTIONS.filter((f) => !TIME_FUNCTIONS.includes(f))], // SQL_NUMERIC_FUNCTIONS: the aggregates
    [512, [...TIME_FUNCTIONS]], // SQL_DATETIME_FUNCTIONS: time buckets of broker time
    [513, '\\'], // SQL_SEARCH_STRING_ESCAPE (GetTables' and GetDbSchemas' patterns)
    [515, true], // SQL_SUPPORTS_COLUMN_ALIASING
    [518, true], // SQL_SUPPORTS_TABLE_CORRELATION_NAMES (`FROM orders o`)
    [520, false], // SQL_SUPPORTS_EXPRESSIONS_IN_ORDER_BY: columns and aliases only
    [523, true], // SQL_SUPPORTS_LIKE_ESCAPE_CLAUSE
    [529, 'schema'], // SQL_SCHEMA_TERM
    [531, 'catalog'], // SQL_CATALOG_TERM
    [536, false], // SQL_SELECT_FOR_UPDATE_SUPPORTED
    [537, false], // SQL_STORED_PROCEDURES_SUPPORTED
    [539, false], // SQL_CORRELATED_SUBQUERIES_SUPPORTED
    [540, 0], // SQL_SUPPORTED_UNIONS: none
    [557, BigInt(MAX_SQL_LENGTH)], // SQL_MAX_STATEMENT_LENGTH
    [560, 1n], // SQL_MAX_TABLES_IN_SELECT: one topic
    [563, false], // SQL_TRANSACTIONS_SUPPORTED
  ];
}

/** The union's child of a value. */
function childOf(v: unknown): number {
  if (typeof v === 'string') return 0;
  if (typeof v === 'boolean') return 1;
  if (typeof v === 'bigint') return 2;
  if (Array.isArray(v)) return 4;
  return 3;
}

/** The SqlInfo table: the ids asked for (none: every one this server answers), in the order asked. */
export function sqlInfoTable(version: string, asked: readonly number[]) {
  const all = new Map(infoValues(version));
  const ids = asked.length ? asked.filter((id) => all.has(id)) : [...all.keys()];
  const rows = ids.map((id) => [id, all.get(id)!]);
  // The union builder asks which child each appended value goes to: by the value's JavaScript type.
  return tableOf(SQL_INFO_SCHEMA, rows, { valueToChildTypeId: (_builder: unknown, v: unknown) => childOf(v) });
}

const int32 = () => new Int32();

export const XDBC_TYPE_INFO_SCHEMA = new Schema([
  field('type_name', new Utf8(), true),
  field('data_type', int32(), true),
  field('column_size', int32()),
  field('literal_prefix', new Utf8()),
  field('literal_suffix', new Utf8()),
  field('create_params', new List(new Field('item', new Utf8(), false))),
  field('nullable', int32(), true),
  field('case_sensitive', new Bool(), true),
  field('searchable', int32(), true),
  field('unsigned_attribute', new Bool()),
  field('fixed_prec_scale', new Bool(), true),
  field('auto_increment', new Bool()),
  field('local_type_name', new Utf8()),
  field('minimum_scale', int32()),
  field('maximum_scale', int32()),
  field('sql_data_type', int32(), true),
  field('datetime_subcode', int32()),
  field('num_prec_radix', int32()),
  field('interval_precision', int32()),
]);

/** The Trino types the gateway returns, with their XDBC data type (JDBC's java.sql.Types numbers). */
const XDBC_TYPES: [string, number, string | null][] = [
  ['boolean', -7, null],
  ['tinyint', -6, null],
  ['smallint', 5, null],
  ['integer', 4, null],
  ['bigint', -5, null],
  ['real', 7, null],
  ['double', 8, null],
  ['decimal', 3, null],
  ['varchar', 12, "'"],
  ['varbinary', -3, "X'"],
  ['date', 91, "DATE '"],
  ['timestamp', 93, "TIMESTAMP '"],
];

/** GetXdbcTypeInfo: every type, or those of `dataType`. Searchable: 3 (any operator); nullable: 1. */
export function xdbcTypeInfoTable(dataType: number | undefined | null) {
  const rows = XDBC_TYPES.filter(([, t]) => dataType === undefined || dataType === null || t === dataType).map(
    ([name, t, prefix]) => {
      const suffix = prefix === null ? null : "'";
      const decimal = name === 'decimal';
      return [
        name,
        t,
        null,
        prefix,
        suffix,
        decimal ? ['precision', 'scale'] : null,
        1,
        name === 'varchar',
        3,
        null,
        false,
        false,
        name,
        decimal ? 0 : null,
        decimal ? 38 : null,
        t,
        null,
        null,
        null,
      ];
    },
  );
  return tableOf(XDBC_TYPE_INFO_SCHEMA, rows);
}
