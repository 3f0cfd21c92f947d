/**
 * Waiting for a local cluster's workers to join its coordinator, with one second chance for a worker that has not.
 * On two busy cores a worker joins in 50-80 s; in some CI runs a worker's JVM never started at the first launch, and
 * the cluster's tests failed with it. A worker still missing after WORKER_STALL_MS has its threads written beside its
 * log (when a process of it runs) and is started again, once; the wait then goes on to its deadline, and a worker
 * missing then fails the start, by name.
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stopProcess } from './pid-file.js';

/** A worker not among the coordinator's workers this long after the start is taken for stuck. */
export const WORKER_STALL_MS = 150_000;

export interface JoiningWorker {
  name: string;
  nodeId: string;
}

export interface JoinDeps<W extends JoiningWorker> {
  /** The node ids the coordinator counts as active workers (undefined while it cannot say). */
  active: () => Promise<string[] | undefined>;
  /** Stops a stuck worker and starts it again. */
  restart: (w: W) => Promise<void>;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/** Resolves once every worker is active; restarts the missing ones once, after WORKER_STALL_MS. */
export async function untilWorkersJoined<W extends JoiningWorker>(
  workers: readonly W[],
  timeoutMs: number,
  deps: JoinDeps<W>,
): Promise<{ restarted: string[] }> {
  const now = deps.now ?? Date.now;
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const start = now();
  const restarted: string[] = [];
  for (;;) {
    const ids = (await deps.active()) ?? [];
    const missing = workers.filter((w) => !ids.includes(w.nodeId));
    if (missing.length === 0) return { restarted };
    if (now() - start > timeoutMs) {
      throw new Error(
        `the cluster's workers did not join in ${timeoutMs / 1000}s: ${missing.map((w) => w.name).join(', ')}`,
      );
    }
    if (restarted.length === 0 && now() - start > WORKER_STALL_MS) {
      for (const w of missing) {
        await deps.restart(w);
        restarted.push(w.name);
      }
    }
    await sleep(250);
  }
}

/** Writes a JVM's threads (`jcmd <pid> Thread.print`) to `<dir>/stuck-<time>.threads.txt`; the file's path. */
export function dumpThreads(jdk: string, pid: number, dir: string): string {
  const file = join(dir, `stuck-${new Date().toISOString().replace(/[:.]/g, '-')}.threads.txt`);
  const r = spawnSync(join(jdk, 'bin', 'jcmd'), [String(pid), 'Thread.print'], { encoding: 'utf8', timeout: 20_000 });
  writeFileSync(file, r.stdout || `jcmd gave no threads: ${r.error?.message ?? r.stderr}`);
  return file;
}

/** A worker stuck in its start: its threads written beside its log, its processes killed, then `start` again. */
export async function restartStuck(
  w: JoiningWorker & { runDir: string },
  pids: readonly number[],
  jdk: string,
  start: () => Promise<unknown>,
): Promise<void> {
  const files = pids.map((pid) => dumpThreads(jdk, pid, w.runDir));
  const why = files.length > 0 ? `its threads are in ${files.join(', ')}` : 'no process of it runs';
  process.stderr.write(`[trino-cluster] ${w.name} has not joined: ${why}; starting it again\n`);
  for (const pid of pids) await stopProcess(pid, 0);
  await start();
}
