/** A read policy for planner tests: anonymous, no row filter, the usual limits; each test overrides what it tests. */
import { limitsOf } from '../../src/config/access-schema.js';
import type { ReadPolicy } from '../../src/query/tree/read-policy.js';

const DAY = 86_400_000;

export function testPolicy(over: Partial<ReadPolicy> = {}): ReadPolicy {
  return {
    caps: limitsOf(undefined),
    trino: { impersonate: false, reservedUsers: new Set(), session: {}, clientTags: [] },
    rows: { filter: null, principal: 'anonymous' },
    defaultLimit: 100,
    maxLimit: 1000,
    batchDefaultLimit: 1000,
    postDecodeMaxRows: 1000,
    guardrail: { maxWindowMs: 7 * DAY, allowFullScan: false, complexPredicates: false },
    parallel: { default: 1, max: 4 },
    infer: { defaultSample: 1000, maxSample: 5000, defaultWindowMs: DAY, maxWindowMs: 7 * DAY },
    ...over,
  };
}
