/**
 * Latency at a fixed rate over N keep-alive connections: each connection sends one request every N / rate seconds
 * (connections staggered), and a request's latency runs from when it was due, not from when it was sent, so a
 * server falling behind shows as latency instead of being hidden by the client waiting (coordinated omission).
 * autocannon's `overallRate` counts the client's own pacing wait into its latencies, which is not the server's.
 */
import { Agent, request } from 'node:http';

export interface PacedResult {
  requests: number;
  codes: Record<string, number>;
  errors: number;
  latencyMs: { p50: number; p90: number; p99: number; max: number };
}

/** GETs `url` with `headers` at `rate` a second over `connections` connections for `seconds`. */
export async function pacedGets(
  url: string,
  headers: Record<string, string>,
  o: { connections: number; rate: number; seconds: number },
): Promise<PacedResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: o.connections });
  const gapMs = (1000 * o.connections) / o.rate;
  const start = performance.now();
  const end = start + o.seconds * 1000;
  const latencies: number[] = [];
  const codes: Record<string, number> = {};
  let errors = 0;
  const once = () =>
    new Promise<number>((resolve, reject) => {
      const req = request(url, { agent, headers }, (res) => {
        res.resume().once('end', () => resolve(res.statusCode ?? 0));
      });
      req.once('error', reject).end();
    });
  const loop = async (i: number) => {
    for (let due = start + (gapMs * i) / o.connections; due < end; due += gapMs) {
      // A timer may fire a little before its time (it rounds to whole milliseconds): never send before due.
      for (let wait = due - performance.now(); wait > 0; wait = due - performance.now()) {
        await new Promise((r) => setTimeout(r, wait));
      }
      try {
        const code = await once();
        codes[code] = (codes[code] ?? 0) + 1;
        latencies.push(performance.now() - due);
      } catch {
        errors++;
      }
    }
  };
  await Promise.all(Array.from({ length: o.connections }, (_, i) => loop(i)));
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (q: number) =>
    Number((latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0).toFixed(2));
  return {
    requests: latencies.length,
    codes,
    errors,
    latencyMs: { p50: at(0.5), p90: at(0.9), p99: at(0.99), max: at(1) },
  };
}
