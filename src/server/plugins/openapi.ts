/**
 * The OpenAPI document, generated from the routes' own TypeBox schemas (@fastify/swagger) and finished by
 * openapi/finish-document.ts, served at /openapi.json and committed as openapi/openapi.json (`npm run openapi`;
 * test/integration/openapi.test.ts fails on drift), with Swagger UI at /docs from the package's bundled assets
 * (works offline: no external URL, a CSP that allows only this origin, no validator badge). The description is
 * openapi/description.md; the Swagger UI additions are openapi/swagger-ui-plugin.js, served as a static script.
 */
import { readFileSync } from 'node:fs';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import fp from 'fastify-plugin';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { ERROR_CATALOG, type ErrorCode } from '../../core/errors.js';
import { finishDocument, markFreeFormQuery } from './openapi/finish-document.js';

type Json = Record<string, unknown>;

const asset = (name: string) => readFileSync(new URL(`./openapi/${name}`, import.meta.url), 'utf8');

const ERROR_TABLE_MARK = /^<!-- error-catalog:.*-->$/m;

/** The description Markdown, with the error catalog's table where the file marks it. */
export function description(markdown: string): string {
  const rows = (Object.keys(ERROR_CATALOG) as ErrorCode[]).map(
    (code) => `| \`${code}\` | ${ERROR_CATALOG[code].status} | ${ERROR_CATALOG[code].meaning} |`,
  );
  if (!ERROR_TABLE_MARK.test(markdown)) throw new Error('openapi/description.md has lost its error-catalog mark');
  return markdown.replace(ERROR_TABLE_MARK, ['| code | status | meaning |', '| --- | --- | --- |', ...rows].join('\n'));
}

/**
 * A value for swagger-ui's `uiConfig` that the page's initializer writes as the bare expression `text`: it writes
 * each function of uiConfig as its source text (@fastify/swagger-ui/lib/serialize.js), and this function's text is `text`.
 */
function pageExpression(text: string): () => Record<string, never> {
  const f = () => ({});
  f.toString = () => text;
  return f;
}

async function openapiPlugin(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: { title: 'topicgate', version: '0.1.0', description: description(asset('description.md')) },
      // API.md "Access": an API key (as a bearer token or X-API-Key) or a JWT; health probes need neither.
      components: {
        securitySchemes: {
          bearer: {
            type: 'http',
            scheme: 'bearer',
            description:
              'A JWT from the configured identity provider, or an API key, as `Authorization: Bearer <token>`',
          },
          apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'An API key' },
        },
      },
      security: [{ bearer: [] }, { apiKey: [] }],
      tags: [
        { name: 'topics', description: 'What topics exist and what is in them' },
        { name: 'events', description: 'Reading events: filters, paging, formats, explain' },
        {
          name: 'sessions',
          description: 'Read sessions: one bulk read as many streams, read concurrently from any instance',
        },
        { name: 'cursors', description: 'Named cursors for scheduled batch loaders' },
        { name: 'loads', description: 'Loads run by Trino: a topic into a table, no event through the gateway' },
        { name: 'operations', description: 'Health, readiness, metrics' },
        { name: 'docs', description: 'Documentation built from the live catalog' },
      ],
    },
    // Shared schemas (TypeBox `$id`) keep their names in components.schemas.
    refResolver: {
      buildLocalReference: (json, _base, _fragment, i) =>
        typeof json.$id === 'string' && /^[A-Z]\w*$/.test(json.$id) ? json.$id : `def-${i}`,
    },
    transform: markFreeFormQuery,
    transformObject: (documentObject) =>
      finishDocument((documentObject as { openapiObject: Json }).openapiObject) as never,
  });
  // Swagger UI's routes are registered by the plugin: an encapsulated context marks each as `docs` where it is
  // added (access/route-groups.ts reads the route's config, never its URL).
  await app.register(docsContext);
  app.get('/openapi.json', { config: { group: 'docs', sameForEveryone: true }, schema: { hide: true } }, async () =>
    app.swagger(),
  );
}

/** Swagger UI in its own context, each of its routes marked `docs` and the same for everyone (no data in it). */
const docsContext: FastifyPluginAsync = async (docs) => {
  docs.addHook('onRoute', (route) => {
    route.config = { ...route.config, group: 'docs', sameForEveryone: true };
  });
  await docs.register(swaggerUi, {
    routePrefix: '/docs',
    theme: {
      title: 'topicgate API',
      // Served at /docs/static/theme/, loaded after swagger-ui-bundle.js and before the page's initializer runs.
      js: [{ filename: 'topicgate-swagger-ui.js', content: asset('swagger-ui-plugin.js') }],
    },
    staticCSP:
      "default-src 'self'; base-uri 'self'; connect-src 'self'; img-src 'self' data: blob:; font-src 'self' data:; " +
      "object-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; frame-ancestors 'self'",
    uiConfig: {
      validatorUrl: null, // no badge that would call an online validator
      deepLinking: true,
      displayRequestDuration: true,
      persistAuthorization: true,
      defaultModelsExpandDepth: 0,
      plugins: [pageExpression('window.topicgateSwaggerUi')],
    },
  });
};

export default fp(openapiPlugin, { name: 'topicgate-openapi' });
