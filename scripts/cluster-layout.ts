/**
 * Where `npm run cluster:up` (scripts/cluster.ts) puts things: the balancer's ports (HTTP, and Flight SQL's gRPC),
 * the instances' ports, and its run dir with the files that record what it started.
 *
 * TOPICGATE_CLUSTER_PORT (default 3100) is the balancer's HTTP port, the instances listen on the next ones;
 * TOPICGATE_CLUSTER_FLIGHT_PORT (default that port + 10) the balancer's Flight SQL port, the instances' Flight ports
 * the next ones. A layout given ports without Flight ports runs the instances with Flight off (each instance would
 * otherwise take the one default Flight port).
 */
import { homedir } from 'node:os';
import { join } from 'node:path';

export interface ClusterLayout {
  /** The balancer's port, and the instances'. */
  port: number;
  instancePorts: readonly number[];
  /** The balancer's URL. */
  url: string;
  /** Flight SQL: the balancer's gRPC port and URI, and the instances' Flight ports (in instancePorts' order). */
  flight?: { port: number; uri: string; instancePorts: readonly number[] };
  runDir: string;
}

/** Ports a caller (a test, a benchmark) chose; `flight` as ClusterLayout's, or none for Flight off. */
export interface ClusterPorts {
  port: number;
  instancePorts: readonly number[];
  flight?: { port: number; instancePorts: readonly number[] };
}

function tcpPort(value: string | undefined, fallback: number, name: string): number {
  const port = value === undefined ? fallback : Number(value);
  if (!Number.isInteger(port) || port < 1 || port > 65533) {
    throw new Error(`${name} must be a TCP port, got ${JSON.stringify(value)}`);
  }
  return port;
}

export function clusterLayout(env: NodeJS.ProcessEnv = process.env, ports?: ClusterPorts): ClusterLayout {
  const port = ports?.port ?? tcpPort(env.TOPICGATE_CLUSTER_PORT, 3100, 'TOPICGATE_CLUSTER_PORT');
  const instancePorts = ports?.instancePorts ?? [port + 1, port + 2];
  let flight = ports?.flight;
  if (!ports) {
    const f = tcpPort(env.TOPICGATE_CLUSTER_FLIGHT_PORT, port + 10, 'TOPICGATE_CLUSTER_FLIGHT_PORT');
    flight = { port: f, instancePorts: instancePorts.map((_, i) => f + 1 + i) };
  }
  // Same cache dir as the other local services' scripts.
  const cacheDir = env.TOPICGATE_CACHE_DIR ?? join(env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'topicgate');
  return {
    port,
    instancePorts,
    url: `http://127.0.0.1:${port}`,
    ...(flight ? { flight: { ...flight, uri: `grpc://127.0.0.1:${flight.port}` } } : {}),
    runDir: join(cacheDir, `cluster-run-${port}`),
  };
}

export const clusterFiles = (l: ClusterLayout) => ({
  balancerPid: join(l.runDir, 'haproxy.pid'),
  balancerLog: join(l.runDir, 'haproxy.log'),
  config: join(l.runDir, 'haproxy.cfg'),
  secret: join(l.runDir, 'cursor-secret'),
  started: join(l.runDir, 'started.json'),
  gatewayPid: (i: number) => join(l.runDir, `gateway${i + 1}.pid`),
  gatewayLog: (i: number) => join(l.runDir, `gateway${i + 1}.log`),
});
