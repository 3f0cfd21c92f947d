/**
 * The project's local Schema Registry: Apicurio Registry (its Confluent-compatible API at /apis/ccompat/v7),
 * fetched once with the ordinary Maven client into the same cache as the local Trino, run on Java 17+ with
 * in-memory storage, stopped by the pid it recorded.
 *
 *   tsx scripts/local-registry.ts up | down | status | fetch
 *
 * `up` prints, last, the URL to put in `schemaRegistry.url`.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, openSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { completeMarker, moveIntoPlace } from './install-dir.js';
import { alive, recordedPid, stopProcess } from './pid-file.js';
import { startAllowed } from './clean-stop.js';

export const REGISTRY_VERSION = '2.6.13.Final';
const ARTIFACT = `io.apicurio:apicurio-registry-app:${REGISTRY_VERSION}:tar.gz:all`;
const RUNNER = `apicurio-registry-app-${REGISTRY_VERSION}-runner.jar`;
/** Apicurio 2.6 is a Quarkus 3 application: Java 17 or newer. */
const MIN_JAVA = 17;
/** The Confluent-compatible API under the registry's root. */
export const CCOMPAT_PATH = '/apis/ccompat/v7';

export interface LocalRegistryLayout {
  port: number;
  /** The Confluent-compatible base URL (what `schemaRegistry.url` takes). */
  url: string;
  cacheDir: string;
  installDir: string;
  runDir: string;
  pidFile: string;
  logFile: string;
}

export function registryLayout(env: NodeJS.ProcessEnv = process.env): LocalRegistryLayout {
  const port = Number(env.TOPICGATE_LOCAL_REGISTRY_PORT ?? 18081);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new Error(`TOPICGATE_LOCAL_REGISTRY_PORT must be a TCP port, got ${env.TOPICGATE_LOCAL_REGISTRY_PORT}`);
  }
  // Same cache dir as scripts/local-trino.ts.
  const cacheDir = env.TOPICGATE_CACHE_DIR ?? join(env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'topicgate');
  const runDir = join(cacheDir, `registry-run-${port}`);
  return {
    port,
    url: `http://127.0.0.1:${port}${CCOMPAT_PATH}`,
    cacheDir,
    installDir: join(cacheDir, `apicurio-registry-${REGISTRY_VERSION}`),
    runDir,
    pidFile: join(runDir, 'registry.pid'),
    logFile: join(runDir, 'registry.log'),
  };
}

function log(msg: string): void {
  process.stderr.write(`[registry] ${msg}\n`);
}

