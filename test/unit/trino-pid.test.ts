/**
 * A local Trino's pid file is trusted only while its process is that Trino (scripts/local-trino.ts, `trinoPid`): a
 * pid file outlives its server, and the number comes round again to another program. No Trino is started: the
 * processes here are node processes, some naming a data directory on their command line as a launched Trino does.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { clusterDown, clusterLayout } from '../../scripts/local-trino-cluster.js';
import { trinoPid } from '../../scripts/local-trino.js';
import { alive } from '../../scripts/pid-file.js';

const dir = mkdtempSync(join(tmpdir(), 'tg-trino-pid-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/**
 * A process that lives until killed, with `args` on its command line (after `--`: node refuses an option it does not
 * know, such as a Trino's `--data-dir`, and exits at once); resolves once its command line is node's.
 */
async function stranger(...args: string[]): Promise<number> {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)', '--', ...args], {
    stdio: 'ignore',
  });
  children.push(child);
  const pid = child.pid!;
  while (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('setInterval')) await sleep(10);
  return pid;
}

describe("a Trino's pid file", () => {
  it('names this Trino only while the process names its data directory', async () => {
    const runDir = join(dir, 'run-1');
    const pidFile = join(runDir, 'trino.pid');
    mkdirSync(runDir, { recursive: true });
    writeFileSync(pidFile, `${await stranger(`--data-dir=${join(runDir, 'data')}`)}\n`);
    expect(trinoPid({ pidFile, runDir })).toBeGreaterThan(0);
    // The number now belongs to another program, or to another Trino (another data directory).
    for (const other of [await stranger(), await stranger(`-Dnode.data-dir=${join(dir, 'run-2', 'data')}`)]) {
      writeFileSync(pidFile, `${other}\n`);
      expect(trinoPid({ pidFile, runDir })).toBeUndefined();
    }
  });

  it("stopping a cluster whose pid files name other programs' pids leaves those programs running", async () => {
    const c = clusterLayout(2, {
      ...process.env,
      TOPICGATE_CACHE_DIR: dir,
      TOPICGATE_LOCAL_TRINO_CLUSTER_PORT: '18980',
    });
    const others: number[] = [];
    for (const n of [c.coordinator, ...c.workers]) {
      mkdirSync(n.runDir, { recursive: true });
      const pid = await stranger();
      writeFileSync(n.pidFile, `${pid}\n`);
      others.push(pid);
    }
    expect(await clusterDown(c)).toBe(false);
    expect(others.map(alive)).toEqual([true, true, true]);
  });
});
