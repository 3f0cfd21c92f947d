/**
 * Which group a route belongs to, for `auth.public` (API.md "Access"): health (`/healthz`, `/readyz`), docs
 * (Swagger UI under `/docs` and `/openapi.json`) and metrics (`/metrics`). Everything else, including the topic
 * listing page `/docs/topics` (it names topics and columns) and unknown routes, needs credentials.
 */
import type { RouteGroup } from './access-schema.js';

const EXACT: Readonly<Record<string, RouteGroup>> = {
  '/healthz': 'health',
  '/readyz': 'health',
  '/openapi.json': 'docs',
  '/metrics': 'metrics',
};

/** The group of a matched route (its URL pattern, as fastify gives it), or undefined when it is protected. */
export function routeGroup(routeUrl: string | undefined): RouteGroup | undefined {
  if (routeUrl === undefined) return undefined;
  const exact = EXACT[routeUrl];
  if (exact) return exact;
  if (routeUrl === '/docs/topics') return undefined;
  if (routeUrl === '/docs' || routeUrl.startsWith('/docs/')) return 'docs';
  return undefined;
}

/** Routes that read topic data through Trino: they count against the query quota and get an audit line. */
export function isDataRoute(routeUrl: string | undefined): boolean {
  return routeUrl !== undefined && (routeUrl.startsWith('/v1/topics/:topic/') || routeUrl.startsWith('/v1/cursors/'));
}
