/**
 * A second local Trino configured like a production one, for the Trino connection tests: HTTPS with a
 * certificate from a CA made here with openssl, the file password authenticator (bcrypt `$2y$` hashes made with
 * htpasswd, cost 10) beside JWT bearer tokens (an RSA key made here), a shared secret for internal
 * communication, file-based access control with impersonation and per-user table rules, and the memory catalog
 * `vast` with two small topic tables. It reuses the install of scripts/local-trino.ts and listens on 127.0.0.1
 * only, on its own ports (HTTPS 18443 by default), beside the shared local Trino (never touched here).
 *
 *   tsx scripts/secure-trino.ts up | down | status
 *
 * Passwords are random per configuration and live in files under the run folder (never printed).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createPrivateKey, randomBytes, sign } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { HttpTrino } from '../src/trino/http-trino.js';
import { TOPIC_COLUMNS } from './demo-data.js';
import {
  fetchTrino,
  findJdk,
  gcMode,
  jitMode,
  launch,
  layout as localLayout,
  logWritten,
  serverLogs,
} from './local-trino.js';
import { untilScannable } from './trino-scannable.js';
import { jvmConfig, type JvmModes } from './local-trino-config.js';
import { alive, PID_FILE_WAIT_MS, pidWritten, recordedPid, stopProcess } from './pid-file.js';

/** The users of the secure Trino: the gateway, an administrator (loads data, reads system tables), two callers. */
export const SECURE_USERS = ['topicgate', 'admin', 'alice', 'bob'] as const;
export type SecureUser = (typeof SECURE_USERS)[number];
export const SECURE_CATALOG = 'vast';
export const SECURE_SCHEMA = 'topics';

export interface SecureTrinoLayout {
  httpsPort: number;
  /** Internal communication only (discovery); clients use https. */
  httpPort: number;
  url: string;
  installDir: string;
  runDir: string;
  etcDir: string;
  pidFile: string;
  /** The CA that signed the server certificate: TOPICGATE_TRINO_CA_FILE. */
  caFile: string;
  /** A CA that did not sign it (TLS must be refused with it). */
  otherCaFile: string;
  /** One file per user holding its password (TOPICGATE_TRINO_PASSWORD_FILE). */
  passwordFile: (user: SecureUser) => string;
  /** The private key that signs JWTs Trino accepts. */
  jwtKeyFile: string;
  /**
   * TOPICGATE_SECURE_TRINO_JIT: `full` (C1 then C2, the default) or `quick` (C1 only). A Trino that serves only
   * light queries for one test file spends more CPU compiling with C2 than C2's code gives back on two cores:
   * `quick` halved its CPU to get ready (21 s to 11 s) and to load and scan 200,000 events five times (14 s to
   * 7 s); sorting large results for many clients at once is slower with it.
   */
  jit: JvmModes['jit'];
  /** TOPICGATE_SECURE_TRINO_GC: `g1` (the default) or `parallel` (local-trino-config.ts, `JvmModes`). */
  gc: JvmModes['gc'];
}

export function secureLayout(env: NodeJS.ProcessEnv = process.env): SecureTrinoLayout {
  const base = localLayout(env);
  const httpsPort = Number(env.TOPICGATE_SECURE_TRINO_PORT ?? 18443);
  const runDir = join(base.cacheDir, `secure-run-${httpsPort}`);
  return {
    httpsPort,
    httpPort: httpsPort + 1,
    url: `https://127.0.0.1:${httpsPort}`,
    installDir: base.installDir,
    runDir,
    etcDir: join(runDir, 'etc'),
    pidFile: join(runDir, 'trino.pid'),
    caFile: join(runDir, 'tls', 'ca.pem'),
    otherCaFile: join(runDir, 'tls', 'other-ca.pem'),
    passwordFile: (user) => join(runDir, 'secrets', `${user}.password`),
    jwtKeyFile: join(runDir, 'secrets', 'jwt.key'),
    jit: jitMode('TOPICGATE_SECURE_TRINO_JIT', env.TOPICGATE_SECURE_TRINO_JIT),
    gc: gcMode('TOPICGATE_SECURE_TRINO_GC', env.TOPICGATE_SECURE_TRINO_GC),
  };
}

function log(msg: string): void {
  process.stderr.write(`[secure-trino] ${msg}\n`);
}

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

