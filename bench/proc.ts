/** What the benchmark reads about a process from /proc (Linux): peak and current RSS, CPU time used. */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

function statusKb(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`/proc/${pid}/status has no ${field}`);
  return Number(m[1]);
}

/** Peak resident set size of the process so far (VmHWM), in bytes. */
export function peakRss(pid: number): number {
  return statusKb(pid, 'VmHWM') * 1024;
}

/** Current resident set size (VmRSS), in bytes. */
export function currentRss(pid: number): number {
  return statusKb(pid, 'VmRSS') * 1024;
}

let ticks: number | undefined;

/** User + system CPU seconds the process has used so far (/proc/<pid>/stat utime + stime). */
export function cpuSeconds(pid: number): number {
  ticks ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces), counted from field 3 (state).
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / ticks;
}

/** The machine's CPU time so far (/proc/stat, every core): busy and total ticks. */
export function machineTicks(): { busy: number; total: number } {
  const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal ...: idle and iowait are not busy.
  const total = cpu.slice(0, 8).reduce((a, b) => a + b, 0);
  return { busy: total - cpu[3]! - cpu[4]!, total };
}

/** The share of every core's time that was busy between two readings (0..1). */
export const busyShare = (a: { busy: number; total: number }, b: { busy: number; total: number }) =>
  (b.busy - a.busy) / Math.max(1, b.total - a.total);
