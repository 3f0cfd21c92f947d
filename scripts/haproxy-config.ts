/**
 * The HAProxy configuration scripts/cluster.ts runs the balancer with (Debian's haproxy package; test-deps.sh
 * installs it): round robin over the gateway instances, each checked on its /readyz, and only connection failures
 * retried (the request never reached a gateway then), so a POST is never sent twice.
 */
import { spawnSync } from 'node:child_process';
import { systemBinary } from './system-binary.js';

export interface BalancerSpec {
  port: number;
  /** The gateway instances: host:port each. */
  servers: readonly string[];
}

/**
 * The configuration text. Time-outs: a read streams for as long as its query may run (the gateway's own
 * TOPICGATE_CONNECTION_TIMEOUT, 10 minutes by default, closes idle connections first); checks every second, a
 * server out after two failed checks and back after one good one. `retry-on conn-failure` with `option
 * redispatch 1`: a request whose connection to an instance failed (refused: the instance is gone) goes to another
 * instance at once, before the checks have marked it down; once a connection is established nothing is retried.
 * Every response names the instance that served it (`X-Topicgate-Instance: gateway1`), for whoever debugs or tests.
 */
export function haproxyConfig(s: BalancerSpec): string {
  return (
    [
      '# Written by scripts/cluster.ts on every start; edits are lost.',
      'global',
      '  maxconn 4096',
      '',
      'defaults',
      '  mode http',
      '  timeout connect 2s',
      '  timeout client 10m',
      '  timeout server 10m',
      '  timeout http-request 30s',
      '  timeout http-keep-alive 60s',
      '  timeout check 2s',
      '  retries 2',
      '  retry-on conn-failure',
      '  option redispatch 1',
      '  option forwardfor',
      '',
      'frontend topicgate',
      `  bind 127.0.0.1:${s.port}`,
      '  default_backend gateways',
      '',
      'backend gateways',
      '  balance roundrobin',
      '  option httpchk GET /readyz',
      '  http-check expect status 200',
      '  default-server check inter 1s fall 2 rise 1',
      '  http-response set-header X-Topicgate-Instance %[srv_name]',
      ...s.servers.map((addr, i) => `  server gateway${i + 1} ${addr}`),
    ].join('\n') + '\n'
  );
}

/** The haproxy binary: TOPICGATE_HAPROXY, the PATH, or where Debian's package puts it. */
export function findHaproxy(env: NodeJS.ProcessEnv = process.env): string {
  return systemBinary('haproxy', 'TOPICGATE_HAPROXY', env.TOPICGATE_HAPROXY);
}

/** `haproxy -c`: the configuration's problems, or null when it is valid. */
export function checkConfig(bin: string, file: string): string | null {
  const r = spawnSync(bin, ['-c', '-q', '-f', file], { encoding: 'utf8' });
  return r.status === 0 ? null : `${r.stdout}${r.stderr}`.trim();
}