/** A CA, a server certificate for 127.0.0.1 and localhost signed by it (key and chain in one PEM), another CA. */
function makeCertificates(dir: string): void {
  mkdirSync(dir, { recursive: true });
  const ca = ['-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign'];
  for (const name of ['ca', 'other-ca']) {
    const subject = ['-subj', `/CN=topicgate ${name}`, ...ca];
    openssl(
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        `${name}.key`,
        '-out',
        `${name}.pem`,
        '-days',
        '30',
        ...subject,
      ],
      dir,
    );
  }
  writeFileSync(
    join(dir, 'server.ext'),
    'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n',
  );
  openssl(
    ['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=127.0.0.1'],
    dir,
  );
  openssl(
    [
      'x509',
      '-req',
      '-in',
      'server.csr',
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      'server.crt',
    ].concat(['-days', '30', '-extfile', 'server.ext']),
    dir,
  );
  writeFileSync(
    join(dir, 'server.pem'),
    readFileSync(join(dir, 'server.key'), 'utf8') + readFileSync(join(dir, 'server.crt'), 'utf8'),
  );
}

/** htpasswd from Debian's apache2-utils: installed through apt when missing (as .ci/run installs its packages). */
function htpasswd(): string {
  const found = spawnSync('sh', ['-c', 'command -v htpasswd'], { encoding: 'utf8' }).stdout.trim();
  if (found) return found;
  if (process.getuid?.() !== 0) {
    throw new Error('htpasswd is missing: install Debian package apache2-utils (bcrypt hashes for Trino)');
  }
  log('installing apache2-utils (htpasswd) with apt');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const r = spawnSync('apt-get', ['install', '-y', '-q', '--no-install-recommends', 'apache2-utils'], { env });
  if (r.status !== 0) {
    spawnSync('apt-get', ['update', '-q'], { env });
    execFileSync('apt-get', ['install', '-y', '-q', '--no-install-recommends', 'apache2-utils'], { env });
  }
  return 'htpasswd';
}

/** `user:$2y$10$...`: bcrypt at cost 10, the password given on stdin (never on a command line). */
function bcryptLine(bin: string, user: string, password: string): string {
  return execFileSync(bin, ['-niB', '-C', '10', user], { input: `${password}\n`, encoding: 'utf8' }).trim();
}

/**
 * Who may do what (Trino's file-based access control): the gateway reads every topic (and Trino's list of queries)
 * and may act as alice or bob; alice may read `orders` only, bob nothing; admin owns everything (loads the topics,
 * reads system tables).
 */
export const ACCESS_RULES = {
  catalogs: [{ user: 'admin|topicgate', allow: 'all' }, { allow: 'read-only' }],
  schemas: [{ user: 'admin', owner: true }, { owner: false }],
  tables: [
    { user: 'admin', privileges: ['SELECT', 'INSERT', 'DELETE', 'UPDATE', 'OWNERSHIP'] },
    { user: 'topicgate', catalog: SECURE_CATALOG, privileges: ['SELECT'] },
    // Loads: the gateway finds the statements of earlier runs still going on (src/loads/earlier-statements.ts).
    { user: 'topicgate', catalog: 'system', schema: 'runtime', table: 'queries', privileges: ['SELECT'] },
    { user: 'alice', catalog: SECURE_CATALOG, schema: SECURE_SCHEMA, table: 'orders', privileges: ['SELECT'] },
  ],
  impersonation: [{ original_user: 'topicgate', new_user: 'alice|bob', allow: true }],
};

