/**
 * `npm run cluster:up` / `cluster:down`: two gateway instances (the built dist/, as `npm start` runs it) sharing the
 * local PostgreSQL as their state store, against the local Trino, behind HAProxy (scripts/haproxy-config.ts).
 * `up` prints the balancer's URL last; `down` stops what `up` started (by the pids it recorded in its run dir,
 * and the local Trino and PostgreSQL only when `up` started them) and nothing else; both are idempotent.
 *
 *   tsx scripts/cluster.ts up | down | status
 *
 * Ports as scripts/cluster-layout.ts says: the balancer's HTTP and Flight SQL ports, the instances' next to them;
 * HAProxy fronts both (gRPC in `mode http` over HTTP/2). They use
 * TOPICGATE_TRINO_URL and a postgres:// TOPICGATE_STATE_URL when the environment sets them. The instances
 * share one TOPICGATE_CURSOR_SECRET: yours, or one made once and kept (mode 0600) in the run dir. Every other
 * TOPICGATE_* setting of the environment (TOPICGATE_CONFIG, ...) reaches both instances.
 */
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { pgDown, pgLayout, pgReady, pgUp } from './local-postgres.js';
import { down as trinoDown, layout as trinoLayout, trinoRunning, up as trinoUp } from './local-trino.js';
import { exitAfterStop, startAllowed, startedHere, stopOnSignals } from './clean-stop.js';
import { loadDemo } from './load-demo.js';
import { alive, recordedPid, stopProcess } from './pid-file.js';
import { PROJECT_ROOT, startFlags } from './start-command.js';
import { checkConfig, findHaproxy, haproxyConfig } from './haproxy-config.js';
import { clusterFiles as files, clusterLayout, type ClusterLayout } from './cluster-layout.js';

export { clusterLayout, type ClusterLayout };

export interface ClusterInstance {
  url: string;
  /** Its Flight SQL URI (grpc://), when the layout has Flight ports. */
  flightUri?: string;
  pid: number;
  logFile: string;
}

export interface Cluster {
  url: string;
  /** The balancer's Flight SQL URI (grpc://), when the layout has Flight ports. */
  flightUri?: string;
  instances: ClusterInstance[];
  balancerPid: number;
  /** False: it was already running (nothing was started). */
  started: boolean;
}

/** What `up` started besides the cluster, so that `down` stops it too. */
interface Started {
  trino: boolean;
  postgres: boolean;
}

const GATEWAY_MARK = 'dist/server.js';
const BALANCER_MARK = 'haproxy';

function log(msg: string): void {
  process.stderr.write(`[cluster] ${msg}\n`);
}

export interface ClusterOptions {
  /** Settings of both instances, over the environment's (e.g. TOPICGATE_CONFIG). */
  env?: Record<string, string>;
  /** The Trino and the PostgreSQL state store: given, or the local ones, started (and the demo loaded) if need be. */
  trinoUrl?: string;
  stateUrl?: string;
  readyTimeoutMs?: number;
}

/** The running cluster of this layout, if all of it runs. */
export function clusterState(l = clusterLayout()): Cluster | undefined {
  const f = files(l);
  const balancerPid = recordedPid(f.balancerPid, BALANCER_MARK);
  const pids = l.instancePorts.map((_, i) => recordedPid(f.gatewayPid(i), GATEWAY_MARK));
  if (balancerPid === undefined || !alive(balancerPid)) return undefined;
  if (pids.some((p) => p === undefined || !alive(p))) return undefined;
  const instances = l.instancePorts.map((_, i) => instanceOf(l, i, pids[i]!));
  return { url: l.url, ...flightUriOf(l), instances, balancerPid, started: false };
}

