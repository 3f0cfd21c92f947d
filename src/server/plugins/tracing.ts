/**
 * A span per request: continues the caller's W3C trace (`traceparent`), and makes the span current for
 * everything the request does, so each Trino query's span (http-trino.ts) is its child. A no-op while tracing is
 * off (src/core/tracer.ts).
 */
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { tracer } from '../../core/tracer.js';

const tracingPlugin: FastifyPluginAsync = async (app) => {
  const spans = new WeakMap<FastifyRequest, Span>();
  app.addHook('onRequest', (request, _reply, done) => {
    const parent = propagation.extract(ROOT_CONTEXT, request.headers);
    const route = request.routeOptions.url ?? 'unmatched';
    const span = tracer().startSpan(
      `${request.method} ${route}`,
      {
        kind: SpanKind.SERVER,
        attributes: { 'http.request.method': request.method, 'http.route': route },
      },
      parent,
    );
    spans.set(request, span);
    // The rest of the request (hooks, handler, and what they await) runs with this span current.
    context.with(trace.setSpan(parent, span), done);
  });
  const end = (request: FastifyRequest, status: number | undefined) => {
    const span = spans.get(request);
    if (!span) return;
    spans.delete(request);
    if (status === undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: 'client went away' });
    else {
      span.setAttribute('http.response.status_code', status);
      if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    }
    span.end();
  };
  app.addHook('onResponse', async (request, reply) => end(request, reply.statusCode));
  app.addHook('onRequestAbort', async (request) => end(request, undefined));
};

export default fp(tracingPlugin, { name: 'topicgate-tracing' });
