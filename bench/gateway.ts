/**
 * The gateway as a separate process, run as `npm start` runs it (dist/server.js, built when stale, with the Node
 * flags of the start script; without the npm wrapper process, so the pid is the server's own), and an HTTP client
 * that reads a response to the end, discarding the bytes but counting rows and checking the format's completeness
 * mark.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { PROJECT_ROOT, startFlags } from '../scripts/start-command.js';
import http from 'node:http';
import { createInterface } from 'node:readline';
import { RecordBatchReader } from 'apache-arrow';

export const ROOT = PROJECT_ROOT;

export interface Gateway {
  pid: number;
  url: string;
  stop(): Promise<void>;
}

/**
 * Starts a gateway; tries once more when the first one dies or hangs during start-up (on this shared machine a
 * start-up under heavy load has been seen to fail once and then work).
 */
export async function startGateway(env: Record<string, string>, execArgv: string[] = []): Promise<Gateway> {
  try {
    return await startGatewayOnce(env, execArgv);
  } catch (err) {
    process.stderr.write(
      `[bench] gateway start-up failed, trying again: ${err instanceof Error ? err.message : String(err)}\n`,
    );
    return startGatewayOnce(env, execArgv);
  }
}

let built = false;

async function startGatewayOnce(env: Record<string, string>, execArgv: string[]): Promise<Gateway> {
  if (!built) execFileSync(process.execPath, ['scripts/build.mjs', '--if-stale'], { cwd: ROOT, stdio: 'inherit' });
  built = true;
  const base: NodeJS.ProcessEnv = {};
  // Only the settings given here: nothing inherited from the caller's TOPICGATE_* environment.
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('TOPICGATE_')) base[k] = v;
  const child = spawn(process.execPath, [...startFlags(), ...execArgv, 'dist/server.js'], {
    cwd: ROOT,
    env: { ...base, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-4000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`gateway did not start within 60s: ${stderr}`));
    }, 60_000);
    // The log keeps flowing (one line per request); reading every line keeps the pipe from filling up.
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (!line.includes('topicgate listening')) return;
      clearTimeout(timer);
      resolve((JSON.parse(line) as { url: string }).url);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`gateway exited (${code}) during start-up: ${stderr.trim()}`));
    });
  });
  return { pid: child.pid!, url, stop: () => stop(child, exited) };
}

async function stop(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

export async function getJson<T>(url: string): Promise<T> {
  const res = await fetch(url);
  const text = await res.text();
  if (!res.ok) throw new Error(`GET ${url}: HTTP ${res.status} ${text.slice(0, 500)}`);
  return JSON.parse(text) as T;
}

export type Format = 'ndjson' | 'arrow' | 'csv';

export interface ReadResult {
  rows: number;
  bytes: number;
  seconds: number;
  /** Seconds until the first body byte (Trino's sort of an ordered read comes before it). */
  firstSeconds: number;
}

const ARROW_EOS = Buffer.from([0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0]);

/** Reads one response to the end; fails unless it is complete and holds `expectRows` rows (when given). */
export function readGateway(url: string, format: Format, expectRows?: number): Promise<ReadResult> {
  const t0 = performance.now();
  return new Promise<ReadResult>((resolve, reject) => {
    const req = http.get(url, { agent: false }, (res) => {
      if (res.statusCode !== 200) {
        let body = '';
        res.setEncoding('utf8').on('data', (d: string) => (body += d));
        res.on('end', () => reject(new Error(`GET ${url}: HTTP ${res.statusCode} ${body.slice(0, 500)}`)));
        return;
      }
      let bytes = 0;
      let firstSeconds = -1;
      let tail = Buffer.alloc(0);
      const keepTail = (chunk: Buffer) => {
        if (firstSeconds < 0) firstSeconds = (performance.now() - t0) / 1000;
        bytes += chunk.length;
        tail = Buffer.concat([tail, chunk.subarray(Math.max(0, chunk.length - 8))]).subarray(-8);
      };
      const finish = (rows: number, complete: boolean) => {
        const seconds = (performance.now() - t0) / 1000;
        if (!complete) return reject(new Error(`${format} response is incomplete (tail ${tail.toString('hex')})`));
        if (expectRows !== undefined && rows !== expectRows)
          return reject(new Error(`${format} response has ${rows} rows, expected ${expectRows}`));
        resolve({ rows, bytes, seconds, firstSeconds });
      };
      if (format === 'arrow') {
        async function* counted(): AsyncGenerator<Uint8Array> {
          for await (const chunk of res as AsyncIterable<Buffer>) {
            keepTail(chunk);
            yield chunk;
          }
        }
        (async () => {
          let rows = 0;
          const reader = await RecordBatchReader.from(counted());
          for await (const batch of reader) rows += batch.numRows;
          finish(rows, tail.equals(ARROW_EOS));
        })().catch(reject);
        return;
      }
      // Text formats: one line per row (payloads are JSON text, so no field holds a raw line break).
      let newlines = 0;
      res.on('data', (chunk: Buffer) => {
        keepTail(chunk);
        for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) newlines++;
      });
      res.on('end', () => {
        const t = tail.toString('latin1');
        // NDJSON: rows, then one empty line. CSV: the header, then rows (a cut body aborts the transfer).
        if (format === 'ndjson') finish(newlines - 1, t.endsWith('}\n\n'));
        else finish(newlines - 1, res.complete);
      });
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}
