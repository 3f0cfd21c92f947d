/**
 * The project's local PostgreSQL (the backend of Trino's `vastpg` catalog): the machine's own Debian binaries,
 * a data directory in the cache outside the work tree, initialised once, listening on 127.0.0.1 only, stopped
 * with pg_ctl on that data directory (never any other server).
 *
 *   tsx scripts/local-postgres.ts up | down | status
 */
import { spawnSync } from 'node:child_process';
import { accessSync, chmodSync, chownSync, constants, existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { startAllowed } from './clean-stop.js';

/** The role, password and database the gateway and Trino's `vastpg` catalog use. */
export const PG_USER = 'topicgate';
export const PG_PASSWORD = 'topicgate';
export const PG_DATABASE = 'topicgate';
/** The bootstrap superuser of the local cluster; reached only through the unix socket inside the data dir. */
const SUPERUSER = 'postgres';
/** The OS user that runs the server when this script runs as root (PostgreSQL refuses to run as root). */
const SERVER_OS_USER = 'postgres';
/** Where Debian's packages put one bin dir per major version. */
const DEBIAN_PG_ROOT = '/usr/lib/postgresql';
/** sun_path is 108 bytes on Linux, including the terminating NUL. */
const MAX_SOCKET_PATH = 107;

export interface LocalPgLayout {
  port: number;
  /** postgres://topicgate:topicgate@127.0.0.1:<port>/topicgate */
  url: string;
  cacheDir: string;
  dataDir: string;
  /** The unix socket directory: the data dir itself, so no system directory is needed. */
  socketDir: string;
  logFile: string;
}

export function pgLayout(env: NodeJS.ProcessEnv = process.env): LocalPgLayout {
  const port = Number(env.TOPICGATE_LOCAL_PG_PORT ?? 15432);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new Error(`TOPICGATE_LOCAL_PG_PORT must be a TCP port, got ${JSON.stringify(env.TOPICGATE_LOCAL_PG_PORT)}`);
  }
  // Same cache dir as scripts/local-trino.ts.
  const cacheDir = env.TOPICGATE_CACHE_DIR ?? join(env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'topicgate');
  const dataDir = join(cacheDir, `pg-${port}`);
  return {
    port,
    url: pgUrl({ port }),
    cacheDir,
    dataDir,
    socketDir: dataDir,
    logFile: join(dataDir, 'server.log'),
  };
}

/** A connection URL; defaults to the local server's role and database on 127.0.0.1. */
export function pgUrl(p: { port: number; host?: string; user?: string; password?: string; database?: string }): string {
  const user = encodeURIComponent(p.user ?? PG_USER);
  const password = encodeURIComponent(p.password ?? PG_PASSWORD);
  const database = encodeURIComponent(p.database ?? PG_DATABASE);
  return `postgres://${user}:${password}@${p.host ?? '127.0.0.1'}:${p.port}/${database}`;
}

function log(msg: string): void {
  process.stderr.write(`[pg] ${msg}\n`);
}

/** Major version in a Debian bin dir path such as /usr/lib/postgresql/15/bin (undefined when it has none). */
export function binDirMajor(dir: string): number | undefined {
  const m = /\/(\d+)(?:\.\d+)?\/bin\/?$/.exec(dir);
  return m ? Number(m[1]) : undefined;
}

export interface PgBinDir {
  dir: string;
  major: number;
}

/**
 * Picks the server bin dir: the one matching `wantMajor` (the PG_VERSION of an existing data dir) when given,
 * else `preferred` (an explicit setting, or pg_config's) when it qualifies, else the newest major version.
 */
export function chooseBinDir(
  candidates: readonly PgBinDir[],
  opts: { preferred?: string; wantMajor?: number } = {},
): PgBinDir | undefined {
  if (opts.wantMajor !== undefined) {
    const matching = candidates.filter((c) => c.major === opts.wantMajor);
    return matching.find((c) => c.dir === opts.preferred) ?? matching[0];
  }
  const preferred = candidates.find((c) => c.dir === opts.preferred);
  if (preferred) return preferred;
  return [...candidates].sort((a, b) => b.major - a.major)[0];
}

