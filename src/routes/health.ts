/** Liveness and readiness (API.md "Operations"). */
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { ApiError } from '../errors.js';
import { TRINO_ERRORS, errorResponses } from './events-schema.js';

const Health = Type.Object({ status: Type.String(), trino: Type.Optional(Type.String()) });

export default async function healthRoutes(app: FastifyInstance): Promise<void> {
  app.get(
    '/healthz',
    {
      schema: {
        tags: ['operations'],
        summary: 'The process is up',
        response: { 200: Health, ...errorResponses(['TG_INTERNAL']) },
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
        response: { 200: Health, ...errorResponses(TRINO_ERRORS) },
      },
    },
    async () => {
      const info = await app.tg.trino.info();
      if (info.starting) throw new ApiError('TG_TRINO_UNAVAILABLE', 'Trino is starting', undefined, undefined, 5);
      return { status: 'ready', trino: info.nodeVersion?.version ?? 'unknown' };
    },
  );
}
