/** The raw trino-client in its own process (bench/raw-client.ts): one IPC message per query. */
import { fork } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from './gateway.js';

export interface RawClient {
  readonly pid: number;
  readonly ready: Promise<void>;
  run(sql: string, user: string): Promise<{ rows: number; seconds: number; firstSeconds: number }>;
  stop(): Promise<void>;
}

export function forkRaw(trinoUrl: string): RawClient {
  const child = fork(join(ROOT, 'bench', 'raw-client.ts'), [trinoUrl], {
    cwd: ROOT,
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ready = new Promise<void>((resolve, reject) => {
    child.once('spawn', () => resolve());
    child.once('error', reject);
  });
  return {
    get pid() {
      return child.pid!;
    },
    ready,
    run(sql, user) {
      return new Promise((resolve, reject) => {
        const onExit = (code: number | null) => reject(new Error(`raw client exited (${code})`));
        child.once('exit', onExit);
        child.once('message', (m: { rows: number; seconds: number; firstSeconds: number } | { error: string }) => {
          child.off('exit', onExit);
          if ('error' in m) reject(new Error(`raw client: ${m.error}`));
          else resolve(m);
        });
        child.send({ sql, user });
      });
    },
    async stop() {
      if (child.connected) child.disconnect();
      await exited;
    },
  };
}