/** Starts the cluster unless it runs; resolves once the balancer answers /readyz through an instance. */
export async function clusterUp(l = clusterLayout(), o: ClusterOptions = {}): Promise<Cluster> {
  const running = clusterState(l);
  if (running) return running;
  // Whatever is left of an earlier start (an instance killed): stopped first.
  await clusterDown(l, { services: false });
  mkdirSync(l.runDir, { recursive: true });
  const f = files(l);
  const started: Started = { trino: false, postgres: false };
  try {
    const record = () => writeFileSync(f.started, JSON.stringify(started));
    const stateUrl = o.stateUrl ?? (await localPostgres(started, record));
    const trinoUrl = o.trinoUrl ?? (await localTrino(started, record));
    execFileSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { cwd: PROJECT_ROOT, stdio: 'inherit' });
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ...o.env,
      TOPICGATE_HOST: '127.0.0.1',
      TOPICGATE_TRINO_URL: trinoUrl,
      TOPICGATE_STATE_URL: stateUrl,
      TOPICGATE_CURSOR_SECRET:
        o.env?.TOPICGATE_CURSOR_SECRET ?? process.env.TOPICGATE_CURSOR_SECRET ?? secret(f.secret),
    };
    const timeoutMs = o.readyTimeoutMs ?? 120_000;
    const instances = l.instancePorts.map((_, i) => startGateway(env, l, i));
    await Promise.all(instances.map((g) => waitReady(g.url, g.pid, g.logFile, timeoutMs)));
    const balancerPid = startBalancer(l, f);
    await waitReady(l.url, balancerPid, f.balancerLog, timeoutMs);
    log(`balancer ${l.url} over ${instances.map((g) => g.url).join(', ')}`);
    return { url: l.url, ...flightUriOf(l), instances, balancerPid, started: true };
  } catch (err) {
    await clusterDown(l).catch(() => undefined);
    throw err;
  }
}

/**
 * The local PostgreSQL, started when it is not running: recorded as started before its start (`record`), so a start
 * interrupted half-way is stopped by `down` too, and as what its start says once it has.
 */
async function localPostgres(started: Started, record: () => void): Promise<string> {
  started.postgres = !(await pgReady(pgLayout().url));
  record();
  const pg = await pgUp();
  started.postgres = pg.started;
  record();
  return pg.url;
}

/** The local Trino, started (and the demo topics loaded into it) when it is not running; recorded as PostgreSQL is. */
async function localTrino(started: Started, record: () => void): Promise<string> {
  const l = trinoLayout();
  started.trino = !(await trinoRunning(l));
  record();
  const t = await trinoUp(l);
  started.trino = t.started;
  record();
  // A Trino already running keeps its topics: loading them again would disturb whoever uses it.
  if (t.started) await loadDemo(t.url);
  return t.url;
}

/** The instances' shared cursor secret: made once (32 random bytes) and kept in the run dir, readable by its owner. */
function secret(file: string): string {
  if (!existsSync(file)) writeFileSync(file, randomBytes(32).toString('base64url'), { mode: 0o600 });
  return readFileSync(file, 'utf8').trim();
}

/** Instance `i` of the layout, running as `pid`. */
function instanceOf(l: ClusterLayout, i: number, pid: number): ClusterInstance {
  const flightPort = l.flight?.instancePorts[i];
  return {
    url: `http://127.0.0.1:${l.instancePorts[i]!}`,
    ...(flightPort !== undefined ? { flightUri: `grpc://127.0.0.1:${flightPort}` } : {}),
    pid,
    logFile: files(l).gatewayLog(i),
  };
}

const flightUriOf = (l: ClusterLayout) => (l.flight ? { flightUri: l.flight.uri } : {});

/** Starts instance `i`: its HTTP port, and its Flight port (off when the layout has none: one default for all). */
function startGateway(env: NodeJS.ProcessEnv, l: ClusterLayout, i: number): ClusterInstance {
  const port = l.instancePorts[i]!;
  startAllowed(`the gateway on port ${port}`);
  const { gatewayPid: pidFile, gatewayLog: logFile } = files(l);
  const out = openSync(logFile(i), 'w');
  const flightPort = l.flight?.instancePorts[i];
  const child = spawn(process.execPath, [...startFlags(), GATEWAY_MARK], {
    cwd: PROJECT_ROOT,
    env: { ...env, TOPICGATE_PORT: String(port), TOPICGATE_FLIGHT_PORT: flightPort ? String(flightPort) : 'off' },
    detached: true,
    stdio: ['ignore', out, out],
  });
  child.unref();
  if (child.pid === undefined) throw new Error(`the gateway on port ${port} did not start`);
  writeFileSync(pidFile(i), String(child.pid));
  return instanceOf(l, i, child.pid);
}

