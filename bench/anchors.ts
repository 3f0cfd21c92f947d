/**
 * The anchors a user would pick instead of the gateway, each in a process of its own that reports its CPU and
 * peak RSS: the Trino CLI (`io.trino:trino-cli:476` executable jar, `--output-format CSV` to a file) and the python
 * `trino` client (`fetchmany`). Both are installed on first use, the way the project's scripts fetch Trino: the jar
 * with Maven into the local Trino's cache folder, the python package with pip.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { layout, TRINO_VERSION } from '../scripts/local-trino.js';
import { ROOT } from './gateway.js';

export interface AnchorRun {
  rows: number;
  seconds: number;
  firstSeconds: number;
  cpu: number;
  peakRssBytes: number;
}

const CLI_ARTIFACT = `io.trino:trino-cli:${TRINO_VERSION}:jar:executable`;

/** The CLI jar, fetched with Maven once into `<cache>/trino-cli/`. */
export function ensureTrinoCli(): string {
  const dir = join(layout().cacheDir, 'trino-cli');
  const jar = join(dir, `trino-cli-${TRINO_VERSION}-executable.jar`);
  if (existsSync(jar)) return jar;
  mkdirSync(dir, { recursive: true });
  const r = spawnSync(
    'mvn',
    ['-q', '-B', 'dependency:copy', `-Dartifact=${CLI_ARTIFACT}`, `-DoutputDirectory=${dir}`],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  if (r.error || r.status !== 0)
    throw new Error(`Maven could not fetch ${CLI_ARTIFACT}: ${r.error?.message ?? r.stdout}`);
  return jar;
}

/** The python `trino` package, installed with pip when missing. */
export function ensurePythonTrino(): string {
  const probe = spawnSync('python3', ['-c', 'import trino; print(trino.__version__)'], { encoding: 'utf8' });
  if (probe.status === 0) return probe.stdout.trim();
  const env = { ...process.env, ...(process.getuid?.() === 0 ? { PIP_BREAK_SYSTEM_PACKAGES: '1' } : {}) };
  execFileSync('python3', ['-m', 'pip', 'install', '-q', 'trino'], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  return execFileSync('python3', ['-c', 'import trino; print(trino.__version__)'], { encoding: 'utf8' }).trim();
}

export function javaVersion(): string {
  const r = spawnSync('java', ['-version'], { encoding: 'utf8' });
  return /version "([^"]+)"/.exec(`${r.stderr}`)?.[1] ?? 'unknown';
}

function runJson<T>(cmd: string, args: string[], stdin?: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err = (err + d).slice(-4000)));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`${cmd} ${args[0]} exited ${code}: ${err.trim()}`));
      resolve(JSON.parse(out.trim().split('\n').at(-1)!) as T);
    });
    child.stdin.end(stdin ?? '');
  });
}

/**
 * One query through the python client; `firstSeconds` is until its first fetchmany batch. `encoding`: the
 * spooling encodings it asks for (`none`: the direct protocol); unset, the client's own default.
 */
export async function runPython(trinoUrl: string, user: string, sql: string, encoding?: string): Promise<AnchorRun> {
  const r = await runJson<Omit<AnchorRun, 'peakRssBytes'> & { peakRssKb: number }>(
    'python3',
    [join(ROOT, 'bench', 'py', 'trino_fetch.py'), trinoUrl, user, '10000', ...(encoding ? [encoding] : [])],
    sql,
  );
  return {
    rows: r.rows,
    seconds: r.seconds,
    firstSeconds: r.firstSeconds,
    cpu: r.cpu,
    peakRssBytes: r.peakRssKb * 1024,
  };
}

/**
 * One query through the Trino CLI, CSV to a file (JVM start-up included: that is what running the CLI costs);
 * rows are the file's lines (the payloads hold no line breaks). The file is removed afterwards. `encoding`: the
 * spooling encoding it asks for (`--encoding`), or `none` for the direct protocol.
 */
export async function runCli(
  trinoUrl: string,
  user: string,
  sql: string,
  outDir: string,
  encoding = 'none',
): Promise<AnchorRun> {
  const jar = ensureTrinoCli();
  mkdirSync(outDir, { recursive: true });
  const file = join(outDir, 'trino-cli.csv');
  const args = ['-jar', jar, '--server', trinoUrl, '--user', user, '--source', 'topicgate-bench'];
  // The CLI asks for spooled results by default; the direct protocol is the session's `spooling_enabled=false`.
  args.push(...(encoding === 'none' ? ['--session', 'spooling_enabled=false'] : ['--encoding', encoding]));
  const r = await runJson<{ seconds: number; cpu: number; peakRssKb: number }>('python3', [
    join(ROOT, 'bench', 'py', 'rusage.py'),
    file,
    '--',
    'java',
    ...args,
    '--output-format',
    'CSV',
    '--execute',
    sql,
  ]);
  const rows = countLines(file);
  rmSync(file, { force: true });
  return { rows, seconds: r.seconds, firstSeconds: -1, cpu: r.cpu, peakRssBytes: r.peakRssKb * 1024 };
}

/** Lines of a file, read in chunks (the CLI's CSV of 10^7 rows is over 2 GB). */
function countLines(file: string): number {
  const fd = openSync(file, 'r');
  const buf = Buffer.allocUnsafe(1 << 20);
  let n = 0;
  try {
    for (let got = readSync(fd, buf); got > 0; got = readSync(fd, buf)) {
      for (let i = buf.indexOf(10); i >= 0 && i < got; i = buf.indexOf(10, i + 1)) n++;
    }
  } finally {
    closeSync(fd);
  }
  return n;
}
