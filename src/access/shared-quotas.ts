/**
 * The per-caller limits counted in the store the instances share, when it is PostgreSQL (docs/deployment.md,
 * "Several instances"): `requestsPerMinute` (pg-rate-store.ts) and `concurrentQueries` (pg-query-slots.ts), each only when
 * configured (the default `concurrentQueries` is counted in each instance's process, so a gateway that sets none
 * does not depend on the store for its reads). With SQLite (one instance) there is none: both are counted in the
 * process, as they always were.
 * `maxConcurrentQueries` is the instance's own in every case.
 */
import type { FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type pg from 'pg';
import type { Limits } from '../config/access-schema.js';
import { statePool } from '../state/postgres.js';
import { isPostgresUrl } from '../state/state-url.js';
import { storeTimeouts } from '../state/store-failures.js';
import type { SharedSlots } from './shared-slots.js';
import { PgQuerySlots } from './pg-query-slots.js';
import { PgRateCounts } from './pg-rate-store.js';

export interface SharedQuotas {
  /** The caller's query slots across instances (undefined: `concurrentQueries` is not set). */
  slots?: SharedSlots;
  /** The request counts' store for @fastify/rate-limit (undefined: `requestsPerMinute` is not set). */
  rateStore?: FastifyRateLimitStoreCtor;
  /** The same counts, for entrances that are not fastify routes (Flight SQL's calls): one budget per caller. */
  rateCounts?: PgRateCounts;
  close(): Promise<void>;
}

/** Connections of the request counts' pool: one short statement per request. */
const RATE_POOL_SIZE = 8;
/** The most connections the query slots' pool opens: one per request holding slots, so most instances need fewer. */
const SLOTS_POOL_MAX = 100;

/** The shared counting for `stateUrl`, or undefined when it is not PostgreSQL or no per-caller limit is set. */
export function sharedQuotas(
  s: { stateUrl: string; stateTimeoutMs: number; limits: Limits },
  schema = 'public',
): SharedQuotas | undefined {
  const { limits } = s;
  if (!isPostgresUrl(s.stateUrl)) return undefined;
  if (limits.requestsPerMinute === undefined && limits.concurrentQueries === undefined) return undefined;
  const pool = (max: number, name: string): pg.PoolConfig => ({
    ...storeTimeouts(s.stateTimeoutMs),
    connectionString: s.stateUrl,
    application_name: name,
    max,
  });
  const closing: (() => Promise<void>)[] = [];
  let rateCounts: PgRateCounts | undefined;
  if (limits.requestsPerMinute !== undefined) {
    const ratePool = statePool(pool(RATE_POOL_SIZE, 'topicgate-rate'));
    rateCounts = new PgRateCounts(ratePool, schema);
    closing.push(() => ratePool.end());
  }
  let slots: PgQuerySlots | undefined;
  if (limits.concurrentQueries !== undefined) {
    slots = new PgQuerySlots({
      limit: limits.concurrentQueries,
      waitMs: limits.queueWaitMs,
      namespace: schema,
      // A hold is taken once the instance's own limiter has granted a slot: at most maxConcurrentQueries at once.
      pool: pool(Math.min(limits.maxConcurrentQueries, SLOTS_POOL_MAX), 'topicgate-slots'),
    });
    closing.push(() => slots!.close());
  }
  return {
    slots,
    rateStore: rateCounts?.storeClass(),
    rateCounts,
    close: async () => void (await Promise.all(closing.map((c) => c()))),
  };
}