function startBalancer(l: ClusterLayout, f: ReturnType<typeof files>): number {
  startAllowed('the balancer');
  const bin = findHaproxy();
  const at = (ports: readonly number[]) => ports.map((p) => `127.0.0.1:${p}`);
  const flight = l.flight ? { port: l.flight.port, servers: at(l.flight.instancePorts) } : undefined;
  writeFileSync(f.config, haproxyConfig({ port: l.port, servers: at(l.instancePorts), flight }));
  const problem = checkConfig(bin, f.config);
  if (problem) throw new Error(`haproxy refuses ${f.config}: ${problem}`);
  const out = openSync(f.balancerLog, 'w');
  // -db: in the foreground, so the pid recorded is the balancer's own.
  const child = spawn(bin, ['-db', '-f', f.config], { cwd: l.runDir, detached: true, stdio: ['ignore', out, out] });
  child.unref();
  if (child.pid === undefined) throw new Error('haproxy did not start');
  writeFileSync(f.balancerPid, String(child.pid));
  return child.pid;
}

async function waitReady(url: string, pid: number, logFile: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const ok = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2000) }).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) return;
    if (!alive(pid)) throw new Error(`the process behind ${url} exited during start-up: ${tail(logFile)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${url}/readyz did not answer 200 within ${timeoutMs / 1000}s; see ${logFile}`);
}

function tail(file: string): string {
  try {
    return readFileSync(file, 'utf8').trim().split('\n').slice(-5).join(' | ');
  } catch {
    return `(no log at ${file})`;
  }
}

/**
 * Stops the balancer, then the instances (SIGTERM: they finish what they serve), by their recorded pids, and the
 * local Trino and PostgreSQL if `up` started them (`services: false` leaves them), each even when another fails.
 * True when anything was running.
 */
export async function clusterDown(l = clusterLayout(), o: { services?: boolean } = {}): Promise<boolean> {
  const f = files(l);
  let stopped = false;
  const stop = async (pidFile: string, mark: string) => {
    const pid = recordedPid(pidFile, mark);
    if (pid !== undefined && alive(pid)) {
      await stopProcess(pid, 30_000);
      stopped = true;
    }
    rmSync(pidFile, { force: true });
  };
  // Each is stopped even when another fails; the first failure is thrown once all have been tried.
  const results: PromiseSettledResult<unknown>[] = [
    ...(await Promise.allSettled([stop(f.balancerPid, BALANCER_MARK)])),
    ...(await Promise.allSettled(l.instancePorts.map((_, i) => stop(f.gatewayPid(i), GATEWAY_MARK)))),
  ];
  if (o.services !== false && existsSync(f.started)) {
    const started = JSON.parse(readFileSync(f.started, 'utf8')) as Started;
    const services = await Promise.allSettled([
      started.trino ? trinoDown() : false,
      started.postgres ? pgDown(pgLayout()) : false,
    ]);
    for (const s of services) if (s.status === 'fulfilled' && s.value) stopped = true;
    results.push(...services);
    rmSync(f.started, { force: true });
  }
  const failed = results.find((r) => r.status === 'rejected');
  if (failed) throw failed.reason;
  return stopped;
}

async function main(cmd: string | undefined): Promise<void> {
  const l = clusterLayout();
  switch (cmd) {
    case 'up': {
      // A Trino or a PostgreSQL state store of yours, when the environment names one; else the local ones.
      const env = process.env;
      const stateUrl = /^postgres(?:ql)?:\/\//.test(env.TOPICGATE_STATE_URL ?? '')
        ? env.TOPICGATE_STATE_URL
        : undefined;
      // Interrupted while starting: stops what this start started (clean-stop.ts), as a failed start does.
      stopOnSignals(log);
      if (!clusterState(l)) startedHere('the cluster', () => clusterDown(l));
      const c = await clusterUp(l, { trinoUrl: env.TOPICGATE_TRINO_URL || undefined, stateUrl }).catch(
        async (err: unknown) => {
          log(`error: ${err instanceof Error ? err.message : String(err)}`);
          return exitAfterStop(1, log);
        },
      );
      for (const g of c.instances) log(`instance ${g.url} ${g.flightUri ?? ''} (pid ${g.pid}, log ${g.logFile})`);
      if (c.flightUri) log(`Flight SQL through the balancer: ${c.flightUri}`);
      log(c.started ? 'ready' : 'already running');
      process.stdout.write(`${c.url}\n`);
      return;
    }
    case 'down':
      log((await clusterDown(l)) ? 'stopped' : 'not running (nothing to stop)');
      return;
    case 'status': {
      const c = clusterState(l);
      process.stdout.write(c ? `running ${c.url}\n` : 'not running\n');
      return;
    }
    default:
      throw new Error('usage: cluster.ts up | down | status');
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main(process.argv[2]).catch((err: unknown) => {
    process.stderr.write(`[cluster] error: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
