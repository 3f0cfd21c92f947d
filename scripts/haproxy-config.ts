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
  /** Flight SQL (gRPC): the balancer's port for it and each instance's Flight port, in the order of `servers`. */
  flight?: { port: number; servers: readonly string[] };
}

/**
 * The gRPC frontend: HTTP/2 in (`proto h2` on the bind: gRPC clients speak cleartext HTTP/2 without an upgrade)
 * and out (`proto h2` on each server), each request balanced on its own, so the calls of one connection (a
 * GetFlightInfo, then each DoGet) spread over the instances; a Flight ticket is signed, so any instance serves it.
 * An instance is checked on its HTTP port's /readyz over HTTP/1.1 (`check-proto h1`: the server line's h2 would
 * be used for checks too), the same check the HTTP backend makes. The instance's name is a response header, which
 * gRPC clients see as metadata.
 */
function flightLines(s: BalancerSpec): string[] {
  if (!s.flight) return [];
  const { port, servers } = s.flight;
  return [
    '',
    'frontend topicgate_flight',
    `  bind 127.0.0.1:${port} proto h2`,
    '  default_backend flight_gateways',
    '',
    'backend flight_gateways',
    '  balance roundrobin',
    '  option httpchk GET /readyz',
    '  http-check expect status 200',
    '  default-server check inter 1s fall 2 rise 1',
    '  http-response set-header X-Topicgate-Instance %[srv_name]',
    // check-proto on the server line: HAProxy 2.6 checks a `proto h2` server over h2 despite default-server's.
    ...servers.map(
      (addr, i) => `  server gateway${i + 1} ${addr} proto h2 port ${portOf(s.servers[i]!)} check-proto h1`,
    ),
  ];
}

function portOf(addr: string): number {
  return Number(addr.slice(addr.lastIndexOf(':') + 1));
}

/**
 * The configuration text. Time-outs: a read streams for as long as its query may run (the gateway's own
 * TOPICGATE_CONNECTION_TIMEOUT, 10 minutes by default, closes idle connections first); checks every second, a
 * server out after two failed checks and back after one good one. `retry-on conn-failure` with `option
 * redispatch 1`: a request whose connection to an instance failed (refused: the instance is gone) goes to another
 * instance at once, before the checks have marked it down; once a connection is established nothing is retried.
 * Every response names the instance that served it (`X-Topicgate-Instance: gateway1`), for whoever debugs or tests.
 * With `flight`, a second frontend balances the instances' Flight SQL ports (flightLines).
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
      ...flightLines(s),
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
