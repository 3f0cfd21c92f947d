import { tableFromIPC, type Table } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { encodeArrow } from '../../src/encode/arrow/arrow-encoder.js';
import { inMemoryResult } from '../fakes/in-memory-result.js';

const b64 = (x: string | number[]) => Buffer.from(x as string).toString('base64');

// [name, Trino type, Arrow type as arrow-js prints it, value in row 0, value in row 1]
const ARROW_COLUMNS: [string, string, string, unknown, unknown][] = [
  ['key', 'varbinary', 'Binary', b64([0xff, 0x00, 0x41]), b64('{"a":1}')],
  ['s', 'varchar', 'Utf8', 'é🚀', ''],
  ['n', 'bigint', 'Int64', '9007199254740993', '-9223372036854775808'],
  ['i', 'integer', 'Int32', -2147483648, 7],
  ['sm', 'smallint', 'Int16', -32768, 1],
  ['ti', 'tinyint', 'Int8', 127, -1],
  ['d', 'double', 'Float64', 'NaN', '-Infinity'],
  ['r', 'real', 'Float32', 'Infinity', 0.5],
  ['b', 'boolean', 'Bool', true, false],
  ['dec', 'decimal(38,2)', 'Decimal[38e+2]', '123456789012345678901234567890123456.78', '-0.05'],
  ['dec0', 'decimal(12,2)', 'Decimal[12e+2]', '12.30', '-9999999999.99'],
  ['ts', 'timestamp(3)', 'Timestamp<MILLISECOND, UTC>', '2026-11-01 00:00:00.123', '1969-12-31 23:59:59.999'],
  ['ts6', 'timestamp(6)', 'Timestamp<MICROSECOND, UTC>', '2026-11-01 00:00:00.123456', '0001-01-01 00:00:00.000001'],
  [
    'ts9',
    'timestamp(9)',
    'Timestamp<NANOSECOND, UTC>',
    '2026-11-01 00:00:00.123456789',
    '1969-12-31 23:59:59.999999999',
  ],
  [
    'tstz',
    'timestamp(3) with time zone',
    'Timestamp<MILLISECOND, UTC>',
    '2026-11-01 02:00:00.000 +02:00',
    '2026-07-01 12:00:00.000 Europe/Berlin',
  ],
  ['dt', 'date', 'Date32<DAY>', '2026-11-01', '1969-12-31'],
  ['arr', 'array(bigint)', 'List<Int64>', [1, '9007199254740993', null], []],
  [
    'hdr',
    'array(row(key varchar, value varbinary))',
    'List<Struct<{key:Utf8, value:Binary}>>',
    [['trace', b64([0xfe])]],
    null,
  ],
  ['m', 'map(varchar, bigint)', 'Map<{key:Utf8, value:Int64}>', { a: '9007199254740993', b: null }, {}],
  ['row', 'row(x bigint, "y z" double)', 'Struct<{x:Int64, y z:Float64}>', [1, 2.5], null],
  ['j', 'json', 'Utf8', '{"a": 1}', null],
  ['hll', 'HyperLogLog', 'Utf8', 'AgwBAIADAAA=', null],
  ['nothing', 'unknown', 'Utf8', null, null],
];

function decimal(words: Uint32Array, i: number): bigint {
  let x = 0n;
  for (let w = 3; w >= 0; w--) x = (x << 32n) | BigInt(words[4 * i + w]!);
  return BigInt.asIntN(128, x);
}

async function roundTrip(batches: unknown[][][]): Promise<Table> {
  const result = inMemoryResult(
    ARROW_COLUMNS.map(([name, type]) => ({ name, type })),
    batches,
  );
  const chunks: Uint8Array[] = [];
  for await (const c of encodeArrow(result, { next: null })) chunks.push(c);
  return tableFromIPC(Buffer.concat(chunks));
}

