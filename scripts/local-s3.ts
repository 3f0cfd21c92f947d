/**
 * The S3-compatible storage the local Trino spools results to: moto's server mode (PyPI `moto[server]`), one
 * in-memory process per local Trino, started before it and stopped after it by the pid recorded here. Trino 476's
 * filesystem spooling manager writes only to S3, GCS or Azure storage (its native local file system is not among
 * them), and on a VAST cluster the spool is a bucket on VAST's own S3, so S3 is the faithful stand-in.
 */
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { alive, recordedPid, stopProcess } from './pid-file.js';
import { startAllowed } from './clean-stop.js';

export const SPOOL_BUCKET = 'spooling';
/** The warehouse of the local lake (local-lake.ts), on the same server. */
export const LAKE_BUCKET = 'lake';
const BUCKETS = [SPOOL_BUCKET, LAKE_BUCKET];

export interface LocalS3Layout {
  port: number;
  url: string;
  pidFile: string;
  logFile: string;
}

/** Next to a local Trino on port P: port P + 9 unless TOPICGATE_LOCAL_S3_PORT says otherwise. */
export function s3Layout(runDir: string, trinoPort: number, env: NodeJS.ProcessEnv = process.env): LocalS3Layout {
  const port = Number(env.TOPICGATE_LOCAL_S3_PORT ?? trinoPort + 9);
  return { port, url: `http://127.0.0.1:${port}`, pidFile: join(runDir, 's3.pid'), logFile: join(runDir, 's3.log') };
}

/** Whether moto's server can run here (scripts/test-deps.sh installs it for the tests). */
export function motoAvailable(): boolean {
  return spawnSync('python3', ['-c', 'import moto.server, flask, flask_cors'], { stdio: 'ignore' }).status === 0;
}

async function bucketReady(l: LocalS3Layout, bucket: string): Promise<boolean> {
  try {
    const res = await fetch(`${l.url}/${bucket}`, { signal: AbortSignal.timeout(2000) });
    return res.ok;
  } catch {
    return false;
  }
}

const bucketsReady = async (l: LocalS3Layout) =>
  (await Promise.all(BUCKETS.map((b) => bucketReady(l, b)))).every(Boolean);

/** The pid of this layout's S3 server, as its pid file records it (and only while that process is moto's). */
export const s3ServerPid = (l: LocalS3Layout) => recordedPid(l.pidFile, 'moto.server');

/**
 * Starts the server (unless it runs) and creates the spool's and the lake's buckets; resolves when they answer.
 * `started`: the server was started here, so it holds no object yet.
 */
export async function s3Up(l: LocalS3Layout, timeoutMs = 60_000): Promise<{ started: boolean }> {
  if (await bucketsReady(l)) return { started: false };
  let started = false;
  let pid = s3ServerPid(l);
  if (pid === undefined || !alive(pid)) {
    startAllowed('the local S3 server');
    mkdirSync(join(l.pidFile, '..'), { recursive: true });
    const out = openSync(l.logFile, 'a');
    const child = spawn('python3', ['-m', 'moto.server', '-H', '127.0.0.1', '-p', String(l.port)], {
      detached: true,
      stdio: ['ignore', out, out],
    });
    closeSync(out);
    child.unref();
    pid = child.pid!;
    writeFileSync(l.pidFile, `${pid}\n`);
    started = true;
  }
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!alive(pid)) throw new Error(`the local S3 server exited during start-up; see ${l.logFile}`);
    const made = await Promise.all(
      BUCKETS.map((b) =>
        fetch(`${l.url}/${b}`, { method: 'PUT', signal: AbortSignal.timeout(2000) }).then(
          (r) => r.ok,
          () => false,
        ),
      ),
    );
    if (made.every(Boolean) && (await bucketsReady(l))) return { started };
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`the local S3 server did not answer within ${timeoutMs / 1000}s; see ${l.logFile}`);
}

/** Stops the server this script started (by its recorded pid) and nothing else. */
export async function s3Down(l: LocalS3Layout): Promise<boolean> {
  const pid = s3ServerPid(l);
  rmSync(l.pidFile, { force: true });
  if (pid === undefined || !alive(pid)) return false;
  await stopProcess(pid, 10_000);
  return true;
}
