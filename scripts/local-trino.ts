/**
 * The project's local Trino: fetched once with the ordinary Maven client, cached outside the work tree,
 * started as a single-node server on a JDK >= 24, stopped by the pid it recorded.
 *
 *   tsx scripts/local-trino.ts up | down | status | fetch
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, renameSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { alive, pidInFile, PID_FILE_WAIT_MS, pidWritten, recordedPid, stopProcess } from './pid-file.js';
import { completeMarker, moveIntoPlace } from './install-dir.js';
import { motoAvailable, s3Down, s3Layout, s3Up, type LocalS3Layout } from './local-s3.js';
import { configFiles, configStamp, JVM_MODES, readStamp, writeConfig, type JvmModes } from './local-trino-config.js';
import { DEMO_CATALOG } from './demo-data.js';
import { lakePgDown, prepareLake } from './local-lake.js';
import { exitAfterStop, startAllowed, startedHere, stopOnSignals } from './clean-stop.js';
import { untilScannable } from './trino-scannable.js';
import { HttpTrino } from '../src/trino/http-trino.js';

export const TRINO_VERSION = '476';
/** Oldest Java feature release that Trino 476 runs on. */
const MIN_JAVA = 24;
/** The connector plugins the local Trino loads: the demo topics (memory, PostgreSQL) and the lake (Iceberg). */
const PLUGINS = ['memory', 'postgresql', 'iceberg'];

export interface LocalTrinoLayout {
  port: number;
  url: string;
  cacheDir: string;
  installDir: string;
  runDir: string;
  pidFile: string;
  pgPort: number;
  /** TOPICGATE_LOCAL_TRINO_JIT (local-trino-config.ts): the test suite asks for `quick`, benchmarks keep `full`. */
  jit: JvmModes['jit'];
  /** TOPICGATE_LOCAL_TRINO_GC (local-trino-config.ts): the test suite asks for `parallel`, benchmarks keep `g1`. */
  gc: JvmModes['gc'];
}

export function layout(env: NodeJS.ProcessEnv = process.env): LocalTrinoLayout {
  const port = Number(env.TOPICGATE_LOCAL_TRINO_PORT ?? 18080);
  const cacheDir = env.TOPICGATE_CACHE_DIR ?? join(env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'topicgate');
  const runDir = join(cacheDir, `run-${port}`);
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    cacheDir,
    installDir: join(cacheDir, `trino-server-${TRINO_VERSION}`),
    runDir,
    pidFile: join(runDir, 'trino.pid'),
    pgPort: Number(env.TOPICGATE_LOCAL_PG_PORT ?? 15432),
    jit: jitMode('TOPICGATE_LOCAL_TRINO_JIT', env.TOPICGATE_LOCAL_TRINO_JIT),
    gc: gcMode('TOPICGATE_LOCAL_TRINO_GC', env.TOPICGATE_LOCAL_TRINO_GC),
  };
}

/** A JIT mode setting: `full` (C1 then C2, the default) or `quick` (C1 only). */
export function jitMode(name: string, value: string | undefined): JvmModes['jit'] {
  if (value === undefined || value === 'full' || value === 'quick') return value ?? 'full';
  throw new Error(`${name}: ${JSON.stringify(value)} is not full or quick`);
}

/** A collector setting: `g1` (the default) or `parallel`. */
export function gcMode(name: string, value: string | undefined): JvmModes['gc'] {
  if (value === undefined || value === 'g1' || value === 'parallel') return value ?? 'g1';
  throw new Error(`${name}: ${JSON.stringify(value)} is not g1 or parallel`);
}

function log(msg: string): void {
  process.stderr.write(`[trino] ${msg}\n`);
}

