/**
 * `npm run demo`, then Ctrl-C in its terminal: the terminal sends SIGINT to the whole foreground process group (npm,
 * its shell, the demo), and afterwards none of the services the demo started runs (its Trino, the S3 server, the
 * PostgreSQL of the lake, the Schema Registry, the gateway and its Flight SQL port; the Python snippet it prints for
 * Flight SQL runs as printed). The demo runs on ports and data directories of its own
 * (never the suite's services, which a meaningful test must not reuse), sharing only the fetched Trino and registry
 * through links in a cache directory of its own, with a small load and the quick JIT.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../scripts/free-port.js';
import { layout } from '../../scripts/local-trino.js';
import { registryLayout } from '../../scripts/local-registry.js';
import { pidInFile } from '../../scripts/pid-file.js';
import { PROJECT_ROOT } from '../../scripts/start-command.js';

const execFileAsync = promisify(execFile);

const cache = mkdtempSync(join(tmpdir(), 'tg-demo-'));
let demo: ChildProcess | undefined;
/** Every service pid seen, killed at the end should the test fail with any still running. */
const seen = new Set<number>();

afterAll(() => {
  if (demo?.pid !== undefined && groupMembers(demo.pid).length > 0) kill(-demo.pid);
  for (const pid of seen) kill(pid);
  rmSync(cache, { recursive: true, force: true });
});

function kill(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // gone
  }
}

/** Whether a process runs (a zombie waiting to be reaped has ended). */
function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** The processes of process group `pgid` still running. */
function groupMembers(pgid: number): number[] {
  const members: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || !running(Number(entry))) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) === pgid) members.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return members;
}

/** The pid of the PostgreSQL of data dir `dir`: the first line of its postmaster.pid. */
function postmaster(dir: string): number | undefined {
  try {
    return Number(readFileSync(join(dir, 'postmaster.pid'), 'utf8').split('\n')[0]) || undefined;
  } catch {
    return undefined;
  }
}

/** The CPU time a process has used (user and system), in seconds. */
function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/** Whether something accepts TCP connections on the loopback port. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

describe('npm run demo, then Ctrl-C in its terminal', () => {
  it('leaves none of the services it started running', async () => {
    const [trinoPort, s3Port, pgPort, registryPort] = [
      await freePort(),
      await freePort(),
      await freePort(),
      await freePort(),
    ];
    // The fetched Trino and registry are shared through links; everything the demo writes is in `cache`.
    for (const dir of [layout().installDir, registryLayout().installDir]) symlinkSync(dir, join(cache, basename(dir)));
    const env: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('TOPICGATE_')) env[k] = v;
    Object.assign(env, {
      TOPICGATE_CACHE_DIR: cache,
      TOPICGATE_LOCAL_TRINO_PORT: String(trinoPort),
      TOPICGATE_LOCAL_S3_PORT: String(s3Port),
      TOPICGATE_LOCAL_PG_PORT: String(pgPort),
      TOPICGATE_LOCAL_REGISTRY_PORT: String(registryPort),
      TOPICGATE_LOCAL_TRINO_JIT: 'quick',
      TOPICGATE_LOCAL_TRINO_GC: 'parallel',
      TOPICGATE_PORT: '0',
    });
    const t0 = Date.now();
    // Its own process group, as a terminal's foreground job.
    demo = spawn('npm', ['run', 'demo', '--', '--events', '50'], {
      cwd: PROJECT_ROOT,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    demo.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    demo.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    await new Promise<void>((resolve, reject) => {
      const check = setInterval(() => {
        if (out.includes('Ctrl-C stops everything')) done(resolve);
        else if (Date.now() - t0 > 400_000) done(() => reject(new Error(`the demo did not start: ${out}`)));
      }, 200);
      const done = (f: () => void) => {
        clearInterval(check);
        demo!.off('exit', exited);
        f();
      };
      const exited = () => done(() => reject(new Error(`the demo exited: ${out}`)));
      demo!.once('exit', exited);
    });
    const up = Date.now();
    const trino = layout(env);
    const gatewayPort = Number(/API\s+http:\/\/127\.0\.0\.1:(\d+)\//.exec(out)?.[1]);
    const pids = {
      trino: pidInFile(trino.pidFile),
      s3: pidInFile(join(trino.runDir, 's3.pid')),
      registry: pidInFile(registryLayout(env).pidFile),
      postgres: postmaster(join(cache, `pg-${pgPort}`)),
    };
    for (const pid of Object.values(pids)) if (pid !== undefined) seen.add(pid);
    const flightPort = Number(/Flight SQL\s+grpc:\/\/127\.0\.0\.1:(\d+)\s/.exec(out)?.[1]);
    const ports = { trinoPort, s3Port, pgPort, registryPort, gatewayPort, flightPort };
    // Every one of them runs before the Ctrl-C.
    expect(Object.entries(pids).filter(([, pid]) => pid === undefined || !running(pid))).toEqual([]);
    for (const port of Object.values(ports)) expect(await listening(port)).toBe(true);

    // The Python snippet it prints for Flight SQL runs as printed.
    const snippet = out.slice(out.indexOf('Python (pip install adbc-driver-flightsql):')).split('\n').slice(1, 4);
    const python = await execFileAsync('python3', ['-c', snippet.map((l) => l.replace(/^ {2}/, '')).join('\n')]);
    expect(python.stdout).toMatch(/day: timestamp\[ms, tz=UTC\]/);

    const cpu = Object.values(pids).reduce<number>((sum, pid) => sum + cpuSeconds(pid!), 0);
    process.kill(-demo.pid!, 'SIGINT');
    for (let i = 0; groupMembers(demo.pid!).length > 0; i++) {
      if (i > 1200) throw new Error(`the demo's processes still run 120 s after Ctrl-C: ${out}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const stopped = Date.now();
    const left = Object.entries(pids).filter(([, pid]) => running(pid!));
    const open: string[] = [];
    for (const [name, port] of Object.entries(ports)) if (await listening(port)) open.push(name);
    expect({ left, open }).toEqual({ left: [], open: [] });
    process.stderr.write(
      `[demo-stop] up in ${((up - t0) / 1000).toFixed(1)} s (its services took ${cpu.toFixed(0)} CPU-seconds), ` +
        `stopped in ${((stopped - up) / 1000).toFixed(1)} s\n`,
    );
  }, 600_000);
});
