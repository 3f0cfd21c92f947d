/**
 * The Parquet encoder read back by pyarrow (test/pyarrow/read_parquet.py): the Arrow output's types and exact
 * values, row groups flushed as they fill (the first bytes leave before the result ends), a failure before the
 * first byte rejects, a failure after it leaves a file without a footer, and an early close cancels the result.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { encodeParquet } from '../../src/encode/parquet/parquet-encoder.js';
import { parquetFooterRows } from '../../src/encode/parquet/parquet-footer.js';
import { inMemoryResult } from '../fakes/in-memory-result.js';
import { b64, TYPED_COLUMNS, type TypedColumn } from '../cases/typed-columns.js';

const hasPyarrow = spawnSync('python3', ['-c', 'import pyarrow'], { stdio: 'ignore' }).status === 0;
if (!hasPyarrow) throw new Error('pyarrow missing: pip install -r test/pyarrow/requirements.txt');

const dir = mkdtempSync(join(tmpdir(), 'topicgate-parquet-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// [name, Trino type, pyarrow type of the Parquet column, value sent, value read back]
const COLUMNS: TypedColumn[] = [
  ['key', 'varbinary', 'binary', b64([0xff, 0x00, 0x41]), 'ff0041'],
  ...TYPED_COLUMNS,
  // Parquet alone: the smallest BIGINT and a row with a quoted field name.
  ['nmin', 'bigint', 'int64', '-9223372036854775808', '-9223372036854775808'],
  ['row', 'row(x bigint, "y z" double)', 'struct<x: int64, y z: double>', [1, 2.5], { x: '1', 'y z': 2.5 }],
];

interface Read {
  complete: boolean;
  schema: { name: string; type: string }[];
  rows: Record<string, unknown>[];
  num_rows: number;
  row_groups: number;
  metadata: Record<string, string>;
  error?: string;
}

/** The file as read_parquet.py prints it; `summary`: the last row only. */
function readWithPyarrow(chunks: Uint8Array[], summary = false): Read {
  const file = join(dir, `out-${Math.random().toString(36).slice(2)}.parquet`);
  writeFileSync(file, Buffer.concat(chunks));
  const args = ['test/pyarrow/read_parquet.py', ...(summary ? ['--summary'] : []), file];
  return JSON.parse(execFileSync('python3', args, { encoding: 'utf8' }));
}

const allTypes = (failWith?: unknown) =>
  inMemoryResult(
    COLUMNS.map(([name, type]) => ({ name, type })),
    [[COLUMNS.map((c) => c[3])], [], [COLUMNS.map(() => null)]],
    { failWith },
  );

async function drain(gen: AsyncGenerator<Uint8Array>, chunks: Uint8Array[] = []): Promise<Uint8Array[]> {
  for await (const c of gen) chunks.push(c);
  return chunks;
}

