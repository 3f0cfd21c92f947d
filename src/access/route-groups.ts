/**
 * What kind of route a request matched, read from the route's own `config` (fastify's per-route config), which each
 * route declares where it is registered: `group` for `auth.public` (health: `/healthz`, `/readyz`; docs: Swagger UI
 * and `/openapi.json`; metrics: `/metrics`) and `data` for routes that read topics through Trino. A route that
 * declares neither (the topic listing, the topic page `/docs/topics`, unknown URLs) needs credentials and is not
 * counted. `signed` routes (a read session's streams) carry their own authority in a signed URL: a request to one
 * without credentials reaches the route, which refuses it unless its URL is presigned. No URL text is matched
 * anywhere.
 */
import type { RouteGroup } from '../config/access-schema.js';

/** The part of a route's config this module reads. */
export interface RouteKind {
  group?: RouteGroup;
  data?: boolean;
  signed?: boolean;
}

/** The group of a matched route, or undefined when it is protected. */
export function routeGroup(config: RouteKind | undefined): RouteGroup | undefined {
  return config?.group;
}

/** Routes that read topic data through Trino: their queries count against the quotas and they get an audit line. */
export function isDataRoute(config: RouteKind | undefined): boolean {
  return config?.data === true;
}

/** May a request without credentials reach the route (which then checks its signed URL itself)? */
export function isSignedRoute(config: RouteKind | undefined): boolean {
  return config?.signed === true;
}
