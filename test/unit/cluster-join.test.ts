/**
 * A local cluster's start waits for its workers to join, and gives a worker stuck in its start one second chance
 * (scripts/cluster-join.ts): its threads written beside its log, its process killed, the worker started again. No
 * Trino is started: the coordinator's view is a function of a fake clock, and the stuck worker a waiting JVM.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { restartStuck, untilWorkersJoined, WORKER_STALL_MS } from '../../scripts/cluster-join.js';
import { findJdk } from '../../scripts/local-trino.js';
import { alive } from '../../scripts/pid-file.js';

const W1 = { name: 'worker-1', nodeId: 'w1' };
const W2 = { name: 'worker-2', nodeId: 'w2' };

/** A clock that moves only when the wait sleeps; `joined(t)` is what the coordinator lists at time t. */
function cluster(joined: (t: number) => string[]) {
  let t = 0;
  const restarts: { name: string; at: number }[] = [];
  return {
    restarts,
    deps: {
      active: () => Promise.resolve(joined(t)),
      restart: (w: { name: string }) => {
        restarts.push({ name: w.name, at: t });
        return Promise.resolve();
      },
      now: () => t,
      sleep: (ms: number) => {
        t += ms;
        return Promise.resolve();
      },
    },
  };
}

const dir = mkdtempSync(join(tmpdir(), 'tg-cluster-join-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('waiting for the workers to join', () => {
  it('restarts no worker that joins in time', async () => {
    const c = cluster((t) => (t < 60_000 ? ['w1'] : ['w1', 'w2']));
    expect(await untilWorkersJoined([W1, W2], 300_000, c.deps)).toEqual({ restarted: [] });
    expect(c.restarts).toEqual([]);
  });

  it('restarts, once, only the worker still missing after the stall time, and then sees it join', async () => {
    let restartedAt: number | undefined;
    const c = cluster((t) => (restartedAt !== undefined && t > restartedAt + 40_000 ? ['w1', 'w2'] : ['w1']));
    const restart = c.deps.restart;
    c.deps.restart = (w) => {
      restartedAt = c.deps.now();
      return restart(w);
    };
    expect(await untilWorkersJoined([W1, W2], 300_000, c.deps)).toEqual({ restarted: ['worker-2'] });
    expect(c.restarts).toHaveLength(1);
    expect(c.restarts[0]!.name).toBe('worker-2');
    expect(c.restarts[0]!.at).toBeGreaterThan(WORKER_STALL_MS);
    expect(c.restarts[0]!.at).toBeLessThan(WORKER_STALL_MS + 1_000);
  });

  it('fails at its deadline naming the workers that never joined, after one restart each', async () => {
    const c = cluster(() => []);
    await expect(untilWorkersJoined([W1, W2], 300_000, c.deps)).rejects.toThrow(
      /did not join in 300s: worker-1, worker-2$/,
    );
    expect(c.restarts.map((r) => r.name)).toEqual(['worker-1', 'worker-2']);
  });

  it('starts again a worker whose process is gone, with no threads to write', async () => {
    let started = 0;
    const before = readdirSync(dir).length;
    await restartStuck({ ...W1, runDir: dir }, [], findJdk(), () => Promise.resolve(++started));
    expect(started).toBe(1);
    expect(readdirSync(dir)).toHaveLength(before);
  });

  it("writes a stuck JVM's threads beside its log, kills it and starts the worker again", async () => {
    // A JVM that waits, as a stuck worker does: jcmd reads the threads of a live java process.
    const jdk = findJdk();
    writeFileSync(
      join(dir, 'Wait.java'),
      'class Wait { public static void main(String[] a) throws Exception {\n' +
        '  System.out.println("waiting"); Thread.sleep(120_000); } }\n',
    );
    const stuck = spawn(join(jdk, 'bin', 'java'), [join(dir, 'Wait.java')], { stdio: ['ignore', 'pipe', 'ignore'] });
    await new Promise((resolve) => stuck.stdout.once('data', resolve));
    let started = 0;
    await restartStuck({ ...W2, runDir: dir }, [stuck.pid!], jdk, () => Promise.resolve(++started));
    expect(alive(stuck.pid!)).toBe(false);
    expect(started).toBe(1);
    const dumps = readdirSync(dir).filter((f) => f.startsWith('stuck-') && f.endsWith('.threads.txt'));
    expect(dumps).toHaveLength(1);
    expect(readFileSync(join(dir, dumps[0]!), 'utf8')).toMatch(/"main"[^\n]*\n[^\n]*TIMED_WAITING/);
  }, 60_000);
});