/** `pages` pages of `size` rows of a topic-like table, each value `valueBytes` of noise (nothing to compress). */
function topicPages(pages: number, size: number, valueBytes: number): unknown[][][] {
  let seed = 1;
  const noise = Buffer.alloc(valueBytes);
  return Array.from({ length: pages }, (_, p) =>
    Array.from({ length: size }, (_, k) => {
      const i = p * size + k;
      for (let j = 0; j < valueBytes; j++) noise[j] = (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 24;
      return [b64(`k${i}`), noise.toString('base64'), `2026-11-01 00:00:${String(i % 60).padStart(2, '0')}.000`];
    }),
  );
}
const TOPIC_COLUMNS = [
  { name: 'key', type: 'varbinary' },
  { name: 'value', type: 'varbinary' },
  { name: 'timestamp_broker', type: 'timestamp(3)' },
];

describe('parquet-wasm under Node', () => {
  it('the WebAssembly loads from the package, without the network, in plain Node ESM', () => {
    // Node resolves `parquet-wasm` to its node build, which reads parquet_wasm_bg.wasm beside it with fs; the ESM
    // build would fetch() it. A fetch that throws proves nothing goes to the network.
    const script =
      "globalThis.fetch = () => { throw new Error('network'); };" +
      "const pw = await import('parquet-wasm');" +
      "const { tableToIPC, tableFromArrays } = await import('apache-arrow');" +
      'const t = pw.Table.fromIPCStream(tableToIPC(tableFromArrays({ a: Int32Array.from([1, 2]) }), "stream"));' +
      'const file = pw.writeParquet(t);' +
      "process.stdout.write(import.meta.resolve('parquet-wasm').replace(/.*node_modules/, '') + ' ' + file.length);";
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(out).toMatch(/^\/parquet-wasm\/node\/parquet_wasm\.js \d+$/);
  });
});

describe('parquetFooterRows', () => {
  it("reads num_rows from another writer's footer (pyarrow: row groups, statistics, nested types, metadata)", () => {
    const file = join(dir, 'pyarrow-written.parquet');
    const script =
      'import sys, pyarrow as pa, pyarrow.parquet as pq\n' +
      'n = 12345\n' +
      't = pa.table({"k": pa.array([bytes([i % 256, 255]) for i in range(n)]), "b": [i % 2 == 0 for i in range(n)],\n' +
      '  "h": pa.array([[{"key": "a", "value": b"x"}]] * n), "m": pa.array([[("a", i)] for i in range(n)],\n' +
      '  type=pa.map_(pa.string(), pa.int64()))}).replace_schema_metadata({"x": "y" * 300})\n' +
      'pq.write_table(t, sys.argv[1], row_group_size=1000, compression="zstd")';
    execFileSync('python3', ['-c', script, file]);
    expect(parquetFooterRows(readFileSync(file))).toBe(12_345n);
  });

  it('refuses bytes that do not end with a footer', () => {
    expect(() => parquetFooterRows(Buffer.from('PAR1 row groups, no footer'))).toThrow('does not end with PAR1');
    const lying = Buffer.concat([Buffer.from('PAR1'), Buffer.from([0xff, 0xff, 0, 0]), Buffer.from('PAR1')]);
    expect(() => parquetFooterRows(lying)).toThrow('footer longer');
  });
});

describe('Parquet output read by pyarrow', () => {
  it('has the Arrow types and exactly the values sent', async () => {
    const read = readWithPyarrow(await drain(encodeParquet(allTypes(), { next: null })));
    expect(read.complete).toBe(true);
    expect(read.schema).toEqual(COLUMNS.map(([name, , type]) => ({ name, type })));
    expect(read.rows).toEqual([
      Object.fromEntries(COLUMNS.map(([name, , , , back]) => [name, back])),
      Object.fromEntries(COLUMNS.map(([name]) => [name, null])),
    ]);
    expect(read.metadata).toEqual({ 'topicgate.query_id': '20261101_000000_00000_fake0' });
  });

  it('an empty result is a valid file with the schema and no rows', async () => {
    const result = inMemoryResult(TOPIC_COLUMNS, [[], []]);
    const read = readWithPyarrow(await drain(encodeParquet(result, { next: null })));
    expect(read).toMatchObject({ complete: true, rows: [], row_groups: 0 });
    expect(read.schema.map((f) => f.type)).toEqual(['binary', 'binary', 'timestamp[ms, tz=UTC]']);
  });

  it('sends each row group when it fills, before the result ends, and the footer last', async () => {
    // 20 pages of 2000 rows of 600 bytes that do not compress: 24 MB, more than two 8 MiB row groups.
    const result = inMemoryResult(TOPIC_COLUMNS, topicPages(20, 2000, 600));
    const gen = encodeParquet(result, { next: null });
    const first = await gen.next();
    expect(first.done).toBe(false);
    expect(Buffer.from((first.value as Uint8Array).subarray(0, 4)).toString()).toBe('PAR1');
    expect(result.pulled).toBeLessThan(20); // the first row group left before the last page was pulled
    const chunks = await drain(gen, [first.value as Uint8Array]);
    expect(chunks.length).toBeGreaterThan(1);
    const read = readWithPyarrow(chunks, true);
    expect(read).toMatchObject({ complete: true, row_groups: 3, num_rows: 40_000 });
    expect(read.rows[0]).toMatchObject({ key: Buffer.from('k39999').toString('hex') });
    expect(parquetFooterRows(Buffer.concat(chunks))).toBe(40_000n);
  });

  it('a paused consumer holds the writer back: pages are pulled only while row groups fill', async () => {
    const result = inMemoryResult(TOPIC_COLUMNS, topicPages(60, 2000, 600)); // 72 MB: nine 8 MiB row groups
    const gen = encodeParquet(result, { next: null });
    await gen.next(); // the first row group
    const settle = async () => {
      for (let i = 0; i < 20; i++) await new Promise((r) => setTimeout(r, 5));
      return result.pulled;
    };
    const pulled = await settle();
    // The writer fills the next row group, one more waits in the stream between writer and reader, then it stops.
    expect(pulled).toBeLessThan(30); // about 3 row groups of 7 pages each
    expect(await settle()).toBe(pulled);
    await gen.return(undefined);
  });

  it('concurrent files share the WebAssembly writer without mixing', async () => {
    const one = inMemoryResult(TOPIC_COLUMNS, topicPages(3, 500, 100), { queryId: 'one' });
    const two = inMemoryResult(TOPIC_COLUMNS, topicPages(5, 300, 50), { queryId: 'two' });
    const [a, b] = await Promise.all([one, two].map((r) => drain(encodeParquet(r, { next: null }))));
    const [readA, readB] = [readWithPyarrow(a!, true), readWithPyarrow(b!, true)];
    expect(readA).toMatchObject({ complete: true, num_rows: 1500, metadata: { 'topicgate.query_id': 'one' } });
    expect(readB).toMatchObject({ complete: true, num_rows: 1500, metadata: { 'topicgate.query_id': 'two' } });
    expect(readA.rows[0]).toMatchObject({ key: Buffer.from('k1499').toString('hex') });
    expect(readB.rows[0]!.value).toHaveLength(100); // 50 bytes as hex
  });

  it('a failure before the first byte rejects (the route still answers with a status)', async () => {
    await expect(drain(encodeParquet(allTypes(new Error('boom')), { next: null }))).rejects.toThrow('boom');
    const bad = inMemoryResult([{ name: 'n', type: 'bigint' }], [[[1]], [['not a number']]]);
    await expect(drain(encodeParquet(bad, { next: null }))).rejects.toThrow('not a bigint');
  });

  it('a failure after the first byte aborts the body without a footer: no reader opens it', async () => {
    const result = inMemoryResult(TOPIC_COLUMNS, topicPages(20, 2000, 600), { failWith: new Error('boom') });
    const chunks: Uint8Array[] = [];
    await expect(drain(encodeParquet(result, { next: null }), chunks)).rejects.toThrow('boom');
    expect(chunks.length).toBeGreaterThan(0); // the body had started
    expect(Buffer.from(chunks[chunks.length - 1]!.subarray(-4)).toString()).not.toBe('PAR1');
    expect(() => parquetFooterRows(Buffer.concat(chunks))).toThrow('does not end with PAR1');
    const read = readWithPyarrow(chunks);
    expect(read.complete).toBe(false);
  });

  it('closing the body early (client gone) closes the result, which cancels the query', async () => {
    const result = inMemoryResult(TOPIC_COLUMNS, topicPages(40, 2000, 600));
    const gen = encodeParquet(result, { next: null });
    await gen.next();
    await gen.return(undefined);
    await new Promise((r) => setTimeout(r, 50));
    expect(result.closed).toBe(true);
    expect(result.pulled).toBeLessThan(40);
  });

  /** A column of `depth` rows nested in each other around an integer, and its one value. */
  const nestedRow = (depth: number) => {
    let type = 'integer';
    let value: unknown = 7;
    for (let i = 0; i < depth; i++) {
      type = `row(f ${type})`;
      value = [value];
    }
    return inMemoryResult([{ name: 'deep', type }], [[[value]]]);
  };

  it('writes the deepest nesting it takes (60 levels) as a whole file', async () => {
    const chunks = await drain(encodeParquet(nestedRow(60), { next: null }));
    expect(parquetFooterRows(Buffer.concat(chunks))).toBe(1n);
  });

  it('refuses a deeper column before any byte or page with a 406 naming it and the format', async () => {
    const result = nestedRow(61);
    const chunks: Uint8Array[] = [];
    await expect(drain(encodeParquet(result, { next: null }), chunks)).rejects.toMatchObject({
      code: 'TG_NOT_ACCEPTABLE',
      status: 406,
      details: { parameter: 'format', column: 'deep' },
    });
    expect(chunks).toEqual([]);
    expect(result.pulled).toBe(0);
  });
});
