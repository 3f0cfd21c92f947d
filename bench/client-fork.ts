/**
 * A measured client in a process of its own (bench/raw-client.ts, bench/ceiling-client.ts, bench/session-client.ts),
 * so its CPU and peak RSS are its own: one IPC message per run (`{sql, user}` for a query), answered with its result
 * (`{rows, seconds, firstSeconds}`) or `{error}`.
 */
import { fork } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from './gateway.js';

export interface ClientRun {
  rows: number;
  seconds: number;
  firstSeconds: number;
}

export interface ForkedClient {
  readonly pid: number;
  readonly ready: Promise<void>;
  run(sql: string, user: string): Promise<ClientRun>;
  /** One message, one answer: what `run` sends for a query, or another client's message. */
  call<T>(message: object): Promise<T>;
  stop(): Promise<void>;
}

/** Forks `bench/<script>` with `args` (under tsx). */
export function forkClient(script: string, args: string[]): ForkedClient {
  const child = fork(join(ROOT, 'bench', script), args, {
    cwd: ROOT,
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ready = new Promise<void>((resolve, reject) => {
    child.once('spawn', () => resolve());
    child.once('error', reject);
  });
  const call = <T>(message: object) =>
    new Promise<T>((resolve, reject) => {
      const onExit = (code: number | null) => reject(new Error(`${script} exited (${code})`));
      child.once('exit', onExit);
      child.once('message', (m: T | { error: string }) => {
        child.off('exit', onExit);
        if (typeof m === 'object' && m !== null && 'error' in m) reject(new Error(`${script}: ${m.error}`));
        else resolve(m as T);
      });
      child.send(message);
    });
  return {
    get pid() {
      return child.pid!;
    },
    ready,
    call,
    run: (sql, user) => call<ClientRun>({ sql, user }),
    async stop() {
      if (child.connected) child.disconnect();
      await exited;
    },
  };
}
