/**
 * Prometheus metrics at GET /metrics (prom-client): request counts and durations by route and status, rows
 * streamed by format, Trino queries started and failed, and the process's own default metrics. Each app gets its
 * own registry, so tests and several apps in one process do not collide.
 */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { AUTH_ERRORS, errorResponses } from '../../routes/error-schema.js';

export interface Metrics {
  registry: Registry;
  rows: Counter<'format'>;
  trinoQueries: Counter<'outcome'>;
  /** MCP tool calls (API.md "Tools for agents: MCP"), by tool and outcome (ok, or the error's code). */
  mcpToolCalls: Counter<'tool' | 'outcome'>;
}

declare module 'fastify' {
  interface FastifyInstance {
    metrics: Metrics;
  }
}

async function metricsPlugin(app: FastifyInstance): Promise<void> {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'topicgate_' });
  const duration = new Histogram({
    name: 'topicgate_http_request_duration_seconds',
    help: 'Time to the end of the response, by route and status',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 120],
    registers: [registry],
  });
  const rows = new Counter({
    name: 'topicgate_rows_streamed_total',
    help: 'Rows sent to clients, by format',
    labelNames: ['format'],
    registers: [registry],
  });
  const trinoQueries = new Counter({
    name: 'topicgate_trino_queries_total',
    help: 'Trino queries started by the gateway, by outcome (ok, failed, cancelled)',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const mcpToolCalls = new Counter({
    name: 'topicgate_mcp_tool_calls_total',
    help: 'MCP tool calls, by tool and outcome (ok, or the TG_ code of the tool error)',
    labelNames: ['tool', 'outcome'],
    registers: [registry],
  });
  app.decorate('metrics', { registry, rows, trinoQueries, mcpToolCalls });
  app.addHook('onResponse', async (request, reply) => {
    // The route pattern, not the URL: topic names and cursors must not explode the label set.
    const route = request.routeOptions.url ?? 'unmatched';
    duration.observe({ method: request.method, route, status: String(reply.statusCode) }, reply.elapsedTime / 1000);
  });
  app.get(
    '/metrics',
    {
      config: { group: 'metrics' },
      schema: {
        tags: ['operations'],
        summary: 'Prometheus metrics',
        produces: ['text/plain'],
        response: {
          200: {
            description: 'Prometheus text exposition format',
            content: { 'text/plain': { schema: { type: 'string' } } },
          },
          // Protected unless `auth.public` lists metrics: the access plugin's refusals.
          ...errorResponses([...AUTH_ERRORS, 'TG_INTERNAL']),
        },
      },
    },
    async (_request, reply) => reply.type(registry.contentType).send(await registry.metrics()),
  );
}

export default fp(metricsPlugin, { name: 'topicgate-metrics' });