describe('Arrow encoder', () => {
  it('maps Trino types to Arrow types, keeping the Trino type in field metadata', async () => {
    const table = await roundTrip([]);
    expect(table.schema.fields.map((f) => [f.name, String(f.type), f.metadata.get('trino.type')])).toEqual(
      ARROW_COLUMNS.map(([name, type, arrow]) => [name, arrow, type]),
    );
    expect(table.schema.metadata.get('topicgate.query_id')).toBe('20261101_000000_00000_fake0');
  });

  it('round-trips exact values (one record batch per Trino batch)', async () => {
    const row0 = ARROW_COLUMNS.map((c) => c[3]);
    const row1 = ARROW_COLUMNS.map((c) => c[4]);
    const table = await roundTrip([[row0], [], [row1, ARROW_COLUMNS.map(() => null)]]);
    expect(table.batches.map((b) => b.numRows)).toEqual([1, 2]);
    expect(table.numRows).toBe(3);
    const col = (name: string) => [0, 1, 2].map((i) => table.getChild(name)!.get(i));
    const raw = (name: string) =>
      table.getChild(name)!.data.flatMap((d) => Array.from(d.values as ArrayLike<unknown>).slice(0, d.length));
    expect(col('key')).toEqual([Uint8Array.of(0xff, 0, 0x41), new Uint8Array(Buffer.from('{"a":1}')), null]);
    expect(col('s')).toEqual(['é🚀', '', null]);
    expect(col('n')).toEqual([9007199254740993n, -9223372036854775808n, null]);
    expect(col('i')).toEqual([-2147483648, 7, null]);
    expect(col('sm')).toEqual([-32768, 1, null]);
    expect(col('ti')).toEqual([127, -1, null]);
    expect(col('d')).toEqual([NaN, -Infinity, null]);
    expect(col('r')).toEqual([Infinity, 0.5, null]);
    expect(col('b')).toEqual([true, false, null]);
    const dec = table.getChild('dec')!.data;
    expect([decimal(dec[0]!.values, 0), decimal(dec[1]!.values, 0)]).toEqual([
      12345678901234567890123456789012345678n,
      -5n,
    ]);
    const dec0 = table.getChild('dec0')!.data;
    expect([decimal(dec0[0]!.values, 0), decimal(dec0[1]!.values, 0)]).toEqual([1230n, -999999999999n]);
    expect(raw('ts').slice(0, 2)).toEqual([1793491200123n, -1n]);
    expect(raw('ts6').slice(0, 2)).toEqual([1793491200123456n, -62135596799999999n]);
    expect(raw('ts9').slice(0, 2)).toEqual([1793491200123456789n, -1n]);
    expect(raw('tstz').slice(0, 2)).toEqual([1793491200000n, 1782900000000n]);
    expect(raw('dt').slice(0, 2)).toEqual([20758, -1]);
    expect(col('arr').map((v) => v?.toArray())).toEqual([
      BigInt64Array.of(1n, 9007199254740993n, 0n),
      BigInt64Array.of(),
      undefined,
    ]);
    expect(table.getChild('arr')!.get(0)!.get(2)).toBeNull();
    expect(col('hdr')[0]!.get(0)!.toJSON()).toEqual({ key: 'trace', value: Uint8Array.of(0xfe) });
    expect(col('hdr').slice(1)).toEqual([null, null]);
    expect(col('m').map((v) => v?.toJSON())).toEqual([{ a: 9007199254740993n, b: null }, {}, undefined]);
    expect(col('row').map((v) => v?.toJSON())).toEqual([{ x: 1n, 'y z': 2.5 }, undefined, undefined]);
    expect(col('j')).toEqual(['{"a": 1}', null, null]);
    expect(col('hll')).toEqual(['AgwBAIADAAA=', null, null]);
    expect(col('nothing')).toEqual([null, null, null]);
  });

  it('fails the stream on a value its type cannot hold instead of writing a wrong one', async () => {
    const bad = ARROW_COLUMNS.map((c) => c[3]);
    bad[ARROW_COLUMNS.findIndex((c) => c[0] === 'dec0')] = '1.234'; // more digits than the scale
    await expect(roundTrip([[bad]])).rejects.toThrow(/scale 2/);
  });

  it('writes a decoded Avro enum as a dictionary of its symbols, sent once for every batch, top level and nested', async () => {
    const symbols = 'enum(row("NEW" boolean, "PAID" boolean, "VOID" boolean))';
    const result = inMemoryResult(
      [
        { name: 'status', type: symbols },
        { name: 'rec', type: `row(id bigint, status ${symbols})` },
      ],
      [
        [
          ['PAID', [1, 'NEW']],
          [null, [2, null]],
        ],
        [['VOID', [3, 'PAID']]],
      ],
    );
    const chunks: Uint8Array[] = [];
    for await (const c of encodeArrow(result, { next: null })) chunks.push(c);
    const table = tableFromIPC(Buffer.concat(chunks));
    expect(table.batches).toHaveLength(2);
    expect(String(table.schema.fields[0]!.type)).toBe('Dictionary<Int32, Utf8>');
    expect([0, 1, 2].map((i) => table.getChild('status')!.get(i))).toEqual(['PAID', null, 'VOID']);
    expect([0, 1, 2].map((i) => table.getChild('rec')!.get(i)!.toJSON().status)).toEqual(['NEW', null, 'PAID']);
    // One dictionary, the reader's symbols in order, whatever a batch happens to hold.
    expect(table.getChild('status')!.data[1]!.dictionary!.toArray()).toEqual(['NEW', 'PAID', 'VOID']);
  });

  it('fails the stream on a value that is not one of the enum symbols', async () => {
    const result = inMemoryResult([{ name: 's', type: 'enum(row("A" boolean))' }], [[['B']]]);
    const run = async () => {
      for await (const _ of encodeArrow(result, { next: null })) void _;
    };
    await expect(run()).rejects.toThrow(/not a symbol of the enum: B/);
  });

  it('grows its buffers across large batches', async () => {
    const result = inMemoryResult(
      [
        { name: 'v', type: 'varbinary' },
        { name: 'n', type: 'bigint' },
      ],
      [Array.from({ length: 5000 }, (_, i) => [b64('x'.repeat(i % 300)), String(2n ** 60n + BigInt(i))])],
    );
    const chunks: Uint8Array[] = [];
    for await (const c of encodeArrow(result, { next: null })) chunks.push(c);
    const table = tableFromIPC(Buffer.concat(chunks));
    expect(table.getChild('v')!.get(4999)).toEqual(new Uint8Array(Buffer.from('x'.repeat(4999 % 300))));
    expect(table.getChild('n')!.get(4999)).toBe(2n ** 60n + 4999n);
  });
});
