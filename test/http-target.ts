/**
 * Gateways over HTTP, driven as an app is (`inject`: test/session-reads.ts's Target), so the session helpers read
 * from real instances: each request goes to the next of `bases` in turn, one request at a time (a principal's
 * `concurrentQueries` counts every stream being read). Each reply is remembered with where it went and which
 * instance answered (the balancer says so in `x-topicgate-instance`, scripts/haproxy-config.ts).
 */
import type { Target } from './session-reads.js';

export interface Served {
  base: string;
  path: string;
  status: number;
  /** The balancer's name for the instance that answered (`gateway1`, ...); null when an instance was addressed. */
  instance: string | null;
}

export interface HttpTarget extends Target {
  readonly served: Served[];
}

type Request = Parameters<Target['inject']>[0];

export function httpTarget(bases: readonly string[]): HttpTarget {
  const served: Served[] = [];
  let turn = 0;
  let queue: Promise<unknown> = Promise.resolve();
  const send = async (r: Request) => {
    const base = bases[turn++ % bases.length]!;
    const json = r.payload !== undefined;
    const res = await fetch(`${base}${r.url}`, {
      method: r.method ?? 'GET',
      // Uncompressed: the bytes compared are the encoder's, and no CPU goes to compressing them.
      headers: { 'accept-encoding': 'identity', ...(json ? { 'content-type': 'application/json' } : {}), ...r.headers },
      body: json ? JSON.stringify(r.payload) : undefined,
    });
    const rawPayload = Buffer.from(await res.arrayBuffer());
    served.push({ base, path: r.url, status: res.status, instance: res.headers.get('x-topicgate-instance') });
    const body = rawPayload.toString();
    return { statusCode: res.status, body, rawPayload, json: () => JSON.parse(body) as unknown };
  };
  return {
    served,
    inject(r) {
      const reply = queue.then(() => send(r));
      queue = reply.catch(() => undefined);
      return reply;
    },
  };
}
