/** The gateway as a child process (`npm start`'s command), for tests that kill it with SIGKILL and start it again. */
import { spawn, type ChildProcess } from 'node:child_process';
import { serverCommand } from './helpers.js';

export class GatewayProcess {
  private proc: ChildProcess | undefined;
  url = '';
  restarts = 0;
  /** What it wrote on stdout and stderr since it last started (its log lines). */
  output = '';
  constructor(private readonly env: Record<string, string>) {}

  async start(): Promise<void> {
    const server = serverCommand();
    const proc = spawn(server.command, server.args, {
      cwd: server.cwd,
      env: { ...process.env, ...this.env, TOPICGATE_PORT: '0', TOPICGATE_LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.proc = proc;
    this.output = '';
    this.url = await new Promise<string>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`gateway did not start: ${out}`)), 60_000);
      proc.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /"url":"(http:[^"]+)"/.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      });
      proc.stderr!.on('data', (d: Buffer) => (out += d.toString()));
      proc.stdout!.on('data', (d: Buffer) => (this.output += d.toString()));
      proc.stderr!.on('data', (d: Buffer) => (this.output += d.toString()));
      proc.on('exit', (code) => reject(new Error(`gateway exited ${code}: ${out}`)));
    });
    proc.stdout!.resume();
  }

  /** Sends `signal` (SIGHUP: a reload of the access blocks). */
  signal(signal: NodeJS.Signals): void {
    this.proc?.kill(signal);
  }

  /** SIGKILL: no graceful shutdown, whatever it was doing is cut. */
  async kill(): Promise<void> {
    const p = this.proc;
    if (!p || p.exitCode !== null || p.signalCode !== null) return;
    const exited = new Promise((r) => p.once('exit', r));
    p.kill('SIGKILL');
    await exited;
  }

  async restart(): Promise<void> {
    await this.kill();
    await this.start();
    this.restarts++;
  }
}
