/**
 * Turning OpenTelemetry tracing on (tracer.ts says what is traced): the SDK, loaded by server.ts only when
 * TOPICGATE_TRACING_URL is set. The API is global by design (one tracer provider per process), so this registers
 * it.
 */
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, BatchSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';

export interface Tracing {
  /** Flushes the spans still queued and unregisters the provider. */
  shutdown(): Promise<void>;
}

/** Registers a tracer provider sending spans to these processors, the W3C propagator and async context. */
export function startTracing(processors: SpanProcessor[]): Tracing {
  const provider = new BasicTracerProvider({ spanProcessors: processors });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  return {
    async shutdown() {
      await provider.shutdown();
      trace.disable();
      propagation.disable();
      context.disable();
    },
  };
}

/** Tracing to an OTLP/HTTP endpoint (the exporter is loaded only when tracing is on). */
export async function startOtlpTracing(url: string): Promise<Tracing> {
  const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
  return startTracing([new BatchSpanProcessor(new OTLPTraceExporter({ url }))]);
}
