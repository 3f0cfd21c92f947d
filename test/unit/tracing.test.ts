/**
 * Tracing with an in-process exporter: a request's span continues the caller's W3C trace, each Trino
 * query's span is a child of its request's span, and Trino receives that query span's `traceparent`. Off (no
 * tracer provider registered, the default), no `traceparent` is sent. Trino is the protocol fake here.
 */
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import tracingPlugin from '../../src/server/plugins/tracing.js';
import { HttpTrino } from '../../src/trino/http-trino.js';
import { startTracing, type Tracing } from '../../src/server/tracing-sdk.js';
import { FakeTrinoHttp, QID } from '../fakes/fake-trino-http.js';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';

let fake: FakeTrinoHttp;
let app: FastifyInstance;

/** An app with one route that runs two Trino queries, one after the other. */
async function appOver(trino: HttpTrino): Promise<FastifyInstance> {
  const a = Fastify();
  await a.register(tracingPlugin);
  a.get('/two-queries', async () => {
    await trino.all('SELECT 1');
    await trino.all('SELECT 2');
    return { ok: true };
  });
  return a;
}

beforeEach(async () => {
  fake = new FakeTrinoHttp();
  await fake.start();
  fake.onPost = () => ({ body: fake.page(1, { columns: [{ name: 'n', type: 'integer' }], data: [[1]] }) });
  fake.onGet = () => ({ body: { id: QID, stats: { state: 'FINISHED' } } });
  app = await appOver(new HttpTrino({ server: fake.base, user: 'test' }));
});
afterEach(async () => {
  await app.close();
  await fake.stop();
});

const posts = () => fake.log.filter((r) => r.method === 'POST');

describe('tracing on', () => {
  let tracing: Tracing;
  let exporter: InMemorySpanExporter;
  beforeEach(() => {
    exporter = new InMemorySpanExporter();
    tracing = startTracing([new SimpleSpanProcessor(exporter)]);
  });
  afterEach(() => tracing.shutdown());

  it('a request span continues the caller trace; each Trino query span is its child; Trino gets its traceparent', async () => {
    const res = await app.inject({
      url: '/two-queries',
      headers: { traceparent: `00-${TRACE_ID}-${CALLER_SPAN}-01` },
    });
    expect(res.statusCode).toBe(200);
    const spans = exporter.getFinishedSpans();
    const request = spans.find((s) => s.kind === SpanKind.SERVER)!;
    const queries = spans.filter((s) => s.kind === SpanKind.CLIENT);
    expect(request.name).toBe('GET /two-queries');
    expect(request.spanContext().traceId).toBe(TRACE_ID);
    expect(request.parentSpanContext?.spanId).toBe(CALLER_SPAN);
    expect(request.attributes['http.response.status_code']).toBe(200);
    expect(queries).toHaveLength(2);
    for (const q of queries) {
      expect(q.name).toBe('trino query');
      expect(q.spanContext().traceId).toBe(TRACE_ID);
      expect(q.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
      expect(q.attributes['trino.query_id']).toBe(QID);
    }
    // What Trino received: the traceparent of each query's own span, in order.
    expect(posts().map((p) => p.headers.traceparent)).toEqual(
      queries.map((q) => `00-${TRACE_ID}-${q.spanContext().spanId}-01`),
    );
  });

  it('a request without traceparent starts a trace of its own, which its queries join', async () => {
    await app.inject('/two-queries');
    const spans = exporter.getFinishedSpans();
    const request = spans.find((s) => s.kind === SpanKind.SERVER)!;
    expect(request.parentSpanContext).toBeUndefined();
    const traceIds = new Set(spans.map((s) => s.spanContext().traceId));
    expect([...traceIds]).toEqual([request.spanContext().traceId]);
    expect(posts().every((p) => p.headers.traceparent?.includes(request.spanContext().traceId))).toBe(true);
  });
});

describe('tracing off (the default)', () => {
  it('sends no traceparent to Trino, even when the caller sent one', async () => {
    const res = await app.inject({ url: '/two-queries', headers: { traceparent: `00-${TRACE_ID}-${CALLER_SPAN}-01` } });
    expect(res.statusCode).toBe(200);
    expect(posts()).toHaveLength(2);
    for (const p of posts()) expect(p.headers.traceparent).toBeUndefined();
  });
});
