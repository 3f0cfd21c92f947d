/**
 * The OpenAPI document, generated from the routes' own TypeBox schemas (@fastify/swagger), served at
 * /openapi.json, with Swagger UI at /docs from the package's bundled assets (works offline).
 */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';

async function openapiPlugin(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'topicgate',
        version: '0.1.0',
        description:
          'Query VAST Event Broker topics as tables: filtered, aggregated, paged reads through Trino, ' +
          'with filters pushed down to storage where it can evaluate them.',
      },
      tags: [
        { name: 'topics', description: 'What topics exist and what is in them' },
        { name: 'events', description: 'Reading events: filters, paging, formats, explain' },
        { name: 'cursors', description: 'Named cursors for scheduled batch loaders' },
        { name: 'operations', description: 'Health, readiness, metrics' },
      ],
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}

export default fp(openapiPlugin, { name: 'topicgate-openapi' });
