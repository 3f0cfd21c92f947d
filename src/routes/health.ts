/** Liveness and readiness (API.md "Operations"). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ApiError } from '../core/errors.js';
import { errorResponses } from './error-schema.js';
import { toApiError } from '../trino/trino-errors.js';
import type { TrinoInfo, TrinoPort } from '../trino/trino-port.js';

const Health = Type.Object({
  status: Type.String(),
  trino: Type.Optional(Type.String()),
  state: Type.Optional(Type.String()),
});

/**
 * Workers Trino counts as active, when a minimum is set (else none is asked for). A query Trino cannot schedule for
 * want of workers counts none; any other failure is left to `/v1/info`'s answer.
 */
async function activeWorkers(trino: TrinoPort, min: number): Promise<number> {
  if (min === 0) return 0;
  try {
    const { rows } = await trino.all(
      "SELECT count(*) FROM system.runtime.nodes WHERE coordinator = false AND state = 'active'",
      { timeoutMs: 5000, clientTags: ['catalog'] },
    );
    return Number(rows[0]?.[0] ?? 0);
  } catch (err) {
    if (toApiError(err).code === 'TG_TRINO_UNAVAILABLE') return 0;
    return min;
  }
}

/** Trino's part of readiness, from its `/v1/info` and the active workers counted. */
function trinoState(
  info: PromiseSettledResult<TrinoInfo>,
  workers: PromiseSettledResult<number>,
  minWorkers: number,
): string {
  if (info.status === 'rejected') return toApiError(info.reason).code === 'TG_TRINO_AUTH' ? 'refused' : 'unreachable';
  if (info.value.starting) return 'starting';
  return workers.status === 'fulfilled' && workers.value < minWorkers ? 'without workers' : 'ok';
}

const healthRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/healthz',
    {
      config: { group: 'health' },
      schema: {
        tags: ['operations'],
        summary: 'The process is up',
        response: { 200: Health, ...errorResponses([]) },
      },
    },
    async () => ({ status: 'ok' }),
  );
  app.get(
    '/readyz',
    {
      config: { group: 'health' },
      schema: {
        tags: ['operations'],
        summary: 'Trino answers and has finished starting, and the cursor store answers',
        description:
          'A 503 names the failing dependency in `details` (`trino`, `state`: `ok`, `starting`, `unreachable`, ' +
          '`refused`, or for Trino `without workers` below `TOPICGATE_TRINO_MIN_WORKERS`). Readiness returns by ' +
          'itself when the dependency does.',
        // Trino's /v1/info: unreachable, starting, or refusing the gateway's credentials; the cursor store.
        response: {
          200: Health,
          ...errorResponses(['TG_TRINO_AUTH', 'TG_TRINO_UNAVAILABLE', 'TG_STATE_UNAVAILABLE']),
        },
      },
    },
    async () => {
      const [info, ping, workers] = await Promise.allSettled([
        app.tg.trino.info(),
        app.tg.store.ping(),
        activeWorkers(app.tg.trino, app.tg.config.trinoMinWorkers),
      ]);
      const trino = trinoState(info, workers, app.tg.config.trinoMinWorkers);
      const state = ping.status === 'fulfilled' ? 'ok' : 'unreachable';
      if (trino === 'ok' && state === 'ok' && info.status === 'fulfilled') {
        return { status: 'ready', trino: info.value.nodeVersion?.version ?? 'unknown', state };
      }
      const failing = [trino !== 'ok' && `Trino is ${trino}`, state !== 'ok' && 'the cursor store is unreachable'];
      const code =
        trino === 'refused' ? 'TG_TRINO_AUTH' : trino !== 'ok' ? 'TG_TRINO_UNAVAILABLE' : 'TG_STATE_UNAVAILABLE';
      throw new ApiError(
        code,
        `not ready: ${failing.filter(Boolean).join(', ')}`,
        { trino, state },
        undefined,
        code === 'TG_TRINO_AUTH' ? undefined : 5,
      );
    },
  );
};

export default healthRoutes;