function writeSecureConfig(l: SecureTrinoLayout): void {
  rmSync(l.runDir, { recursive: true, force: true });
  const secrets = join(l.runDir, 'secrets');
  mkdirSync(join(l.etcDir, 'catalog'), { recursive: true, mode: 0o700 });
  mkdirSync(secrets, { recursive: true, mode: 0o700 });
  mkdirSync(join(l.runDir, 'data'), { recursive: true });
  makeCertificates(join(l.runDir, 'tls'));
  const bin = htpasswd();
  const lines: string[] = [];
  for (const user of SECURE_USERS) {
    const password = randomBytes(18).toString('base64url');
    writeFileSync(l.passwordFile(user), `${password}\n`, { mode: 0o600 });
    lines.push(bcryptLine(bin, user, password));
  }
  writeFileSync(join(secrets, 'password.db'), `${lines.join('\n')}\n`, { mode: 0o600 });
  openssl(['genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048', '-out', l.jwtKeyFile], secrets);
  openssl(['pkey', '-in', l.jwtKeyFile, '-pubout', '-out', 'jwt.pub'], secrets);
  const heap = process.env.TOPICGATE_SECURE_TRINO_HEAP ?? '2G';
  writeFileSync(
    join(l.etcDir, 'node.properties'),
    [
      'node.environment=topicgate_secure',
      `node.id=topicgate-secure-${l.httpsPort}`,
      `node.data-dir=${join(l.runDir, 'data')}`,
      'node.internal-address=127.0.0.1',
      'node.bind-ip=127.0.0.1',
    ].join('\n') + '\n',
  );
  writeFileSync(join(l.etcDir, 'jvm.config'), jvmConfig(heap, l));
  writeFileSync(
    join(l.etcDir, 'config.properties'),
    [
      'coordinator=true',
      'node-scheduler.include-coordinator=true',
      `http-server.http.port=${l.httpPort}`,
      'http-server.https.enabled=true',
      `http-server.https.port=${l.httpsPort}`,
      `http-server.https.keystore.path=${join(l.runDir, 'tls', 'server.pem')}`,
      'http-server.authentication.type=PASSWORD,JWT',
      `http-server.authentication.jwt.key-file=${join(secrets, 'jwt.pub')}`,
      `internal-communication.shared-secret=${randomBytes(32).toString('base64url')}`,
      `discovery.uri=http://127.0.0.1:${l.httpPort}`,
      'query.max-memory=1GB',
      'query.max-memory-per-node=768MB',
      'task.concurrency=2',
      // The tests read system.runtime.queries for the source and cancelled queries.
      'query.min-expire-age=10m',
    ].join('\n') + '\n',
  );
  writeFileSync(join(l.etcDir, 'log.properties'), 'io.trino=WARN\n');
  writeFileSync(
    join(l.etcDir, 'password-authenticator.properties'),
    `password-authenticator.name=file\nfile.password-file=${join(secrets, 'password.db')}\n`,
  );
  writeFileSync(join(l.runDir, 'rules.json'), JSON.stringify(ACCESS_RULES, null, 2));
  writeFileSync(
    join(l.etcDir, 'access-control.properties'),
    `access-control.name=file\nsecurity.config-file=${join(l.runDir, 'rules.json')}\n`,
  );
  writeFileSync(
    join(l.etcDir, 'catalog', `${SECURE_CATALOG}.properties`),
    'connector.name=memory\nmemory.max-data-per-node=512MB\n',
  );
}

/** The port's connection to the secure Trino as one of its users (password authentication). */
export function secureClient(l: SecureTrinoLayout, user: SecureUser = 'admin'): HttpTrino {
  const password = readFileSync(l.passwordFile(user), 'utf8').trim();
  return new HttpTrino({ server: l.url, user, password, ca: readFileSync(l.caFile) });
}

/** A gateway's settings for the secure Trino of `l`: as the user `topicgate`, over HTTPS with its CA, on its topics. */
export function secureGatewayEnv(l: SecureTrinoLayout): Record<string, string> {
  return {
    TOPICGATE_TRINO_URL: l.url,
    TOPICGATE_TRINO_CA_FILE: l.caFile,
    TOPICGATE_TRINO_USER: 'topicgate',
    TOPICGATE_TRINO_PASSWORD_FILE: l.passwordFile('topicgate'),
    TOPICGATE_CATALOG: SECURE_CATALOG,
    TOPICGATE_SCHEMAS: SECURE_SCHEMA,
  };
}

/** A JWT (RS256) that the secure Trino accepts, for `sub`; `key` another PEM key makes one it refuses. */
export function secureJwt(l: SecureTrinoLayout, sub: string, o: { ttlS?: number; keyPem?: string } = {}): string {
  const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  const body = `${b64({ alg: 'RS256', typ: 'JWT' })}.${b64({ sub, iat: now, exp: now + (o.ttlS ?? 3600) })}`;
  const key = createPrivateKey(o.keyPem ?? readFileSync(l.jwtKeyFile));
  return `${body}.${sign('sha256', Buffer.from(body), key).toString('base64url')}`;
}

async function ready(l: SecureTrinoLayout): Promise<boolean> {
  if (!existsSync(l.caFile)) return false;
  try {
    const info = await new HttpTrino({ server: l.url, user: 'admin', ca: readFileSync(l.caFile) }).info();
    return info.starting === false;
  } catch {
    return false;
  }
}

const readPid = (l: SecureTrinoLayout) => recordedPid(l.pidFile, l.etcDir);

/** The secure Trino's pid while it runs (the fault test kills it with SIGKILL). */
export function securePid(l: SecureTrinoLayout): number | undefined {
  return readPid(l);
}

/**
 * Starts the secure Trino (a fresh configuration unless `keepConfig`: a restart keeps certificates and
 * passwords) and resolves when it answers over https and schedules scans (trino-scannable.ts); `started` is false
 * when it already ran.
 */
