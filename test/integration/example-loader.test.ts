/** The example loader in examples/ works as docs/clients.md says: run it twice, every event lands once. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { tableFromIPC } from 'apache-arrow';
import { testApp } from '../helpers.js';

let app: FastifyInstance;
let base: string;
const out = mkdtempSync(join(tmpdir(), 'topicgate-example-'));
const outParquet = mkdtempSync(join(tmpdir(), 'topicgate-example-parquet-'));
beforeAll(async () => {
  app = await testApp();
  await app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
});
afterAll(async () => {
  await app.close();
  rmSync(out, { recursive: true, force: true });
  rmSync(outParquet, { recursive: true, force: true });
});

// Asynchronous: the gateway answering the script runs in this same process.
async function runLoader(extra: Record<string, string> = {}): Promise<string> {
  const { stdout } = await promisify(execFile)('bash', ['examples/batch-loader.sh'], {
    env: {
      ...process.env,
      TOPICGATE: base,
      CURSOR: 'example-clicks',
      TOPIC: 'clicks',
      OUT: out,
      LIMIT: '3000',
      ...extra,
    },
    encoding: 'utf8',
  });
  return stdout;
}

/** Rows and the first key of each Parquet file, as pyarrow reads them (an independent reader). */
function parquetFiles(dir: string, files: string[]): { rows: number; key: string }[] {
  const script =
    'import sys, json, pyarrow.parquet as pq\n' +
    'out = []\n' +
    'for p in sys.argv[1:]:\n' +
    '    t = pq.read_table(p)\n' +
    '    assert str(t.schema.field("key").type) == "binary", t.schema\n' +
    '    out.append({"rows": t.num_rows, "key": t.column("key")[0].as_py().decode()})\n' +
    'print(json.dumps(out))';
  const args = ['-c', script, ...files.map((f) => join(dir, f))];
  return JSON.parse(execFileSync('python3', args, { encoding: 'utf8' }));
}

describe('examples/batch-loader.sh', () => {
  it('lands the topic in Arrow files named by batch token, and a second run adds nothing', async () => {
    const first = await runLoader();
    expect(first.trim().split('\n')).toHaveLength(4); // 10010 clicks in batches of 3000
    const files = readdirSync(out).filter((f) => f.endsWith('.arrow'));
    expect(files).toHaveLength(4);
    const rows = files.reduce((n, f) => n + tableFromIPC(readFileSync(join(out, f))).numRows, 0);
    expect(rows).toBe(10_010);
    expect(await runLoader()).toBe('');
    expect(readdirSync(out).filter((f) => f.endsWith('.arrow'))).toHaveLength(4);
    expect((await app.inject('/v1/cursors/example-clicks')).json().lag.events).toBe(0);
  });

  it('FORMAT=parquet lands Parquet files named by batch token, with the same batches as Arrow', async () => {
    const env = { FORMAT: 'parquet', CURSOR: 'example-clicks-parquet', OUT: outParquet };
    const first = await runLoader(env);
    expect(first.trim().split('\n')).toHaveLength(4);
    expect(first).toMatch(/landed 3000 events in .*\.parquet\n/);
    const files = readdirSync(outParquet).filter((f) => f.endsWith('.parquet'));
    expect(files).toHaveLength(4);
    const read = parquetFiles(outParquet, files);
    expect(read.reduce((n, f) => n + f.rows, 0)).toBe(10_010);
    // Each batch as Arrow and as Parquet: the same rows (the cursors are at the same positions).
    const arrowFiles = readdirSync(out).filter((f) => f.endsWith('.arrow'));
    const arrowBatches = arrowFiles.map((f) => tableFromIPC(readFileSync(join(out, f))));
    const arrowFirst = arrowBatches.map((t) => ({
      rows: t.numRows,
      key: Buffer.from(t.getChild('key')!.get(0) as Uint8Array).toString(),
    }));
    expect(new Set(read.map((r) => `${r.rows} ${r.key}`))).toEqual(
      new Set(arrowFirst.map((r) => `${r.rows} ${r.key}`)),
    );
    expect(await runLoader(env)).toBe('');
    expect(readdirSync(outParquet).filter((f) => f.endsWith('.parquet'))).toHaveLength(4);
    expect((await app.inject('/v1/cursors/example-clicks-parquet')).json().lag.events).toBe(0);
  });
});
