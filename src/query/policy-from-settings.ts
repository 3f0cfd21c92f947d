/** A topic's read policy for one caller, built from the settings: the caps, the guardrail and the row scope. */
import type { Config } from '../config/config.js';
import { concurrentQueriesOf } from '../config/access-schema.js';
import { DEFAULT_MAX_PARALLEL } from './passes/bulk-slicing.js';
import type { ReadPolicy, RowScope } from './tree/read-policy.js';

/**
 * The policy of a topic for one caller: the caps from the settings (per-topic settings override the gateway's)
 * and the caller's row scope.
 */
export function readPolicy(config: Config, topicId: string, rows: RowScope): ReadPolicy {
  const topic = config.topics[topicId];
  const maxLimit = topic?.maxLimit ?? config.maxLimit;
  const session = Object.fromEntries(Object.entries(topic?.session ?? {}).map(([k, v]) => [k, String(v)]));
  return {
    trino: {
      impersonate: config.trinoImpersonate,
      reservedUsers: config.trinoImpersonate ? reservedTrinoUsers(config) : new Set<string>(),
      session,
      clientTags: topic?.tags ?? [],
    },
    rows,
    caps: config.limits,
    defaultLimit: Math.min(config.defaultLimit, maxLimit),
    maxLimit,
    batchDefaultLimit: Math.min(10_000, maxLimit),
    postDecodeMaxRows: config.gatewayMaxRows,
    parallel: parallelPolicy(config, topic?.parallel, topic?.maxParallel),
    guardrail: {
      maxWindowMs: config.residualScanMaxWindowMs,
      allowFullScan: topic?.allowFullScan === true,
      complexPredicates: config.complexPushdown,
    },
    infer: {
      defaultSample: Math.min(1000, config.inferMaxSample),
      maxSample: config.inferMaxSample,
      defaultWindowMs: Math.min(86_400_000, config.inferMaxWindowMs),
      maxWindowMs: config.inferMaxWindowMs,
    },
  };
}

/**
 * The Trino users a bearer token's principal is never impersonated as (docs/trino.md, "Production Trino"): every API
 * key's principal, `anonymous`, and the gateway's own user (Trino lets a user act as itself without any rule).
 */
function reservedTrinoUsers(config: Config): ReadonlySet<string> {
  return new Set([config.trinoUser, 'anonymous', ...(config.auth?.apiKeys ?? []).map((k) => k.principal)]);
}

/** The bulk-read parallelism allowed: each slice is one Trino query, and each takes one of the caller's slots. */
function parallelPolicy(config: Config, dflt = 1, topicMax = DEFAULT_MAX_PARALLEL): ReadPolicy['parallel'] {
  const caps: [number, string][] = [
    [topicMax, 'maxParallel'],
    [concurrentQueriesOf(config.limits), 'limits.concurrentQueries'],
    [config.limits.maxConcurrentQueries, 'limits.maxConcurrentQueries'],
  ];
  const [max, maxFrom] = caps.reduce((a, b) => (b[0] < a[0] ? b : a));
  return { default: Math.min(dflt, max), max, maxFrom };
}
