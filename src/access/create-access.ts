/**
 * The access core, built once from the settings: who the caller is (authenticator), what it may do (grants),
 * which rows it sees (row policies) and how many queries it may run at once (limiter). Routes and the planner
 * reach it through `app.access`; the HTTP side (src/server/plugins/access-plugin.ts) authenticates every request with it.
 */
import type { Config } from '../config/config.js';
import { concurrentQueriesOf, type RouteGroup } from '../config/access-schema.js';
import { Authenticator } from './authenticate.js';
import { Grants } from './grants.js';
import type { JwtOptions } from './jwt.js';
import { QueryLimiter } from './query-limiter.js';
import { RowPolicies } from './row-policy.js';

export interface Access {
  readonly authenticator: Authenticator;
  readonly grants: Grants;
  readonly rowPolicies: RowPolicies;
  readonly queries: QueryLimiter;
  /** Route groups served without credentials. */
  readonly publicGroups: ReadonlySet<RouteGroup>;
}

export function createAccess(
  config: Pick<Config, 'auth' | 'access' | 'rowPolicies' | 'rowPoliciesDefault' | 'topics' | 'limits' | 'configFile'>,
  opts: JwtOptions = {},
): Access {
  const authenticator = new Authenticator(config.auth, { configFile: config.configFile, ...opts });
  return {
    authenticator,
    grants: new Grants(config.access, authenticator.enabled),
    rowPolicies: new RowPolicies(config.rowPolicies, { default: config.rowPoliciesDefault, topics: config.topics }),
    // The per-caller limit has a default (the configured one alone is counted across instances: shared-quotas.ts).
    queries: new QueryLimiter({ ...config.limits, concurrentQueries: concurrentQueriesOf(config.limits) }),
    publicGroups: new Set(config.auth?.public ?? ['health']),
  };
}
