/**
 * The local services' scripts (Trino, the production-like Trino, the Schema Registry, the S3 server) start a
 * process, record its pid in a file, and later stop that process and nothing else: the helpers they share.
 */
import { existsSync, readFileSync } from 'node:fs';

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The number in a pid file, if it holds one. */
export function pidInFile(file: string): number | undefined {
  if (!existsSync(file)) return undefined;
  const pid = Number(readFileSync(file, 'utf8').trim());
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

/** How long a launched server may take to write its pid file before the start counts as failed. */
export const PID_FILE_WAIT_MS = 30_000;

/**
 * The pid a launcher wrote, waiting up to `waitMs` for it: Trino's launcher returns once it has started its daemon,
 * which writes the file itself, so on a loaded machine (the unit files run while the services start) the file
 * may come a moment after the launcher has returned. Undefined if none came.
 */
export async function pidWritten(file: string, waitMs: number): Promise<number | undefined> {
  const until = Date.now() + waitMs;
  for (;;) {
    const pid = pidInFile(file);
    if (pid !== undefined || Date.now() > until) return pid;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * The recorded pid if its command line still contains one of `marks`: after a reboot the number may belong to
 * another program. Without /proc at all, the file is trusted.
 */
export function recordedPid(file: string, ...marks: string[]): number | undefined {
  const pid = pidInFile(file);
  if (pid === undefined) return undefined;
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return marks.some((m) => cmdline.includes(m)) ? pid : undefined;
  } catch {
    return existsSync('/proc/self') ? undefined : pid;
  }
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves when the process is gone. */
export async function stopProcess(pid: number, graceMs: number): Promise<void> {
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return; // already gone
  }
  const deadline = Date.now() + graceMs;
  while (alive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
  if (alive(pid)) process.kill(pid, 'SIGKILL');
  while (alive(pid)) await new Promise((r) => setTimeout(r, 100));
}
