import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { encodeArrow } from '../../src/encode/arrow/arrow-encoder.js';
import { inMemoryResult } from '../fakes/in-memory-result.js';
import { b64, TYPED_COLUMNS, type TypedColumn } from '../cases/typed-columns.js';

// pyarrow comes from test/pyarrow/requirements.txt (.ci/run installs it). The test never skips: without it, it fails.
const hasPyarrow = spawnSync('python3', ['-c', 'import pyarrow'], { stdio: 'ignore' }).status === 0;
if (!hasPyarrow) throw new Error('pyarrow missing: pip install -r test/pyarrow/requirements.txt');

const dir = mkdtempSync(join(tmpdir(), 'topicgate-pyarrow-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// [name, Trino type, pyarrow type, value sent, value read back by test/pyarrow/read_arrow.py]
const COLUMNS: TypedColumn[] = [
  ['key', 'varbinary', 'binary', b64([0xff, 0x00, 0x41]), 'ff0041'],
  [
    'value',
    'varbinary',
    'binary',
    b64('{"id":9007199254740993}'),
    Buffer.from('{"id":9007199254740993}').toString('hex'),
  ],
  ...TYPED_COLUMNS,
];

function readWithPyarrow(chunks: Uint8Array[]): {
  schema: { name: string; type: string }[];
  rows: Record<string, unknown>[];
  eos: boolean;
} {
  const file = join(dir, `out-${Math.random().toString(36).slice(2)}.arrow`);
  writeFileSync(file, Buffer.concat(chunks));
  return JSON.parse(execFileSync('python3', ['test/pyarrow/read_arrow.py', file], { encoding: 'utf8' }));
}

describe('Arrow output read by pyarrow', () => {
  const result = (failWith?: unknown) =>
    inMemoryResult(
      COLUMNS.map(([name, type]) => ({ name, type })),
      [[COLUMNS.map((c) => c[3])], [COLUMNS.map(() => null)]],
      { failWith },
    );

  it('has the right types and exactly the values sent', async () => {
    const chunks: Uint8Array[] = [];
    for await (const c of encodeArrow(result(), { next: null })) chunks.push(c);
    const read = readWithPyarrow(chunks);
    expect(read.schema).toEqual(COLUMNS.map(([name, , type]) => ({ name, type })));
    expect(read.rows).toEqual([
      Object.fromEntries(COLUMNS.map(([name, , , , back]) => [name, back])),
      Object.fromEntries(COLUMNS.map(([name]) => [name, null])),
    ]);
    expect(read.eos).toBe(true);
  });

  it('a stream cut by a failed query has no end-of-stream marker', async () => {
    const chunks: Uint8Array[] = [];
    await expect(async () => {
      for await (const c of encodeArrow(result(new Error('boom')), { next: null })) chunks.push(c);
    }).rejects.toThrow('boom');
    const read = readWithPyarrow(chunks);
    expect(read.rows).toHaveLength(2);
    expect(read.eos).toBe(false);
  });
});