function mvnCopy(artifact: string, outDir: string): boolean {
  const r = spawnSync('mvn', ['-q', '-B', 'dependency:copy', `-Dartifact=${artifact}`, `-DoutputDirectory=${outDir}`], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (r.error) throw new Error(`cannot run mvn (${r.error.message}); install Maven to fetch the local Trino`);
  return r.status === 0;
}

function unzipInto(zip: string, destDir: string, stripPrefix: string): void {
  // python3's zipfile is present wherever the Trino launcher can run; no unzip binary needed.
  const tmp = `${destDir}.tmp`;
  rmSync(tmp, { recursive: true, force: true });
  execFileSync('python3', ['-m', 'zipfile', '-e', zip, tmp]);
  renameSync(join(tmp, stripPrefix), destDir);
  rmSync(tmp, { recursive: true, force: true });
}

/**
 * Downloads the server and the plugins once; later calls find them in the cache. A plugin added to PLUGINS since
 * the server was fetched is fetched alone (moved into place whole, so a Trino starting meanwhile sees it or not).
 */
export function fetchTrino(l = layout()): void {
  const marker = completeMarker(l.installDir);
  if (existsSync(marker)) {
    const missing = PLUGINS.filter((p) => !existsSync(join(l.installDir, 'plugin', p)));
    if (missing.length === 0) return;
    const dl = join(l.cacheDir, `downloads-${process.pid}`);
    mkdirSync(dl, { recursive: true });
    log(`fetching the Trino plugins ${missing.join(', ')} with Maven (once; cached in ${l.cacheDir})`);
    for (const plugin of missing) installPlugin(plugin, dl, l.installDir);
    rmSync(dl, { recursive: true, force: true });
    return;
  }
  // Staged under names of this process and moved into place whole (install-dir.ts).
  const dl = join(l.cacheDir, `downloads-${process.pid}`);
  const staging = join(l.cacheDir, `staging-${process.pid}`);
  mkdirSync(dl, { recursive: true });
  mkdirSync(staging, { recursive: true });
  log(`fetching Trino ${TRINO_VERSION} with Maven (once; cached in ${l.cacheDir})`);
  if (!mvnCopy(`io.trino:trino-server-core:${TRINO_VERSION}:tar.gz`, dl)) {
    throw new Error(`Maven could not fetch io.trino:trino-server-core:${TRINO_VERSION}:tar.gz`);
  }
  execFileSync('tar', ['xzf', join(dl, `trino-server-core-${TRINO_VERSION}.tar.gz`), '-C', staging]);
  const staged = join(staging, `trino-server-core-${TRINO_VERSION}`);
  for (const plugin of PLUGINS) installPlugin(plugin, dl, staged);
  moveIntoPlace(staged, l.installDir);
  rmSync(staging, { recursive: true, force: true });
  rmSync(dl, { recursive: true, force: true });
}

/** Puts plugin `name` under `serverDir`/plugin, from its Maven zip or else the full server tarball. */
function installPlugin(name: string, dl: string, serverDir: string): void {
  const dest = join(serverDir, 'plugin', name);
  if (mvnCopy(`io.trino:trino-${name}:${TRINO_VERSION}:zip`, dl)) {
    unzipInto(join(dl, `trino-${name}-${TRINO_VERSION}.zip`), dest, `trino-${name}-${TRINO_VERSION}`);
    return;
  }
  // Some plugin zips are not served by every Maven mirror; the full server tarball carries them all.
  log(`plugin zip for ${name} not available; taking it from the full trino-server tarball`);
  const full = join(dl, `trino-server-${TRINO_VERSION}.tar.gz`);
  if (!existsSync(full) && !mvnCopy(`io.trino:trino-server:${TRINO_VERSION}:tar.gz`, dl)) {
    throw new Error(`Maven could not fetch the Trino ${name} plugin (zip or full server tarball)`);
  }
  const prefix = `trino-server-${TRINO_VERSION}/plugin/${name}`;
  // The tarball stores shared jars once, as hard links into other folders: extract it whole, keep the plugin.
  if (!existsSync(join(dl, prefix))) execFileSync('tar', ['xzf', full, '-C', dl]);
  renameSync(join(dl, prefix), dest);
}

function javaMajor(javaBin: string): number | undefined {
  const r = spawnSync(javaBin, ['-version'], { encoding: 'utf8' });
  const m = /version "(\d+)/.exec(`${r.stderr}${r.stdout}`);
  return m ? Number(m[1]) : undefined;
}

/** Starts a Trino server as a daemon with Trino's own launcher (its files under `runDir`), on the JDK given. */
export function launch(l: { installDir: string; etcDir: string; runDir: string; pidFile: string }, jdk: string): void {
  // A pid file left by a server that was killed (SIGKILL leaves it) names a dead process: read as this start's
  // before the new server's pid is in it, a start looked failed (secure-trino.ts launched a second server beside it).
  if (pidInFile(l.pidFile) !== undefined && trinoPid(l) === undefined) rmSync(l.pidFile, { force: true });
  const r = spawnSync(
    join(l.installDir, 'bin', 'launcher'),
    [
      'start',
      `--etc-dir=${l.etcDir}`,
      `--data-dir=${join(l.runDir, 'data')}`,
      `--pid-file=${l.pidFile}`,
      `--launcher-log-file=${join(l.runDir, 'launcher.log')}`,
      `--server-log-file=${join(l.runDir, 'server.log')}`,
    ],
    { env: { ...process.env, JAVA_HOME: jdk, PATH: `${join(jdk, 'bin')}:${process.env.PATH}` }, encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`Trino launcher failed: ${(r.stderr || r.stdout).trim()}`);
}

/** JAVA_HOME first, then every JVM installed in the system's JVM folder; the newest qualifying one wins. */
export function findJdk(env: NodeJS.ProcessEnv = process.env): string {
  const seen: string[] = [];
  const candidates: string[] = [];
  if (env.JAVA_HOME) candidates.push(env.JAVA_HOME);
  for (const root of ['/usr/lib/jvm', '/opt/java', '/usr/local/lib/jvm']) {
    if (!existsSync(root)) continue;
    for (const d of readdirSync(root).sort().reverse()) candidates.push(join(root, d));
  }
  let best: { home: string; major: number } | undefined;
  for (const home of candidates) {
    const bin = join(home, 'bin', 'java');
    if (!existsSync(bin)) continue;
    const major = javaMajor(bin);
    seen.push(`${home} (${major ?? 'unknown'})`);
    if (major !== undefined && major >= MIN_JAVA && (!best || major > best.major)) best = { home, major };
    if (best && home === env.JAVA_HOME) break;
  }
  if (!best) {
    throw new Error(
      `Trino ${TRINO_VERSION} needs a JDK >= ${MIN_JAVA}; found ${seen.length ? seen.join(', ') : 'none'}. ` +
        `Install one (for example a Temurin JDK 25) or point JAVA_HOME at it.`,
    );
  }
  return best.home;
}

/**
 * The pid in a Trino's pid file, if that process is still this Trino: its launcher (right after `launcher start` the
 * process may not have become java yet) or its server, both naming the Trino's data directory on their command line.
 * A pid file outlives its process, and with a few thousand processes a run the number comes round again to another
 * program, another local Trino among them (they share one install): a stop by the file alone once killed the suite's
 * Trino while the cluster started.
 */
export const trinoPid = (l: { pidFile: string; runDir: string }) => recordedPid(l.pidFile, join(l.runDir, 'data'));

/**
 * Trino servers running on this layout's data directory, found by their command line. The launcher's pid file
 * is the first answer; this one still finds a server when that file was not (yet) what it should be, so a
 * failed start-up never leaves a server behind and a slow one is not taken for a dead one.
 */
export function serverPids(l: LocalTrinoLayout): number[] {
  const mark = `-Dnode.data-dir=${join(l.runDir, 'data')}`;
  const pids: number[] = [];
  for (const entry of existsSync('/proc') ? readdirSync('/proc') : []) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (args.includes(mark) && args.includes('io.trino.server.TrinoServer')) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/** True when a Trino answers at the URL and has finished starting. */
export async function trinoReady(url: string): Promise<boolean> {
  try {
    const res = await fetch(`${url}/v1/info`, { signal: AbortSignal.timeout(2000) });
    if (!res.ok) return false;
    const info = (await res.json()) as { starting?: boolean };
    return info.starting === false;
  } catch {
    return false;
  }
}

/** The S3 server beside this Trino when spooling can be on (moto is installed), else undefined. */
function spoolStorage(l: LocalTrinoLayout): LocalS3Layout | undefined {
  if (motoAvailable()) return s3Layout(l.runDir, l.port);
  log("spooling off: moto's server is not installed (python3 -m pip install 'moto[server]')");
  return undefined;
}

/**
 * Starts the local Trino unless one already runs with this script's configuration; resolves with its URL when
 * it is ready. One that this script started with another configuration is restarted; one it did not start, and
 * whose configuration it cannot tell, is refused with a message (it is someone else's).
 */
export async function up(
  l = layout(),
  timeoutMs = 240_000,
  o: { anyJvm?: boolean } = {},
): Promise<{ url: string; started: boolean }> {
  const s3 = spoolStorage(l);
  const files = configFiles(l, s3);
  const ready = await trinoReady(l.url);
  const pid = trinoPid(l);
  const ours = pid !== undefined && alive(pid);
  if (ready || ours) {
    // `anyJvm` (the test suite): a developer's running Trino is reused whichever JVM modes it was started with.
    const stamps = (o.anyJvm ? JVM_MODES.map((m) => configFiles({ ...l, ...m }, s3)) : [files]).map(configStamp);
    const stamp = readStamp(l.runDir);
    if (stamp !== undefined && stamps.includes(stamp)) {
      if (!ours) adoptServer(l);
      if (s3) await storageUp(l, s3);
      if (!ready) {
        log(`Trino (pid ${pid}) is starting; waiting`);
        await waitReady(l, pid!, timeoutMs);
        await scannable(l);
      }
      return { url: l.url, started: false };
    }
    if (!ours) {
      throw new Error(
        `a Trino answers on ${l.url} that this script did not start (or whose configuration it cannot tell); ` +
          'stop it, or set TOPICGATE_LOCAL_TRINO_PORT to another port',
      );
    }
    log(`the Trino running on ${l.url} (pid ${pid}) has another configuration than this script's; restarting it`);
    await down(l);
  }
  fetchTrino(l);
  const jdk = findJdk();
  if (s3) await storageUp(l, s3);
  const etc = writeConfig(l.runDir, files);
  log(`starting Trino ${TRINO_VERSION} on ${l.url} with ${jdk}${s3 ? `, spooling to ${s3.url}` : ''}`);
  for (let attempt = 1; ; attempt++) {
    const before = serverLogs(l.runDir);
    startAllowed('Trino');
    launch({ installDir: l.installDir, etcDir: etc, runDir: l.runDir, pidFile: l.pidFile }, jdk);
    const started = await pidWritten(l.pidFile, PID_FILE_WAIT_MS);
    if (started === undefined) {
      throw new Error(`Trino launcher wrote no pid file at ${l.pidFile} within ${PID_FILE_WAIT_MS / 1000} s`);
    }
    try {
      await waitReady(l, started, timeoutMs);
      await scannable(l);
      return { url: l.url, started: true };
    } catch (err) {
      // Seen under load (here and for the secure Trino): the server gone before it wrote a line of its log. That
      // one is started again; a server that fails on its configuration logs why, and is not.
      const silent = err instanceof TrinoExited && !logWritten(before, l.runDir);
      if (!silent || attempt >= 3) {
        // Whoever called up() gets no handle on a server that failed to come up: stop it here.
        await down(l).catch(() => undefined);
        throw err;
      }
      log(`Trino exited before it wrote its log (attempt ${attempt}); starting it again`);
    }
  }
}

/** The server log files in `runDir` (each start begins a new one) and their sizes. */
export function serverLogs(runDir: string): Map<string, number> {
  const logs = new Map<string, number>();
  if (!existsSync(runDir)) return logs;
  for (const name of readdirSync(runDir)) {
    if (name.startsWith('server.log'))
      logs.set(name, statSync(join(runDir, name), { throwIfNoEntry: false })?.size ?? -1);
  }
  return logs;
}

/** Whether a server log in `runDir` is new or has grown since `before` (serverLogs). */
export function logWritten(before: Map<string, number>, runDir: string): boolean {
  return [...serverLogs(runDir)].some(([name, size]) => before.get(name) !== size);
}

/** The server's process ended before it answered. */
class TrinoExited extends Error {}

/**
 * A server of this layout answers but the pid file does not name it (seen once in a test run: the file named a
 * process that was gone): the file is written again from the server found by its command line, so `down` and the
 * next `up` know it.
 */
function adoptServer(l: LocalTrinoLayout): void {
  const pids = serverPids(l);
  if (pids.length !== 1) return;
  log(`the pid file did not name the running Trino (pid ${pids[0]}); recorded it again`);
  writeFileSync(l.pidFile, `${pids[0]}\n`);
}

/** The S3 server (spool and lake warehouse) and the lake's catalog schema in PostgreSQL (local-lake.ts). */
async function storageUp(l: LocalTrinoLayout, s3: LocalS3Layout): Promise<void> {
  const { started } = await s3Up(s3);
  await prepareLake(l.port, started, l.runDir);
}

/** Whether a Trino answers on this layout's port or the one this script started still runs. */
export async function trinoRunning(l: LocalTrinoLayout): Promise<boolean> {
  const pid = trinoPid(l);
  return (await trinoReady(l.url)) || (pid !== undefined && alive(pid));
}

async function waitReady(l: LocalTrinoLayout, pid: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    // Interrupted (clean-stop.ts): the start gives up, and stops the server it launched.
    startAllowed('Trino');
    if (await trinoReady(l.url)) return;
    if (!alive(pid) && serverPids(l).length === 0) {
      throw new TrinoExited(`Trino exited during start-up; see ${join(l.runDir, 'server.log')}`);
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
  throw new Error(`Trino did not become ready within ${timeoutMs / 1000}s; see ${join(l.runDir, 'server.log')}`);
}

/** Waits until the Trino just started schedules scans (trino-scannable.ts). */
function scannable(l: LocalTrinoLayout): Promise<void> {
  return untilScannable(new HttpTrino({ server: l.url, user: 'topicgate-start' }), DEMO_CATALOG);
}

/**
 * Stops the Trino this script started (by its recorded pid) and what its start started beside it (the S3 server,
 * the lake's PostgreSQL when it was not running), and nothing else; each even when another fails.
 */
export async function down(l = layout()): Promise<boolean> {
  const pid = trinoPid(l);
  const pids = [...new Set([...(pid !== undefined && alive(pid) ? [pid] : []), ...serverPids(l)])];
  const trino = (async () => {
    for (const p of pids) await stopProcess(p, 30_000);
    rmSync(l.pidFile, { force: true });
    return pids.length > 0;
  })();
  // The spool storage goes with the Trino that wrote to it; the lake's PostgreSQL once Trino no longer uses it.
  const stops = await Promise.allSettled([
    trino,
    s3Down(s3Layout(l.runDir, l.port)),
    trino.then(() => lakePgDown(l.runDir)),
  ]);
  const failed = stops.find((s) => s.status === 'rejected');
  if (failed) throw failed.reason;
  return stops.some((s) => s.status === 'fulfilled' && s.value);
}

async function main(cmd: string | undefined): Promise<void> {
  const at = process.argv.indexOf('--workers');
  if (at > 0 || process.env.TOPICGATE_LOCAL_TRINO_WORKERS) {
    // The cluster runs beside the single node on ports of its own: each command reaches the one it names, never both.
    const { clusterCommand } = await import('./local-trino-cluster.js');
    return clusterCommand(cmd, at > 0 ? process.argv[at + 1] : undefined);
  }
  const l = layout();
  switch (cmd) {
    case 'up': {
      // Interrupted while starting: stops what this start started (clean-stop.ts).
      stopOnSignals(log);
      const before = await trinoRunning(l);
      const starting = up(l);
      // A Trino launched just before the stop may not be found by it yet: stopped again once the start gave up.
      const stop = async () => {
        await down(l);
        await starting.catch(() => undefined);
        await down(l);
      };
      if (!before) startedHere('the local Trino', stop);
      const r = await starting.catch(async (err: unknown) => {
        log(`error: ${err instanceof Error ? err.message : String(err)}`);
        return exitAfterStop(1, log);
      });
      log(r.started ? 'ready' : 'already running');
      process.stdout.write(`${r.url}\n`);
      return;
    }
    case 'down':
      log((await down(l)) ? 'stopped' : 'not running (nothing to stop)');
      return;
    case 'status':
      process.stdout.write((await trinoReady(l.url)) ? `running ${l.url}\n` : 'not running\n');
      return;
    case 'fetch':
      fetchTrino(l);
      process.stdout.write(`${l.installDir}\n`);
      return;
    default:
      throw new Error('usage: local-trino.ts up | down | status | fetch');
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main(process.argv[2]).catch((err: unknown) => {
    process.stderr.write(`[trino] error: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
