/**
 * OpenTelemetry tracing, off unless TOPICGATE_TRACING_URL names an OTLP/HTTP traces endpoint: a span per
 * request (plugins/tracing.ts) and per Trino query (http-trino.ts), the query's span a child of its request's,
 * and the W3C `traceparent` of the query's span sent to Trino with the statement, so Trino's own spans (when its
 * tracing is on) join the same trace. This module needs the API only; off, the API is its no-op (no span is
 * recorded, no header sent) and the SDK (tracing-sdk.ts) is never loaded.
 */
import { trace } from '@opentelemetry/api';

/** The gateway's tracer (a no-op one while tracing is off). */
export const tracer = () => trace.getTracer('topicgate');
