/** The example loader in examples/ works as its README section says: run it twice, every event lands once. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
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
beforeAll(async () => {
  app = await testApp();
  await app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
});
afterAll(async () => {
  await app.close();
  rmSync(out, { recursive: true, force: true });
});

// Asynchronous: the gateway answering the script runs in this same process.
async function runLoader(): Promise<string> {
  const { stdout } = await promisify(execFile)('bash', ['examples/batch-loader.sh'], {
    env: { ...process.env, TOPICGATE: base, CURSOR: 'example-clicks', TOPIC: 'clicks', OUT: out, LIMIT: '3000' },
    encoding: 'utf8',
  });
  return stdout;
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
});