export async function secureUp(
  l = secureLayout(),
  o: { keepConfig?: boolean; timeoutMs?: number } = {},
): Promise<{ url: string; started: boolean }> {
  if (readPid(l) !== undefined && (await ready(l))) return { url: l.url, started: false };
  fetchTrino(localLayout());
  const jdk = findJdk();
  if (!o.keepConfig || !existsSync(l.caFile)) writeSecureConfig(l);
  const deadline = Date.now() + (o.timeoutMs ?? 240_000);
  for (let attempt = 1; ; attempt++) {
    log(`starting on ${l.url}`);
    const before = serverLogs(l.runDir);
    launch(l, jdk);
    if (await untilReady(l, deadline)) {
      await untilScannable(secureClient(l, 'admin'), SECURE_CATALOG).catch(async (err: unknown) => {
        await secureDown(l);
        throw err;
      });
      return { url: l.url, started: true };
    }
    // Seen once under load: the server gone before it wrote a line of its log. A server that fails on its
    // configuration logs why, and is not started again.
    const logged = logWritten(before, l.runDir);
    if (logged || attempt >= 3) {
      const why = logged ? `see ${l.runDir}/server.log` : `it wrote no server log, ${attempt} times`;
      throw new Error(`the secure Trino exited; ${why}`);
    }
    log(`the secure Trino exited before it wrote its log (attempt ${attempt}); starting it again`);
  }
}

/** Waits until the secure Trino answers (true) or its process is gone (false); stops it at the deadline. */
async function untilReady(l: SecureTrinoLayout, deadline: number): Promise<boolean> {
  // The pid written is this start's (no check of its command line, which changes as the launcher execs); it may
  // come a moment after the launcher has returned (pid-file.ts).
  const pid = await pidWritten(l.pidFile, PID_FILE_WAIT_MS);
  if (pid === undefined) return false;
  while (!(await ready(l))) {
    if (!alive(pid)) return false;
    if (Date.now() > deadline) {
      await secureDown(l);
      throw new Error(`the secure Trino did not become ready; see ${l.runDir}/server.log`);
    }
    await new Promise((res) => setTimeout(res, 500));
  }
  return true;
}

/** Stops the secure Trino by its recorded pid (SIGTERM, SIGKILL after 20 s); never any other process. */
export async function secureDown(l = secureLayout()): Promise<boolean> {
  const pid = readPid(l);
  if (pid === undefined || !alive(pid)) return false;
  await stopProcess(pid, 20_000);
  return true;
}

/**
 * Two topic tables in the VAST topic layout, as admin: `orders` (small) and `clicks` (`clicks` rows, one every
 * 10 ms from 2026-11-01, long enough for responses that are still streaming when Trino dies); each INSERT's row
 * count is checked.
 */
export async function loadSecureTopics(l = secureLayout(), sizes = { orders: 500, clicks: 200_000 }): Promise<void> {
  const admin = secureClient(l, 'admin');
  const schema = `${SECURE_CATALOG}.${SECURE_SCHEMA}`;
  await admin.all(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
  for (const [table, n] of Object.entries(sizes)) {
    await admin.all(`DROP TABLE IF EXISTS ${schema}.${table}`);
    await admin.all(`CREATE TABLE ${schema}.${table} (${TOPIC_COLUMNS})`);
    // sequence() makes at most 10000 values: a cross join of two makes up to 100 million.
    const inserted = await admin.all(
      `INSERT INTO ${schema}.${table} SELECT to_utf8('${table}-' || CAST(i AS varchar)), ` +
        `to_utf8('{"n":' || CAST(i AS varchar) || ',"kind":"${table}","pad":"${'x'.repeat(40)}"}'), ` +
        `date_add('millisecond', i * 10, TIMESTAMP '2026-11-01 00:00:00.000'), ` +
        `date_add('millisecond', i * 10, TIMESTAMP '2026-11-01 00:00:00.000'), ` +
        `CAST(ARRAY[] AS array(row(key varchar, value varbinary))) ` +
        `FROM (SELECT a * 1000 + b AS i FROM UNNEST(sequence(0, ${Math.ceil(n / 1000) - 1})) AS x(a) ` +
        `CROSS JOIN UNNEST(sequence(0, 999)) AS y(b)) WHERE i < ${n}`,
    );
    const count = Number(inserted.rows[0]?.[0]);
    if (count !== n) throw new Error(`the secure Trino's ${table} took ${count} rows, not ${n}`);
  }
}

async function main(cmd: string | undefined): Promise<void> {
  const l = secureLayout();
  switch (cmd) {
    case 'up': {
      const r = await secureUp(l);
      if (r.started) await loadSecureTopics(l);
      log(r.started ? 'ready, topics loaded' : 'already running');
      process.stdout.write(`${r.url}\nCA: ${l.caFile}\npassword file of topicgate: ${l.passwordFile('topicgate')}\n`);
      return;
    }
    case 'down':
      log((await secureDown(l)) ? 'stopped' : 'not running (nothing to stop)');
      return;
    case 'status':
      process.stdout.write((await ready(l)) ? `running ${l.url}\n` : 'not running\n');
      return;
    default:
      throw new Error('usage: secure-trino.ts up | down | status');
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main(process.argv[2]).catch((err: unknown) => {
    process.stderr.write(`[secure-trino] error: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
