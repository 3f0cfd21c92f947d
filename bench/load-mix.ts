/**
 * The load test's request mix: topic listings, small filtered reads, aggregations, paging, cursor reads and a few
 * large streams, over the demo topics, and the latest events of one key on `vastpg` (bench/load-selective.ts).
 * Each route gets its share of the connections (at least one).
 */
import type { Request as CannonRequest } from 'autocannon';

export interface Route {
  name: string;
  /** Share of the connections. */
  weight: number;
  requests: CannonRequest[];
  /** The gateway the route runs against (default: the one serving the demo topics). */
  base?: string;
}

const SINCE = '2026-11-01T00:00:00Z';

/** Rotates through `paths` on each request of one connection. */
export function rotating(paths: readonly string[], extra: Partial<CannonRequest> = {}): CannonRequest[] {
  let i = 0;
  return [
    {
      ...extra,
      setupRequest: (req) => {
        req.path = paths[i++ % paths.length]!;
        return req;
      },
    },
  ];
}

/**
 * The routes. `pages` are the URLs of later pages of one paged read and `cursors` the names of cursors made
 * before the run (reading a cursor again without committing returns the same batch, so every read is real work).
 */
/** The filtered read of the mix: the first 20 events of one order's key since the month's start (demo topics). */
export function filteredPaths(): string[] {
  const keys = Array.from({ length: 50 }, (_, i) => `order-${1_000_001 + i * 97}`);
  return keys.map((k) => `/v1/topics/orders/events?key=eq.${k}&since=${SINCE}&limit=20`);
}

export function loadMix(pages: readonly string[], cursors: readonly string[], selective?: Route): Route[] {
  const aggregation = JSON.stringify({
    select: ['status', { fn: 'count', as: 'n' }, { fn: 'sum', field: 'amount', as: 'total' }],
    groupBy: ['status'],
  });
  return [
    { name: 'topic listing', weight: 0.15, requests: [{ method: 'GET', path: '/v1/topics' }] },
    {
      name: 'filtered read',
      weight: 0.3,
      requests: rotating(filteredPaths()),
    },
    {
      name: 'aggregation',
      weight: 0.15,
      requests: [
        {
          method: 'POST',
          path: '/v1/topics/orders_expanded/query',
          headers: { 'content-type': 'application/json' },
          body: aggregation,
        },
      ],
    },
    { name: 'paging', weight: 0.15, requests: rotating(pages) },
    {
      name: 'cursor read',
      weight: 0.15,
      requests: rotating(
        cursors.map((c) => `/v1/cursors/${c}/read?limit=500&format=arrow`),
        { method: 'POST' },
      ),
    },
    {
      name: 'large stream',
      weight: 0.1,
      requests: rotating([
        `/v1/topics/clicks/events?since=${SINCE}&until=2026-11-02T00:00:00Z&limit=all&format=ndjson`,
        `/v1/topics/orders/events?since=${SINCE}&until=2026-11-04T00:00:00Z&limit=all&format=arrow`,
      ]),
    },
    ...(selective ? [selective] : []),
  ];
}

/** Splits `total` connections by weight (largest remainder), each route at least one. */
export function connectionsOf(routes: readonly Route[], total: number): number[] {
  const sum = routes.reduce((a, r) => a + r.weight, 0);
  const exact = routes.map((r) => Math.max(1, (total * r.weight) / sum));
  const out = exact.map(Math.floor);
  const order = exact.map((e, i) => [e - Math.floor(e), i] as const).sort((a, b) => b[0] - a[0]);
  for (let k = 0; out.reduce((a, b) => a + b, 0) < total; k++) out[order[k % order.length]![1]]!++;
  return out;
}