function isServerBinDir(dir: string): boolean {
  return ['initdb', 'pg_ctl', 'postgres'].every((b) => {
    try {
      accessSync(join(dir, b), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** Major version of a bin dir: from its Debian path, else from `pg_ctl --version` ("pg_ctl (PostgreSQL) 15.18"). */
function majorOf(dir: string): number | undefined {
  const fromPath = binDirMajor(dir);
  if (fromPath !== undefined) return fromPath;
  const r = spawnSync(join(dir, 'pg_ctl'), ['--version'], { encoding: 'utf8' });
  const m = /\(PostgreSQL\) (\d+)/.exec(r.stdout ?? '');
  return m ? Number(m[1]) : undefined;
}

/**
 * PostgreSQL server binaries: TOPICGATE_PG_BINDIR, `pg_config --bindir`, or the newest /usr/lib/postgresql/N/bin
 * holding initdb, pg_ctl and postgres. `wantMajor` insists on one major version (that of an existing data dir).
 */
export function findPgBinDir(env: NodeJS.ProcessEnv = process.env, wantMajor?: number): string {
  const searched: string[] = [];
  const candidates: PgBinDir[] = [];
  const consider = (dir: string): void => {
    if (searched.includes(dir)) return;
    searched.push(dir);
    const major = isServerBinDir(dir) ? majorOf(dir) : undefined;
    if (major !== undefined) candidates.push({ dir, major });
  };
  const explicit = env.TOPICGATE_PG_BINDIR || undefined;
  if (explicit) consider(explicit);
  // pg_config usually comes with libpq-dev: its bin dir may name a version whose server is not installed.
  const pgConfig = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' });
  const configured = pgConfig.status === 0 ? pgConfig.stdout.trim() : undefined;
  if (configured) consider(configured);
  else searched.push('pg_config --bindir (no pg_config)');
  if (existsSync(DEBIAN_PG_ROOT)) {
    for (const v of readdirSync(DEBIAN_PG_ROOT)) consider(join(DEBIAN_PG_ROOT, v, 'bin'));
  } else searched.push(`${DEBIAN_PG_ROOT}/*/bin (absent)`);
  const chosen = chooseBinDir(candidates, { preferred: explicit ?? configured, wantMajor });
  if (chosen) return chosen.dir;
  const want = wantMajor !== undefined ? ` of PostgreSQL ${wantMajor} (the version of the existing data dir)` : '';
  throw new Error(
    `no PostgreSQL server binaries (initdb, pg_ctl, postgres)${want}; searched ${searched.join(', ')}. ` +
      `Install Debian's postgresql package or set TOPICGATE_PG_BINDIR.`,
  );
}

/** The OS user the server runs as: this process's user, or `postgres` when this process is root. */
interface ServerUser {
  /** undefined: run the binaries directly as the current user. */
  name?: string;
  uid: number;
  gid: number;
}

function serverUser(): ServerUser {
  const uid = process.getuid?.() ?? -1;
  const gid = process.getgid?.() ?? -1;
  if (uid !== 0) return { uid, gid };
  const idU = spawnSync('id', ['-u', SERVER_OS_USER], { encoding: 'utf8' });
  const idG = spawnSync('id', ['-g', SERVER_OS_USER], { encoding: 'utf8' });
  if (idU.status !== 0 || idG.status !== 0) {
    throw new Error(
      `running as root, and PostgreSQL refuses to run as root, but there is no '${SERVER_OS_USER}' OS user ` +
        `(Debian's postgresql package creates it); create it or run this script as a non-root user`,
    );
  }
  return { name: SERVER_OS_USER, uid: Number(idU.stdout.trim()), gid: Number(idG.stdout.trim()) };
}

/** Single-quotes a word for `su -c`. */
export function shellQuote(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Runs a PostgreSQL binary as the server user (via runuser, or su where runuser is missing). */
function runAs(user: ServerUser, bin: string, args: string[]): { status: number | null; out: string } {
  let cmd = bin;
  let argv = args;
  if (user.name !== undefined) {
    const hasRunuser = spawnSync('runuser', ['--help'], { stdio: 'ignore' }).error === undefined;
    if (hasRunuser) {
      cmd = 'runuser';
      argv = ['-u', user.name, '--', bin, ...args];
    } else {
      cmd = 'su';
      argv = [user.name, '-s', '/bin/sh', '-c', [bin, ...args].map(shellQuote).join(' ')];
    }
  }
  // cwd '/': the server user may not be allowed into the caller's working directory.
  const r = spawnSync(cmd, argv, { cwd: '/', encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (r.error) throw new Error(`cannot run ${cmd}: ${r.error.message}`);
  return { status: r.status, out: `${r.stdout}${r.stderr}`.trim() };
}

/** Writes a file inside the data dir, owned by the server user. */
function writeOwned(path: string, text: string, user: ServerUser): void {
  writeFileSync(path, text, { mode: 0o600 });
  if (user.name !== undefined) chownSync(path, user.uid, user.gid);
}

/**
 * As root, the server user must be able to walk down to the data dir (root's home is usually mode 0700):
 * add search permission for others (x only, no listing) on each ancestor that denies it.
 */
function ensureReachable(dir: string, user: ServerUser): void {
  if (user.name === undefined) return;
  const ancestors: string[] = [];
  for (let d = dirname(dir); d !== dirname(d); d = dirname(d)) ancestors.unshift(d);
  // Top-down: a directory below an unsearchable one cannot be judged until its parent is fixed.
  for (const d of ancestors) {
    if (runAs(user, 'test', ['-x', d]).status === 0) continue;
    log(`adding search permission (o+x) to ${d} so the ${user.name} OS user can reach ${dir}`);
    chmodSync(d, statSync(d).mode | 0o001);
  }
}

/** The settings the local server runs with; included at the end of postgresql.conf, so they win. */
export function serverConf(l: Pick<LocalPgLayout, 'port' | 'socketDir'>): string {
  return (
    [
      '# Written by scripts/local-postgres.ts on every start; edits are lost.',
      "listen_addresses = '127.0.0.1'",
      `port = ${l.port}`,
      `unix_socket_directories = '${l.socketDir.replace(/'/g, "''")}'`,
      'max_connections = 100',
      'shared_buffers = 128MB',
      "password_encryption = 'scram-sha-256'",
      // A throwaway test server: durability buys nothing here.
      'fsync = off',
      'synchronous_commit = off',
      'full_page_writes = off',
      'logging_collector = off',
    ].join('\n') + '\n'
  );
}

/** Socket: trust (the socket lives in the 0700 data dir, so only the server user and root reach it). TCP: password. */
export const PG_HBA =
  [
    '# Written by scripts/local-postgres.ts on every start; edits are lost.',
    'local all all                trust',
    'host  all all 127.0.0.1/32   scram-sha-256',
  ].join('\n') + '\n';

const INCLUDE_LINE = "include_if_exists = 'topicgate.conf'";

function dataDirMajor(l: LocalPgLayout): number | undefined {
  const f = join(l.dataDir, 'PG_VERSION');
  return existsSync(f) ? Number(readFileSync(f, 'utf8').trim()) : undefined;
}

/** initdb once, into a scratch dir renamed into place, so an interrupted initdb leaves nothing half-made. */
function initOnce(l: LocalPgLayout, bin: string, user: ServerUser): void {
  if (dataDirMajor(l) !== undefined) return;
  if (existsSync(l.dataDir) && readdirSync(l.dataDir).length > 0) {
    throw new Error(`${l.dataDir} exists but holds no PostgreSQL cluster (no PG_VERSION); remove it and retry`);
  }
  const tmp = `${l.dataDir}.initdb`;
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true, mode: 0o700 });
  if (user.name !== undefined) chownSync(tmp, user.uid, user.gid);
  ensureReachable(tmp, user);
  log(`initdb ${l.dataDir} with ${bin}${user.name !== undefined ? ` as OS user ${user.name}` : ''} (once)`);
  const r = runAs(user, join(bin, 'initdb'), [
    `--pgdata=${tmp}`,
    `--username=${SUPERUSER}`,
    '--auth-local=trust',
    '--auth-host=scram-sha-256',
    '--encoding=UTF8',
    '--locale=C',
    '--no-sync',
  ]);
  if (r.status !== 0) throw new Error(`initdb failed: ${r.out}`);
  const conf = join(tmp, 'postgresql.conf');
  writeFileSync(conf, `${readFileSync(conf, 'utf8')}\n${INCLUDE_LINE}\n`);
  rmSync(l.dataDir, { recursive: true, force: true });
  renameSync(tmp, l.dataDir);
}

function pgCtl(l: LocalPgLayout, bin: string, user: ServerUser, args: string[]) {
  return runAs(user, join(bin, 'pg_ctl'), [...args, '-D', l.dataDir]);
}

/** True when the server of this data dir runs (pg_ctl status: 0 running, 3 not running, 4 no data dir). */
function ownServerRunning(l: LocalPgLayout, bin: string, user: ServerUser): boolean {
  if (dataDirMajor(l) === undefined) return false;
  return pgCtl(l, bin, user, ['status']).status === 0;
}

/** True when the URL accepts a real login and answers `select 1`. */
export async function pgReady(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  client.on('error', () => {});
  try {
    await client.connect();
    const r = await client.query<{ one: number }>('select 1 as one');
    return r.rows[0]?.one === 1;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

/** Creates (or repairs) the role and the database it owns, as the superuser over the unix socket. */
async function ensureRoleAndDatabase(l: LocalPgLayout): Promise<void> {
  const client = new pg.Client({ host: l.socketDir, port: l.port, user: SUPERUSER, database: 'postgres' });
  await client.connect();
  try {
    // Literals are constants of this file; CREATE DATABASE cannot run inside DO, so it is checked separately.
    await client.query(`DO $$ BEGIN
      IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '${PG_USER}') THEN
        CREATE ROLE ${PG_USER} LOGIN PASSWORD '${PG_PASSWORD}';
      ELSE
        ALTER ROLE ${PG_USER} LOGIN PASSWORD '${PG_PASSWORD}';
      END IF;
    END $$`);
    const db = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [PG_DATABASE]);
    if (db.rowCount === 0) await client.query(`CREATE DATABASE ${PG_DATABASE} OWNER ${PG_USER}`);
    else await client.query(`ALTER DATABASE ${PG_DATABASE} OWNER TO ${PG_USER}`);
  } finally {
    await client.end();
  }
}

async function waitReady(l: LocalPgLayout, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await pgReady(l.url)) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`PostgreSQL did not accept ${l.url} within ${timeoutMs / 1000}s; see ${l.logFile}`);
}

function logTail(l: LocalPgLayout): string {
  try {
    return readFileSync(l.logFile, 'utf8').trim().split('\n').slice(-5).join(' | ');
  } catch {
    return `(no log at ${l.logFile})`;
  }
}

/**
 * Starts the local PostgreSQL unless it already runs; resolves with its URL once a real login works.
 * `started: false` means it was already running (this script's server, or another one answering the URL).
 */
export async function pgUp(l = pgLayout(), timeoutMs = 60_000): Promise<{ url: string; started: boolean }> {
  const user = serverUser();
  const bin = findPgBinDir(process.env, dataDirMajor(l));
  if (ownServerRunning(l, bin, user)) {
    await ensureRoleAndDatabase(l);
    await waitReady(l, timeoutMs);
    return { url: l.url, started: false };
  }
  if (await pgReady(l.url)) {
    log(`a PostgreSQL not started by this script already answers ${l.url}; using it`);
    return { url: l.url, started: false };
  }
  if (l.socketDir.length + `/.s.PGSQL.${l.port}`.length > MAX_SOCKET_PATH) {
    throw new Error(`the unix socket path under ${l.socketDir} is too long; set TOPICGATE_CACHE_DIR to a shorter path`);
  }
  mkdirSync(l.cacheDir, { recursive: true });
  initOnce(l, bin, user);
  ensureReachable(l.dataDir, user);
  writeOwned(join(l.dataDir, 'topicgate.conf'), serverConf(l), user);
  writeOwned(join(l.dataDir, 'pg_hba.conf'), PG_HBA, user);
  startAllowed('PostgreSQL');
  log(`starting PostgreSQL (${bin}) on 127.0.0.1:${l.port}, data ${l.dataDir}`);
  const r = pgCtl(l, bin, user, ['start', '-w', '-t', String(Math.ceil(timeoutMs / 1000)), '-l', l.logFile]);
  if (r.status !== 0) throw new Error(`pg_ctl start failed: ${r.out}; log: ${logTail(l)}`);
  await ensureRoleAndDatabase(l);
  await waitReady(l, timeoutMs);
  return { url: l.url, started: true };
}

/** Stops the server of this script's data dir (pg_ctl stop -m fast) and nothing else. */
export async function pgDown(l = pgLayout()): Promise<boolean> {
  if (dataDirMajor(l) === undefined) return false;
  const user = serverUser();
  const bin = findPgBinDir(process.env, dataDirMajor(l));
  if (!ownServerRunning(l, bin, user)) return false;
  const pid = postmasterPid(l);
  const r = pgCtl(l, bin, user, ['stop', '-m', 'fast', '-w', '-t', '60']);
  if (r.status !== 0) throw new Error(`pg_ctl stop failed: ${r.out}`);
  // pg_ctl returns once postmaster.pid is gone; the exited postmaster may linger a moment as a zombie until its
  // parent (init) reaps it. Wait briefly for that, so `pgrep postgres` right after `down` shows nothing of ours.
  const deadline = Date.now() + 10_000;
  while (pid !== undefined && existsSync(`/proc/${pid}`) && Date.now() < deadline) {
    await new Promise((res) => setTimeout(res, 100));
  }
  return true;
}

/** The postmaster's pid: the first line of postmaster.pid. */
function postmasterPid(l: LocalPgLayout): number | undefined {
  try {
    const pid = Number(readFileSync(join(l.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

async function main(cmd: string | undefined): Promise<void> {
  const l = pgLayout();
  switch (cmd) {
    case 'up': {
      const r = await pgUp(l);
      log(r.started ? 'ready' : 'already running');
      process.stdout.write(`${r.url}\n`);
      return;
    }
    case 'down':
      log((await pgDown(l)) ? 'stopped' : 'not running (nothing to stop)');
      return;
    case 'status':
      process.stdout.write((await pgReady(l.url)) ? `running ${l.url}\n` : 'not running\n');
      return;
    default:
      throw new Error('usage: local-postgres.ts up | down | status');
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main(process.argv[2]).catch((err: unknown) => {
    process.stderr.write(`[pg] error: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
