/**
 * `npm run bench -- --pin`: Trino, with the S3 server its spooled segments go to, on CPU 0; the bench with every
 * client and gateway it starts on CPU 1. The clients then compete with each other's leftovers but never with Trino,
 * as when Trino runs on machines of its own (production): what Trino sends from its core is the ceiling, and a
 * client either keeps up with it on the other core or shows how far it falls behind. util-linux's taskset sets
 * the affinity of every thread of a process; threads and processes started later inherit it.
 */
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { s3Layout, s3ServerPid } from '../scripts/local-s3.js';
import { layout, serverPids } from '../scripts/local-trino.js';

/** Every CPU of the machine (os.cpus(): availableParallelism follows the affinity set here). */
const ALL = `0-${os.cpus().length - 1}`;

function pin(pid: number, cpus: string): void {
  execFileSync('taskset', ['--all-tasks', '--pid', '--cpu-list', cpus, String(pid)], { stdio: 'ignore' });
}

/** The local Trino's server and its S3 server, found by their command line and pid file. */
function trinoPids(): number[] {
  const l = layout();
  const s3 = s3ServerPid(s3Layout(l.runDir, l.port));
  return [...serverPids(l), ...(s3 !== undefined ? [s3] : [])];
}

/** This process (and so what it starts from now on) on CPU 1. */
export function pinBench(): void {
  if (os.cpus().length < 2) throw new Error('--pin needs at least 2 CPUs');
  pin(process.pid, '1');
}

/** The running local Trino and its S3 server on CPU 0; returns how many processes were pinned. */
export function pinTrino(): number {
  const pids = trinoPids();
  if (pids.length === 0) throw new Error('--pin: no local Trino process found');
  for (const pid of pids) pin(pid, '0');
  return pids.length;
}

/** Trino (when it stays running after the bench) and this process back on every CPU. */
export function unpin(): void {
  for (const pid of trinoPids()) pin(pid, ALL);
  pin(process.pid, ALL);
}
