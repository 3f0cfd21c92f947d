/**
 * A real HTTP cache in front of a gateway, for the caching tests (test/integration/http-cache.test.ts): Debian's
 * nginx (test-deps.sh installs it) with `proxy_cache`, its configuration generated into a temporary folder that
 * holds everything it writes (cache, temp files, logs, pid), started in the foreground and stopped by its pid.
 * `tsx scripts/http-cache.ts <gateway host:port>` runs one until Ctrl-C and prints its URL.
 *
 * How it caches, as docs/deployment.md "Caching settled windows" advises for any cache put in front: responses marked
 * `immutable` (settled windows) only, never `no-store` ones; one copy per caller, by the `Vary: Accept,
 * Authorization, X-API-Key` the gateway sends (nginx keys variants by a hash of those request headers, so no
 * credential is written into the cache files). nginx declines `private` responses on its own; this proxy is told
 * to store them (`proxy_ignore_headers Cache-Control`) because `Vary` keeps each caller's copy apart.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { freePort } from './free-port.js';
import { stopProcess } from './pid-file.js';
import { systemBinary } from './system-binary.js';

export interface HttpCacheSpec {
  /** The folder nginx writes everything into. */
  dir: string;
  port: number;
  /** The gateway: host:port. */
  upstream: string;
  /** How long a stored response is served (the gateway's max-age is not read: Cache-Control is ignored). */
  validFor?: string;
  /** nginx runs its workers as root when started by root (the temporary folder is root's alone). */
  asRoot?: boolean;
}

/** The nginx configuration text. */
export function nginxCacheConfig(s: HttpCacheSpec): string {
  const d = s.dir;
  return [
    '# Written by scripts/http-cache.ts; the folder is removed when the cache stops.',
    ...(s.asRoot ? ['user root root;'] : []),
    'worker_processes 1;',
    'daemon off;',
    `pid ${d}/nginx.pid;`,
    `error_log ${d}/error.log warn;`,
    'events { worker_connections 512; }',
    'http {',
    "  log_format cache '$request_uri $status $upstream_cache_status';",
    `  access_log ${d}/access.log cache;`,
    ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((t) => `  ${t}_temp_path ${d}/tmp/${t};`),
    `  proxy_cache_path ${d}/cache levels=1:2 keys_zone=topicgate:4m max_size=256m inactive=1h use_temp_path=off;`,
    '  # Stored: a settled window (immutable). Anything else (no-store) passes through and is never stored.',
    '  map $upstream_http_cache_control $topicgate_skip {',
    '    "~*(^|[ ,])immutable([ ,]|$)" 0;',
    '    default 1;',
    '  }',
    '  server {',
    `    listen 127.0.0.1:${s.port};`,
    '    location / {',
    `      proxy_pass http://${s.upstream};`,
    '      proxy_http_version 1.1;',
    '      proxy_set_header Connection "";',
    '      proxy_cache topicgate;',
    '      proxy_cache_key $scheme$proxy_host$request_uri;',
    '      proxy_ignore_headers Cache-Control Expires;',
    '      proxy_no_cache $topicgate_skip;',
    `      proxy_cache_valid 200 ${s.validFor ?? '10m'};`,
    '      proxy_cache_revalidate on;',
    '      add_header X-Cache-Status $upstream_cache_status always;',
    '    }',
    '  }',
    '}',
  ].join('\n');
}

/** The nginx binary: TOPICGATE_NGINX, the PATH, or where Debian's package puts it. */
export function findNginx(env: NodeJS.ProcessEnv = process.env): string {
  return systemBinary('nginx', 'TOPICGATE_NGINX', env.TOPICGATE_NGINX);
}

async function listening(port: number, deadline: number): Promise<void> {
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = createConnection({ port, host: '127.0.0.1' }, () => {
        s.end();
        resolve(true);
      });
      s.once('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`nginx did not listen on 127.0.0.1:${port}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export interface HttpCache {
  url: string;
  dir: string;
  stop(): Promise<void>;
}

/** Starts nginx caching in front of `upstream` (host:port); `stop()` ends it and removes its folder. */
export async function startHttpCache(upstream: string, validFor?: string): Promise<HttpCache> {
  const bin = findNginx();
  const dir = mkdtempSync(join(tmpdir(), 'topicgate-http-cache-'));
  for (const t of ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'])
    mkdirSync(join(dir, 'tmp', t), { recursive: true });
  const port = await freePort();
  const conf = join(dir, 'nginx.conf');
  writeFileSync(conf, nginxCacheConfig({ dir, port, upstream, validFor, asRoot: process.getuid?.() === 0 }));
  // -e: the error log before the configuration is read (Debian's default is under /var/log).
  const args = ['-e', join(dir, 'error.log'), '-p', dir, '-c', conf];
  const check = spawnSync(bin, ['-t', '-q', ...args], { encoding: 'utf8' });
  if (check.status !== 0) throw new Error(`nginx refuses ${conf}: ${`${check.stdout}${check.stderr}`.trim()}`);
  const child = spawn(bin, args, { stdio: 'ignore' });
  const pid = child.pid;
  if (pid === undefined) throw new Error('nginx did not start');
  const stop = async () => {
    await stopProcess(pid, 5_000);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await listening(port, Date.now() + 10_000);
  } catch (err) {
    await stop();
    throw err;
  }
  return { url: `http://127.0.0.1:${port}`, dir, stop };
}

async function main(upstream: string | undefined): Promise<void> {
  if (!upstream) throw new Error('usage: tsx scripts/http-cache.ts <gateway host:port>');
  const cache = await startHttpCache(upstream);
  process.stdout.write(`${cache.url}\n`);
  process.once('SIGINT', () => void cache.stop().then(() => process.exit(0)));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main(process.argv[2]).catch((err: unknown) => {
    process.stderr.write(`[http-cache] error: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