/** Downloads the registry once; later calls find it in the cache. */
export function fetchRegistry(l = registryLayout()): void {
  if (existsSync(completeMarker(l.installDir))) return;
  // Fetched and unpacked under names of this process, then moved into place whole (install-dir.ts).
  const dl = join(l.cacheDir, `downloads-registry-${process.pid}`);
  mkdirSync(dl, { recursive: true });
  const tarball = join(dl, `apicurio-registry-app-${REGISTRY_VERSION}-all.tar.gz`);
  if (!existsSync(tarball)) {
    log(`fetching Apicurio Registry ${REGISTRY_VERSION} with Maven (once; cached in ${l.cacheDir})`);
    const r = spawnSync('mvn', ['-q', '-B', 'dependency:copy', `-Dartifact=${ARTIFACT}`, `-DoutputDirectory=${dl}`], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    if (r.error) throw new Error(`cannot run mvn (${r.error.message}); install Maven to fetch the local registry`);
    if (r.status !== 0) throw new Error(`Maven could not fetch ${ARTIFACT}`);
  }
  const tmp = `${l.installDir}.tmp-${process.pid}`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  execFileSync('tar', ['xzf', tarball, '-C', tmp]);
  moveIntoPlace(tmp, l.installDir);
  rmSync(tmp, { recursive: true, force: true });
  rmSync(dl, { recursive: true, force: true });
}

function javaMajor(javaBin: string): number | undefined {
  const r = spawnSync(javaBin, ['-version'], { encoding: 'utf8' });
  const m = /version "(\d+)/.exec(`${r.stderr}${r.stdout}`);
  return m ? Number(m[1]) : undefined;
}

/** JAVA_HOME, then `java` on the PATH, then the installed JVMs: the first that is Java 17 or newer. */
function findJava(env: NodeJS.ProcessEnv = process.env): string {
  const candidates: string[] = [];
  if (env.JAVA_HOME) candidates.push(join(env.JAVA_HOME, 'bin', 'java'));
  candidates.push('java');
  for (const root of ['/usr/lib/jvm', '/opt/java', '/usr/local/lib/jvm']) {
    if (!existsSync(root)) continue;
    for (const d of readdirSync(root).sort()) candidates.push(join(root, d, 'bin', 'java'));
  }
  const seen: string[] = [];
  for (const bin of candidates) {
    const major = javaMajor(bin);
    if (major === undefined) continue;
    seen.push(`${bin} (${major})`);
    if (major >= MIN_JAVA) return bin;
  }
  throw new Error(`the registry needs Java >= ${MIN_JAVA}; found ${seen.length ? seen.join(', ') : 'none'}`);
}

const readPid = (l: LocalRegistryLayout) => recordedPid(l.pidFile, RUNNER);

/** True when a Confluent-compatible registry answers at the URL. */
export async function registryReady(url: string): Promise<boolean> {
  try {
    const res = await fetch(`${url}/subjects`, { signal: AbortSignal.timeout(2000) });
    return res.ok;
  } catch {
    return false;
  }
}

/** Starts the local registry unless one already answers; resolves with its URL when it is ready. */
export async function registryUp(
  l = registryLayout(),
  timeoutMs = 120_000,
): Promise<{ url: string; started: boolean }> {
  if (await registryReady(l.url)) return { url: l.url, started: false };
  fetchRegistry(l);
  const java = findJava();
  mkdirSync(l.runDir, { recursive: true });
  // In-memory storage (the app's default, H2 in memory): every start is an empty registry.
  log(`starting Apicurio Registry ${REGISTRY_VERSION} on ${l.url}`);
  startAllowed('the Schema Registry');
  const out = openSync(l.logFile, 'a');
  // C1 only and the serial collector: a registry that serves a few schemas spends more CPU on C2 and on parallel
  // GC threads than they give back (to get ready: 4.2 s of CPU instead of 7.6 s, 9-12 s instead of 17 s on two
  // loaded cores).
  const jvm = ['-Xmx512m', '-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC'];
  const child = spawn(
    java,
    [...jvm, `-Dquarkus.http.port=${l.port}`, '-Dquarkus.http.host=127.0.0.1', '-jar', join(l.installDir, RUNNER)],
    { cwd: l.runDir, detached: true, stdio: ['ignore', out, out] },
  );
  child.unref();
  if (child.pid === undefined) throw new Error('the registry process did not start');
  writeFileSync(l.pidFile, String(child.pid));
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await registryReady(l.url)) return { url: l.url, started: true };
    if (!alive(child.pid)) throw new Error(`the registry exited during start-up; see ${l.logFile}`);
    await new Promise((r) => setTimeout(r, 500));
  }
  await registryDown(l).catch(() => undefined);
  throw new Error(`the registry did not become ready within ${timeoutMs / 1000}s; see ${l.logFile}`);
}

/** Stops the registry this script started (by its recorded pid) and nothing else. */
export async function registryDown(l = registryLayout()): Promise<boolean> {
  const pid = readPid(l);
  if (pid === undefined || !alive(pid)) {
    rmSync(l.pidFile, { force: true });
    return false;
  }
  await stopProcess(pid, 20_000);
  rmSync(l.pidFile, { force: true });
  return true;
}

async function main(cmd: string | undefined): Promise<void> {
  const l = registryLayout();
  switch (cmd) {
    case 'up': {
      const r = await registryUp(l);
      log(r.started ? 'ready' : 'already running');
      process.stdout.write(`${r.url}\n`);
      return;
    }
    case 'down':
      log((await registryDown(l)) ? 'stopped' : 'not running (nothing to stop)');
      return;
    case 'status':
      process.stdout.write((await registryReady(l.url)) ? `running ${l.url}\n` : 'not running\n');
      return;
    case 'fetch':
      fetchRegistry(l);
      process.stdout.write(`${l.installDir}\n`);
      return;
    default:
      throw new Error('usage: local-registry.ts up | down | status | fetch');
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main(process.argv[2]).catch((err: unknown) => {
    process.stderr.write(`[registry] error: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
