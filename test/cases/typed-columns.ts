/**
 * Typed columns with a value each, shared by the Arrow and Parquet read-back tests: [name, Trino type, pyarrow type,
 * value as the Trino protocol sends it, value as test/pyarrow prints it back]. The two outputs have the same types.
 */
export type TypedColumn = [string, string, string, unknown, unknown];

/** Base64 of text or bytes, as Trino sends varbinary. */
export const b64 = (x: string | number[]) => Buffer.from(x as string).toString('base64');

export const TYPED_COLUMNS: TypedColumn[] = [
  ['s', 'varchar', 'string', 'é🚀', 'é🚀'],
  ['n', 'bigint', 'int64', '9007199254740993', '9007199254740993'],
  ['i', 'integer', 'int32', -7, -7],
  ['sm', 'smallint', 'int16', 300, 300],
  ['ti', 'tinyint', 'int8', -128, -128],
  ['d', 'double', 'double', 'NaN', 'NaN'],
  ['r', 'real', 'float', '-Infinity', '-Infinity'],
  ['b', 'boolean', 'bool', true, true],
  [
    'dec',
    'decimal(38,2)',
    'decimal128(38, 2)',
    '-123456789012345678901234567890123456.78',
    '-123456789012345678901234567890123456.78',
  ],
  ['dec2', 'decimal(12,2)', 'decimal128(12, 2)', '12.30', '12.30'],
  ['ts', 'timestamp(3)', 'timestamp[ms, tz=UTC]', '2026-11-01 00:00:00.123', '1793491200123 ms'],
  [
    'ts6',
    'timestamp(6) with time zone',
    'timestamp[us, tz=UTC]',
    '2026-11-01 01:00:00.123456 +01:00',
    '1793491200123456 us',
  ],
  ['ts9', 'timestamp(9)', 'timestamp[ns, tz=UTC]', '2026-11-01 00:00:00.123456789', '1793491200123456789 ns'],
  ['dt', 'date', 'date32[day]', '2026-11-01', '2026-11-01'],
  ['arr', 'array(bigint)', 'list<item: int64>', ['9007199254740993', null], ['9007199254740993', null]],
  [
    'hdr',
    'array(row(key varchar, value varbinary))',
    'list<item: struct<key: string, value: binary>>',
    [['k', b64([0xfe])]],
    [{ key: 'k', value: 'fe' }],
  ],
  ['m', 'map(varchar, bigint)', 'map<string, int64>', { a: '-1' }, [['a', '-1']]],
  ['j', 'json', 'string', '{"a": 1}', '{"a": 1}'],
];
