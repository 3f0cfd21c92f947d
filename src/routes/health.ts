/** Liveness and readiness (API.md "Operations"). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ApiError } from '../core/errors.js';
import { errorResponses } from './error-schema.js';
import { toApiError } from '../trino/trino-errors.js';

const Health = Type.Object({
  status: Type.String(),
  trino: Type.Optional(Type.String()),
  state: Type.Optional(Type.String()),
});

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
          'A 503 names the failing dependency in `details` (`trino`, `state`: `ok`, `starting`, `unreachable` or ' +
          '`refused`). Readiness returns by itself when the dependency does.',
        // Trino's /v1/info: unreachable, starting, or refusing the gateway's credentials; the cursor store.
        response: {
          200: Health,
          ...errorResponses(['TG_TRINO_AUTH', 'TG_TRINO_UNAVAILABLE', 'TG_STATE_UNAVAILABLE']),
        },
      },
    },
    async () => {
      const [info, ping] = await Promise.allSettled([app.tg.trino.info(), app.tg.store.ping()]);
      const trino =
        info.status === 'rejected'
          ? toApiError(info.reason).code === 'TG_TRINO_AUTH'
            ? 'refused'
            : 'unreachable'
          : info.value.starting
            ? 'starting'
            : 'ok';
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
