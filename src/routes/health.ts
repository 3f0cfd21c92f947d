/** Liveness and readiness (API.md "Operations"). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@fastify/type-provider-typebox';
import { ApiError } from '../errors.js';
import { errorResponses } from '../schemas/error.js';

const Health = Type.Object({ status: Type.String(), trino: Type.Optional(Type.String()) });

const healthRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/healthz',
    {
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
      schema: {
        tags: ['operations'],
        summary: 'Trino answers and has finished starting',
        // Trino's /v1/info: unreachable, or answering that it is starting.
        response: { 200: Health, ...errorResponses(['TG_TRINO_UNAVAILABLE']) },
      },
    },
    async () => {
      const info = await app.tg.trino.info();
      if (info.starting) throw new ApiError('TG_TRINO_UNAVAILABLE', 'Trino is starting', undefined, undefined, 5);
      return { status: 'ready', trino: info.nodeVersion?.version ?? 'unknown' };
    },
  );
};

export default healthRoutes;
