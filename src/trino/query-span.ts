/**
 * A Trino query's tracing span (src/core/tracer.ts): a child of the current span (the request's), whose W3C
 * `traceparent` is added to the statement's headers, so Trino's own spans join the trace. A no-op while tracing is
 * off: no span is recorded and no header added.
 */
import { context, propagation, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import { tracer } from '../core/tracer.js';

/** Starts the span and writes its `traceparent` into `headers`. */
export function startQuerySpan(headers: Record<string, string>): Span {
  const span = tracer().startSpan('trino query', { kind: SpanKind.CLIENT, attributes: { 'db.system.name': 'trino' } });
  propagation.inject(trace.setSpan(context.active(), span), headers);
  return span;
}

/** Marks the span failed (the error's class name only: messages may hold data). */
export function failQuerySpan(span: Span, err: unknown): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.name : 'failed' });
}
