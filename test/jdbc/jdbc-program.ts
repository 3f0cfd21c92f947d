/**
 * The Flight SQL JDBC driver test program (test/jdbc/: FlightJdbc.java and its pom.xml): built once with the ordinary
 * Maven client into the project's cache dir (as scripts/local-trino.ts caches the Trino), keyed by a hash of its
 * sources so an edited program is built again; every later run is offline. `node --import tsx
 * test/jdbc/jdbc-program.ts` builds it (scripts/test-deps.sh does, so a test run needs no network).
 */
import { execFile, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);
const HERE = dirname(fileURLToPath(import.meta.url));

/**
 * The JVM flags the driver needs on Java 17 and later: Arrow's memory module reads direct buffers' addresses through
 * java.nio internals (its documentation's `--add-opens`), and the driver renders timestamps in the JVM's zone.
 */
export const JDBC_JVM_FLAGS = ['--add-opens=java.base/java.nio=ALL-UNNAMED', '-Duser.timezone=UTC'];

function sources(dir = HERE): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => {
      const path = join(dir, e.name);
      if (e.isDirectory()) return e.name === 'target' ? [] : sources(path);
      return e.name === 'pom.xml' || e.name.endsWith('.java') ? [path] : [];
    })
    .sort();
}

/** Where the built program lives: the cache dir of the local Trino, one folder per version of the sources. */
export function jdbcJarPath(env: NodeJS.ProcessEnv = process.env): string {
  const hash = createHash('sha256');
  for (const file of sources()) hash.update(relative(HERE, file)).update('\0').update(readFileSync(file));
  const cacheDir = env.TOPICGATE_CACHE_DIR ?? join(env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'topicgate');
  return join(cacheDir, `flight-jdbc-${hash.digest('hex').slice(0, 12)}`, 'topicgate-jdbc.jar');
}

/** Builds the program when its jar is missing (Maven fetches the driver once); returns the jar's path. */
export function ensureJdbcJar(env: NodeJS.ProcessEnv = process.env): string {
  const jar = jdbcJarPath(env);
  if (existsSync(jar)) return jar;
  const build = `${dirname(jar)}.build-${process.pid}`;
  rmSync(build, { recursive: true, force: true });
  mkdirSync(build, { recursive: true });
  cpSync(join(HERE, 'pom.xml'), join(build, 'pom.xml'));
  cpSync(join(HERE, 'src'), join(build, 'src'), { recursive: true });
  try {
    const r = spawnSync('mvn', ['-q', '-B', 'package'], { cwd: build, encoding: 'utf8' });
    if (r.error) throw new Error(`cannot run mvn (${r.error.message}); install Maven to build test/jdbc`);
    if (r.status !== 0) throw new Error(`mvn package of test/jdbc failed:\n${r.stdout}${r.stderr}`);
    // Renamed into place whole, so a concurrent or cut build never leaves a half-written program to be run.
    rmSync(dirname(jar), { recursive: true, force: true });
    renameSync(join(build, 'target'), dirname(jar));
  } finally {
    rmSync(build, { recursive: true, force: true });
  }
  return jar;
}

/** One command's answer: its columns and rows, or the driver's error. */
export interface JdbcResult {
  command: string;
  columns?: { name: string; type: string }[];
  rows?: Record<string, unknown>[];
  /** `status`: the Flight (gRPC) status code, e.g. INVALID_ARGUMENT; `command` is `connect` when the connection failed. */
  error?: { sqlState?: string; status: string; message: string };
}

/** A command of FlightJdbc.java: `['query', sql]`, `['prepared', sql]`, `['tables', schemaPattern]`, ... */
export type JdbcCommand = ['tables' | 'columns' | 'query' | 'prepared', string];

/** Runs the program against `url` (a `jdbc:arrow-flight-sql://` URL) and parses its JSON lines. */
export async function runJdbc(
  url: string,
  commands: JdbcCommand[],
  login?: { user: string; password: string },
): Promise<JdbcResult[]> {
  const args = [...JDBC_JVM_FLAGS, '-jar', ensureJdbcJar(), url];
  if (login) args.push('--user', login.user, '--password', login.password);
  for (const [command, arg] of commands) args.push(`--${command}`, arg);
  // Asynchronously: the gateway under test may share this process's event loop. A refused connection exits 3 after
  // printing its error line, which is the answer then.
  const { stdout } = await execFileAsync('java', args, { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 }).catch(
    (err: { code?: number; stdout?: string }) => {
      if (err.code === 3 && err.stdout) return { stdout: err.stdout };
      throw err;
    },
  );
  return stdout
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as JdbcResult);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  console.log(ensureJdbcJar());
}
