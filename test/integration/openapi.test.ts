/**
 * The committed OpenAPI document (openapi/openapi.json) against the routes, the error catalog and the demo data;
 * Swagger UI's offline assets; the per-topic page /docs/topics.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { MEDIA_TYPES } from '../../src/encode/encoder-registry.js';
import { ERROR_CATALOG, type ErrorCode } from '../../src/core/errors.js';
import { PATH_EXAMPLES, renderTopicDocs } from '../../src/routes/topic-docs.js';
import { generateOpenapi, OPENAPI_FILE } from '../../scripts/openapi.js';
import { testApp } from '../helpers.js';

// biome-ignore lint/suspicious/noExplicitAny: the test walks the parsed document freely
type Json = Record<string, any>;

const committedText = readFileSync(OPENAPI_FILE, 'utf8');
const doc = JSON.parse(committedText) as Json;
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];
const operations = Object.entries(doc.paths as Json).flatMap(([path, item]) =>
  Object.entries(item as Json)
    .filter(([m]) => METHODS.includes(m))
    .map(([method, op]) => ({ method, path, op: op as Json })),
);
const op = (method: string, path: string) => operations.find((o) => o.method === method && o.path === path)!.op;

let app: FastifyInstance;
beforeAll(async () => {
  app = await testApp();
});
afterAll(() => app.close());

describe('the committed document', () => {
  it('is what the routes generate (run `npm run openapi` after changing a route schema)', async () => {
    const fresh = await generateOpenapi();
    // Compare as objects first for a readable diff, then as text for byte-exactness (key order, final newline).
    expect(JSON.parse(fresh), 'openapi/openapi.json is stale: run npm run openapi').toEqual(doc);
    expect(fresh === committedText, 'openapi/openapi.json is stale: run npm run openapi').toBe(true);
  });

  it('is the document served at /openapi.json and to Swagger UI', async () => {
    expect((await app.inject('/openapi.json')).json()).toEqual(doc);
    expect((await app.inject('/docs/json')).json()).toEqual(doc);
  });

  it('says it is generated, in its first member', () => {
    expect(committedText.split('\n')[1]).toMatch(/^ {2}"x-generated": "by npm run openapi/);
  });

  it('documents every route of the contract (API.md)', () => {
    const have = operations.map((o) => `${o.method.toUpperCase()} ${o.path}`);
    expect(have).toEqual(
      expect.arrayContaining([
        'GET /healthz',
        'GET /readyz',
        'GET /v1/topics',
        'GET /v1/topics/{topic}',
        'GET /v1/topics/{topic}/events',
        'POST /v1/topics/{topic}/query',
        'POST /v1/topics/{topic}/sessions',
        'GET /v1/topics/{topic}/sessions/{session}/streams/{index}',
        'PUT /v1/cursors/{name}',
        'GET /v1/cursors/{name}',
        'DELETE /v1/cursors/{name}',
        'POST /v1/cursors/{name}/read',
        'POST /v1/cursors/{name}/commit',
        'POST /v1/cursors/{name}/seek',
        'GET /v1/cursors/{name}/history',
        'PUT /v1/loads/{name}',
        'GET /v1/loads/{name}',
        'DELETE /v1/loads/{name}',
        'POST /v1/loads/{name}/runs',
        'GET /v1/loads/{name}/runs',
        'GET /docs/topics',
        'GET /explore',
        'GET /explore/{topic}',
      ]),
    );
  });

  it.each(operations.map((o) => [`${o.method.toUpperCase()} ${o.path}`, o.op] as const))(
    '%s has a summary, a tag, described parameters, a success and its error responses',
    (_name, o) => {
      expect(o.summary).toBeTruthy();
      expect(o.tags?.length).toBeGreaterThan(0);
      for (const p of o.parameters ?? []) expect(p.description, `parameter ${p.name}`).toBeTruthy();
      const statuses = Object.keys(o.responses);
      expect(statuses.some((s) => /^2\d\d$/.test(s))).toBe(true);
      const errors = statuses.filter((s) => Number(s) >= 400);
      expect(errors.length).toBeGreaterThan(0);
      for (const s of errors) {
        const r = o.responses[s];
        expect(r.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
        // Each error response lists its codes, each of that status, with its meaning.
        const codes = [...(r.description as string).matchAll(/`(TG_[A-Z_]+)`: /g)].map((m) => m[1] as ErrorCode);
        expect(codes.length, `${s} lists no code`).toBeGreaterThan(0);
        for (const c of codes) {
          expect(ERROR_CATALOG[c].status).toBe(Number(s));
          expect(r.description).toContain(ERROR_CATALOG[c].meaning);
        }
      }
    },
  );

  it('documents every code of the error catalog, with its status and meaning', () => {
    const enumCodes = doc.components.schemas.Error.properties.error.properties.code.enum as string[];
    expect(enumCodes.sort()).toEqual(Object.keys(ERROR_CATALOG).sort());
    const described = new Set(
      operations.flatMap((o) =>
        Object.entries(o.op.responses as Json).flatMap(([s, r]) =>
          [...String((r as Json).description).matchAll(/`(TG_[A-Z_]+)`/g)].map((m) => `${m[1]} ${s}`),
        ),
      ),
    );
    // Codes only other entrances answer: Flight SQL's statements (gRPC) and /mcp's methods (not in this document).
    const elsewhere = new Set<string>(['TG_BAD_SQL', 'TG_METHOD_NOT_ALLOWED'] satisfies ErrorCode[]);
    for (const [code, { status, meaning }] of Object.entries(ERROR_CATALOG)) {
      const here = described.has(`${code} ${status}`);
      expect(here, `${code} under some ${status} response`).toBe(!elsewhere.has(code));
      expect(doc.info.description).toContain(`| \`${code}\` | ${status} | ${meaning} |`);
    }
  });

  it('offers every media type of the encoder registry on every read', () => {
    const media = [
      'application/json',
      'application/x-ndjson',
      'text/csv',
      'application/vnd.apache.arrow.stream',
      'application/vnd.apache.parquet',
    ];
    expect([...MEDIA_TYPES].sort()).toEqual([...media].sort());
    const events = op('get', '/v1/topics/{topic}/events');
    for (const o of [
      events,
      op('post', '/v1/topics/{topic}/query'),
      op('get', '/v1/topics/{topic}/sessions/{session}/streams/{index}'),
      op('post', '/v1/cursors/{name}/read'),
    ]) {
      // A follow (follow=true) streams Server-Sent Events besides.
      const offered = o === events ? [...media, 'text/event-stream'] : media;
      expect(Object.keys(o.responses['200'].content).sort()).toEqual(offered.sort());
      expect(Object.keys(o.responses['200'].headers)).toContain('X-Trino-Query-Id');
    }
  });

  it('documents the text rules, the completeness signal of each format and the opaque cursor', () => {
    const d = doc.info.description as string;
    for (const rule of [
      '`\\x` followed by lowercase hex',
      'U+FFFD',
      'embedded as a JSON value',
      'beyond 2^53',
      'with their scale',
      '2026-11-01T00:00:00.000Z',
    ]) {
      expect(d).toContain(rule);
    }
    const ok = op('get', '/v1/topics/{topic}/events').responses['200'].description as string;
    for (const signal of ['"complete": true', '`\\n\\n`', '`\\r\\n\\r\\n`', '#error', 'end-of-stream marker', 'footer'])
      expect(ok).toContain(signal);
    expect(d).toContain('Page cursors are opaque');
    expect(
      op('get', '/v1/topics/{topic}/events').parameters.find((p: Json) => p.name === 'cursor').description,
    ).toContain('Opaque');
  });
});

/** The codes an operation's error response for `status` lists. */
function documentedCodes(o: Json, status: number): string[] {
  const description = String(o.responses[String(status)]?.description ?? '');
  return [...description.matchAll(/`(TG_[A-Z_]+)`: /g)].map((m) => m[1]!);
}

describe('each route documents the codes it answers with', () => {
  // What the routes' integration tests (events, hostile, expansion, paging, topics, cursors) see, one request each,
  // through an app that expands `status` on orders (for the guardrail).
  type Request = { method?: string; url: string; payload?: unknown; headers?: Record<string, string> };
  const json = (method: string, url: string, payload: unknown): Request => ({ method, url, payload });
  const text = (method: string, url: string): Request => ({
    method,
    url,
    payload: 'a=b',
    headers: { 'content-type': 'text/plain' },
  });
  const SESSIONS = (topic: string) => `/v1/topics/${topic}/sessions`;
  const SESSION_WINDOW = { since: '2026-11-01T00:00:00Z', until: '2026-11-02T00:00:00Z' };
  const PAID = { field: 'status', op: 'eq', value: 'paid' };
  const STREAM = '/v1/topics/orders/sessions/s1/streams/0';
  const load = (body: object) => json('PUT', '/v1/loads/l-codes', { target: 'lake.codes.clicks', ...body });
  const CASES: [string, Request, string][] = [
    ['GET /v1/topics/{topic}', { url: '/v1/topics/nope' }, 'TG_TOPIC_NOT_FOUND'],
    ['GET /v1/topics/{topic}', { url: '/v1/topics/%zz' }, 'TG_BAD_REQUEST'],
    ['GET /v1/topics/{topic}', { url: '/v1/topics/..' }, 'TG_NOT_FOUND'],
    ['GET /v1/topics/{topic}/events', { url: '/v1/topics/nope/events' }, 'TG_TOPIC_NOT_FOUND'],
    ['GET /v1/topics/{topic}/events', { url: '/v1/topics/orders/events?format=xml' }, 'TG_NOT_ACCEPTABLE'],
    ['GET /v1/topics/{topic}/events', { url: '/v1/topics/orders/events?nope=eq.1' }, 'TG_UNKNOWN_COLUMN'],
    ['GET /v1/topics/{topic}/events', { url: '/v1/topics/orders/events?key=between.1' }, 'TG_BAD_OPERATOR'],
    ['GET /v1/topics/{topic}/events', { url: '/v1/topics/orders/events?limit=1&limit=2' }, 'TG_BAD_REQUEST'],
    [
      'GET /v1/topics/{topic}/events',
      { url: '/v1/topics/orders_expanded/events?order_id=eq.99999999999999999999' },
      'TG_BAD_VALUE',
    ],
    ['GET /v1/topics/{topic}/events', { url: '/v1/topics/orders/events?since=2026-02-31T00:00:00Z' }, 'TG_BAD_TIME'],
    ['GET /v1/topics/{topic}/events', { url: '/v1/topics/orders/events?cursor=nope' }, 'TG_BAD_CURSOR'],
    ['GET /v1/topics/{topic}/events', { url: '/v1/topics/orders/events?limit=99999999' }, 'TG_TOO_EXPENSIVE'],
    ['GET /v1/topics/{topic}/events', { url: '/v1/topics/orders/events?status=eq.paid' }, 'TG_TIME_BOUND_REQUIRED'],
    ['POST /v1/topics/{topic}/query', json('POST', '/v1/topics/nope/query', {}), 'TG_TOPIC_NOT_FOUND'],
    ['POST /v1/topics/{topic}/query', text('POST', '/v1/topics/orders/query'), 'TG_UNSUPPORTED_MEDIA_TYPE'],
    [
      'POST /v1/topics/{topic}/query',
      { ...json('POST', '/v1/topics/orders/query', 'not json'), headers: { 'content-type': 'application/json' } },
      'TG_BAD_REQUEST',
    ],
    [
      'POST /v1/topics/{topic}/query',
      json('POST', '/v1/topics/orders/query', { select: ['x'.repeat(1_100_000)] }),
      'TG_PAYLOAD_TOO_LARGE',
    ],
    ['POST /v1/topics/{topic}/query', json('POST', '/v1/topics/orders/query', { bogus: 1 }), 'TG_BAD_REQUEST'],
    [
      'POST /v1/topics/{topic}/query',
      json('POST', '/v1/topics/orders/query', { where: { field: 'key', op: 'in', value: 'x' } }),
      'TG_BAD_VALUE',
    ],
    [
      'POST /v1/topics/{topic}/query',
      json('POST', '/v1/topics/orders/query', { where: { field: 'key', op: 'between', value: 1 } }),
      'TG_BAD_OPERATOR',
    ],
    [
      'POST /v1/topics/{topic}/query',
      json('POST', '/v1/topics/orders/query', { where: { field: 'key', op: 'in', value: Array(1001).fill('a') } }),
      'TG_TOO_EXPENSIVE',
    ],
    [
      'POST /v1/topics/{topic}/query',
      json('POST', '/v1/topics/orders/query', { select: ['nope'] }),
      'TG_UNKNOWN_COLUMN',
    ],
    ['POST /v1/topics/{topic}/query', json('POST', '/v1/topics/orders/query', { since: 'yesterday' }), 'TG_BAD_TIME'],
    ['POST /v1/topics/{topic}/query', json('POST', '/v1/topics/orders/query', { cursor: 'nope' }), 'TG_BAD_CURSOR'],
    ['POST /v1/topics/{topic}/query', json('POST', '/v1/topics/orders/query', { format: 'xml' }), 'TG_NOT_ACCEPTABLE'],
    [
      'POST /v1/topics/{topic}/query',
      json('POST', '/v1/topics/orders/query', { where: { field: 'status', op: 'eq', value: 'paid' } }),
      'TG_TIME_BOUND_REQUIRED',
    ],
    ['POST /v1/topics/{topic}/sessions', json('POST', SESSIONS('nope'), SESSION_WINDOW), 'TG_TOPIC_NOT_FOUND'],
    ['POST /v1/topics/{topic}/sessions', json('POST', SESSIONS('orders'), { since: 'x', until: 'y' }), 'TG_BAD_TIME'],
    ['POST /v1/topics/{topic}/sessions', json('POST', SESSIONS('orders'), { since: 'x' }), 'TG_BAD_REQUEST'],
    [
      'POST /v1/topics/{topic}/sessions',
      json('POST', SESSIONS('orders'), { ...SESSION_WINDOW, streams: 65 }),
      'TG_TOO_EXPENSIVE',
    ],
    [
      'POST /v1/topics/{topic}/sessions',
      json('POST', SESSIONS('orders'), { ...SESSION_WINDOW, select: ['nope'] }),
      'TG_UNKNOWN_COLUMN',
    ],
    [
      'POST /v1/topics/{topic}/sessions',
      json('POST', SESSIONS('orders'), { since: '2020-01-01', until: '2027-01-01', where: PAID }),
      'TG_TIME_BOUND_REQUIRED',
    ],
    ['POST /v1/topics/{topic}/sessions', text('POST', SESSIONS('orders')), 'TG_UNSUPPORTED_MEDIA_TYPE'],
    ['GET /v1/topics/{topic}/sessions/{session}/streams/{index}', { url: `${STREAM}?token=nope` }, 'TG_BAD_SESSION'],
    ['GET /v1/topics/{topic}/sessions/{session}/streams/{index}', { url: STREAM }, 'TG_BAD_SESSION'],
    [
      'GET /v1/topics/{topic}/sessions/{session}/streams/{index}.{suffix}',
      { url: `${STREAM}.parquet` },
      'TG_BAD_SESSION',
    ],
    ['GET /v1/topics/{topic}/events.{suffix}', { url: '/v1/topics/nope/events.parquet' }, 'TG_TOPIC_NOT_FOUND'],
    ['GET /v1/topics/{topic}/events.{suffix}', { url: '/v1/topics/orders/events.parquet?limit=5' }, 'TG_BAD_REQUEST'],
    ['GET /v1/topics/{topic}/events.{suffix}', { url: '/v1/topics/orders/events.csv?nope=eq.1' }, 'TG_UNKNOWN_COLUMN'],
    [
      'GET /v1/topics/{topic}/events.{suffix}',
      { url: '/v1/topics/orders/events.ndjson?since=2026-11-01T00:00:00Z&until=2099-01-01T00:00:00Z' },
      'TG_WINDOW_NOT_SETTLED',
    ],
    [
      'GET /v1/topics/{topic}/events.{suffix}',
      {
        url: '/v1/topics/orders/events.parquet?since=2026-11-01T00:00:00Z&until=2026-11-01T00:01:00Z',
        headers: { range: 'bytes=999999999-' },
      },
      'TG_RANGE_NOT_SATISFIABLE',
    ],
    ['GET /v1/topics/{topic}/schema/infer', { url: '/v1/topics/nope/schema/infer' }, 'TG_TOPIC_NOT_FOUND'],
    ['GET /v1/topics/{topic}/schema/infer', { url: '/v1/topics/orders_expanded/schema/infer' }, 'TG_BAD_REQUEST'],
    ['GET /v1/topics/{topic}/schema/infer', { url: '/v1/topics/orders/schema/infer?since=soon' }, 'TG_BAD_TIME'],
    [
      'GET /v1/topics/{topic}/schema/infer',
      { url: '/v1/topics/orders/schema/infer?sample=1000000' },
      'TG_TOO_EXPENSIVE',
    ],
    ['PUT /v1/cursors/{name}', json('PUT', '/v1/cursors/c-codes', { topic: 'nope' }), 'TG_TOPIC_NOT_FOUND'],
    ['PUT /v1/cursors/{name}', json('PUT', '/v1/cursors/c-codes', { topic: 'orders_expanded' }), 'TG_BAD_REQUEST'],
    ['PUT /v1/cursors/{name}', json('PUT', '/v1/cursors/c-codes', { topic: 'orders', start: 'soon' }), 'TG_BAD_TIME'],
    ['PUT /v1/cursors/{name}', json('PUT', '/v1/cursors/c-codes', { topic: 'orders', settle: 'soon' }), 'TG_BAD_VALUE'],
    [
      'PUT /v1/cursors/{name}',
      json('PUT', '/v1/cursors/c-codes', { topic: 'orders', select: ['nope'] }),
      'TG_UNKNOWN_COLUMN',
    ],
    [
      'PUT /v1/cursors/{name}',
      json('PUT', '/v1/cursors/c-codes', { topic: 'orders', filter: { field: 'status', op: 'eq', value: 'paid' } }),
      'TG_TIME_BOUND_REQUIRED',
    ],
    ['PUT /v1/cursors/{name}', json('PUT', '/v1/cursors/c-codes', { topic: 'clicks', start: 'latest' }), 'created'],
    ['PUT /v1/cursors/{name}', json('PUT', '/v1/cursors/c-codes', { topic: 'orders' }), 'TG_CURSOR_CONFLICT'],
    ['PUT /v1/cursors/{name}', text('PUT', '/v1/cursors/c-codes'), 'TG_UNSUPPORTED_MEDIA_TYPE'],
    ['GET /v1/cursors/{name}', { url: '/v1/cursors/c-nope' }, 'TG_CURSOR_NOT_FOUND'],
    ['GET /v1/cursors/{name}', { url: '/v1/cursors/bad%20name' }, 'TG_BAD_REQUEST'],
    ['POST /v1/cursors/{name}/read', { method: 'POST', url: '/v1/cursors/c-nope/read' }, 'TG_CURSOR_NOT_FOUND'],
    [
      'POST /v1/cursors/{name}/read',
      { method: 'POST', url: '/v1/cursors/c-codes/read?format=xml' },
      'TG_NOT_ACCEPTABLE',
    ],
    ['POST /v1/cursors/{name}/read', text('POST', '/v1/cursors/c-codes/read'), 'TG_UNSUPPORTED_MEDIA_TYPE'],
    ['POST /v1/cursors/{name}/commit', json('POST', '/v1/cursors/c-codes/commit', { batch: 'nope' }), 'TG_BAD_BATCH'],
    ['POST /v1/cursors/{name}/commit', json('POST', '/v1/cursors/c-codes/commit', {}), 'TG_BAD_REQUEST'],
    ['POST /v1/cursors/{name}/seek', json('POST', '/v1/cursors/c-codes/seek', { to: 'soon' }), 'TG_BAD_TIME'],
    ['POST /v1/cursors/{name}/seek', json('POST', '/v1/cursors/c-nope/seek', { to: 'latest' }), 'TG_CURSOR_NOT_FOUND'],
    ['GET /v1/cursors/{name}/history', { url: '/v1/cursors/c-codes/history?limit=0' }, 'TG_BAD_REQUEST'],
    ['GET /v1/cursors/{name}/history', { url: '/v1/cursors/c-nope/history' }, 'TG_CURSOR_NOT_FOUND'],
    ['DELETE /v1/cursors/{name}', text('DELETE', '/v1/cursors/c-codes'), 'TG_UNSUPPORTED_MEDIA_TYPE'],
    ['DELETE /v1/cursors/{name}', { method: 'DELETE', url: '/v1/cursors/c-codes' }, 'deleted'],
    ['DELETE /v1/cursors/{name}', { method: 'DELETE', url: '/v1/cursors/c-codes' }, 'TG_CURSOR_NOT_FOUND'],
    ['PUT /v1/loads/{name}', load({ topic: 'nope' }), 'TG_TOPIC_NOT_FOUND'],
    ['PUT /v1/loads/{name}', load({ topic: 'orders', target: 'lake.t' }), 'TG_BAD_TARGET'],
    ['PUT /v1/loads/{name}', load({ topic: 'orders', start: 'soon' }), 'TG_BAD_TIME'],
    ['PUT /v1/loads/{name}', load({ topic: 'orders', select: ['nope'] }), 'TG_UNKNOWN_COLUMN'],
    ['PUT /v1/loads/{name}', load({ topic: 'orders', where: PAID }), 'TG_TIME_BOUND_REQUIRED'],
    ['PUT /v1/loads/{name}', load({ topic: 'clicks' }), 'created'],
    ['PUT /v1/loads/{name}', load({ topic: 'orders' }), 'TG_LOAD_CONFLICT'],
    [
      'PUT /v1/loads/{name}',
      json('PUT', '/v1/loads/l-taken', { topic: 'clicks', target: 'lake.codes.clicks' }),
      'TG_LOAD_TARGET_TAKEN',
    ],
    ['PUT /v1/loads/{name}', text('PUT', '/v1/loads/l-codes'), 'TG_UNSUPPORTED_MEDIA_TYPE'],
    ['GET /v1/loads/{name}', { url: '/v1/loads/l-nope' }, 'TG_LOAD_NOT_FOUND'],
    ['POST /v1/loads/{name}/runs', json('POST', '/v1/loads/l-nope/runs', {}), 'TG_LOAD_NOT_FOUND'],
    ['POST /v1/loads/{name}/runs', json('POST', '/v1/loads/l-codes/runs', { until: 'soon' }), 'TG_BAD_TIME'],
    ['POST /v1/loads/{name}/runs', text('POST', '/v1/loads/l-codes/runs'), 'TG_UNSUPPORTED_MEDIA_TYPE'],
    ['GET /v1/loads/{name}/runs', { url: '/v1/loads/l-codes/runs?limit=0' }, 'TG_BAD_REQUEST'],
    ['GET /v1/loads/{name}/runs', { url: '/v1/loads/l-nope/runs' }, 'TG_LOAD_NOT_FOUND'],
    ['DELETE /v1/loads/{name}', text('DELETE', '/v1/loads/l-codes'), 'TG_UNSUPPORTED_MEDIA_TYPE'],
    ['DELETE /v1/loads/{name}', { method: 'DELETE', url: '/v1/loads/l-codes' }, 'deleted'],
    ['DELETE /v1/loads/{name}', { method: 'DELETE', url: '/v1/loads/l-codes' }, 'TG_LOAD_NOT_FOUND'],
    // The explorer's page of a topic takes any topic id (the page's API calls check it), within the id's length.
    ['GET /explore/{topic}', { url: `/explore/${'x'.repeat(600)}` }, 'TG_BAD_REQUEST'],
  ];

  let codesApp: FastifyInstance;
  beforeAll(async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'topicgate-codes-')), 'topics.yaml');
    writeFileSync(file, 'topics:\n  orders:\n    expand:\n      status: { path: "$.status", type: varchar }\n');
    codesApp = await testApp({ TOPICGATE_CONFIG: file });
  });
  afterAll(() => codesApp.close());

  it('each error a request meets is listed under its status by the operation it called', async () => {
    const seen = new Map<string, Set<string>>();
    // In order: the cursor cases create, conflict with and delete one cursor.
    for (const [operation, request, expected] of CASES) {
      const res = await codesApp.inject(request as never);
      const what = `${operation}: ${JSON.stringify(request).slice(0, 200)} -> ${res.statusCode} ${res.body.slice(0, 300)}`;
      if (expected === 'created' || expected === 'deleted') {
        expect(res.statusCode, what).toBe(expected === 'created' ? 201 : 204);
        continue;
      }
      expect(res.json().error.code, what).toBe(expected);
      const [method, path] = operation.split(' ') as [string, string];
      expect(documentedCodes(op(method.toLowerCase(), path), res.statusCode), what).toContain(expected);
      seen.set(operation, (seen.get(operation) ?? new Set()).add(expected));
    }
    // The table reaches every operation that takes a request from a client.
    expect([...seen.keys()].sort()).toEqual(
      operations
        .filter((o) => o.path.includes('{'))
        .map((o) => `${o.method.toUpperCase()} ${o.path}`)
        .sort(),
    );
  });

  it('a code is listed only by the operations where its cause can happen', () => {
    const STREAM_READ = 'GET /v1/topics/{topic}/sessions/{session}/streams/{index}';
    const STREAM_FILE = 'GET /v1/topics/{topic}/sessions/{session}/streams/{index}.{suffix}';
    const FILES = ['GET /v1/topics/{topic}/events.{suffix}', STREAM_FILE];
    const SESSION = 'POST /v1/topics/{topic}/sessions';
    const READS = [
      'GET /v1/topics/{topic}/events',
      'POST /v1/topics/{topic}/query',
      'POST /v1/cursors/{name}/read',
      STREAM_READ,
    ];
    // Operations that run no Trino query.
    const NO_TRINO = [
      'GET /healthz',
      'GET /metrics',
      'POST /v1/cursors/{name}/commit',
      'DELETE /v1/cursors/{name}',
      'GET /v1/cursors/{name}/history',
      'DELETE /v1/loads/{name}',
      'GET /v1/loads/{name}/runs',
    ];
    // Loads are planned when they are defined, run and their lag counted.
    const PLANNED_LOAD = ['PUT /v1/loads/{name}', 'GET /v1/loads/{name}', 'POST /v1/loads/{name}/runs'];
    const PLANNED_CURSOR = [
      'PUT /v1/cursors/{name}',
      'GET /v1/cursors/{name}',
      'POST /v1/cursors/{name}/read',
      'POST /v1/cursors/{name}/seek',
    ];
    const WHERE: Partial<Record<ErrorCode, (name: string) => boolean>> = {
      TG_NOT_ACCEPTABLE: (n) => READS.includes(n),
      TG_BAD_CURSOR: (n) => READS.slice(0, 2).includes(n),
      // Cursors are planned when they are created, sought, read and their lag counted.
      TG_TIME_BOUND_REQUIRED: (n) =>
        READS.slice(0, 2).includes(n) ||
        PLANNED_CURSOR.includes(n) ||
        PLANNED_LOAD.includes(n) ||
        [SESSION, STREAM_READ, ...FILES].includes(n),
      TG_WINDOW_NOT_SETTLED: (n) => FILES.includes(n),
      TG_RANGE_NOT_SATISFIABLE: (n) => FILES.includes(n),
      TG_NOT_LOADABLE: (n) => PLANNED_LOAD.includes(n),
      TG_BAD_TARGET: (n) => n === 'PUT /v1/loads/{name}' || n === 'POST /v1/loads/{name}/runs',
      TG_LOAD_NOT_FOUND: (n) => n.includes('/v1/loads/') && !n.startsWith('PUT '),
      // PUT: another definition; any other load route: an admin naming a load several principals have.
      TG_LOAD_CONFLICT: (n) => n.includes('/v1/loads/'),
      TG_LOAD_TARGET_TAKEN: (n) => n === 'PUT /v1/loads/{name}' || n === 'POST /v1/loads/{name}/runs',
      TG_LOAD_RUNNING: (n) => n === 'POST /v1/loads/{name}/runs',
      TG_BAD_SESSION: (n) => n === STREAM_READ || n === STREAM_FILE,
      TG_SESSION_EXPIRED: (n) => n === STREAM_READ || n === STREAM_FILE,
      TG_PAYLOAD_TOO_LARGE: (n) => !n.startsWith('GET '),
      TG_UNSUPPORTED_MEDIA_TYPE: (n) => !n.startsWith('GET '),
      TG_CURSOR_NOT_FOUND: (n) => n.includes('/v1/cursors/') && !n.startsWith('PUT '),
      // PUT: another definition; any other cursor route: an admin naming a cursor several principals have.
      TG_CURSOR_CONFLICT: (n) => n.includes('/v1/cursors/'),
      TG_BAD_BATCH: (n) => n === 'POST /v1/cursors/{name}/commit',
      TG_STALE_BATCH: (n) => ['POST /v1/cursors/{name}/read', 'POST /v1/cursors/{name}/commit'].includes(n),
      // Any cursor route: a cursor's owner may have lost sight of its topic.
      TG_TOPIC_NOT_FOUND: (n) => n.includes('{topic}') || n.includes('/v1/cursors/') || n.includes('/v1/loads/'),
      // An action is granted per topic (the topic routes and the cursors, on their topic); and Trino's own access
      // control may deny any query the gateway sends, the catalog listing included.
      TG_FORBIDDEN: (n) =>
        n.includes('{topic}') || n.includes('/v1/cursors/') || n.includes('/v1/loads/') || !NO_TRINO.includes(n),
      // Health probes are always public (API.md "Access": `public` defaults to [health]).
      TG_UNAUTHENTICATED: (n) => n !== 'GET /healthz' && n !== 'GET /readyz',
      TG_TRINO_FAILED: (n) => !NO_TRINO.includes(n),
      TG_TRINO_UNAVAILABLE: (n) => !NO_TRINO.includes(n),
      TG_TIMEOUT: (n) => !NO_TRINO.includes(n) && n !== 'GET /readyz',
      TG_TRINO_AUTH: (n) => !NO_TRINO.includes(n),
      // Every cursor route reaches the cursor store; readiness checks it; and with a PostgreSQL store every limited
      // route may count its request there (access/shared-quotas.ts): all but the health probes, which are not.
      TG_STATE_UNAVAILABLE: (n) => n !== 'GET /healthz',
    };
    for (const o of operations) {
      const name = `${o.method.toUpperCase()} ${o.path}`;
      const codes = Object.keys(o.op.responses as Json)
        .filter((s) => Number(s) >= 400)
        .flatMap((s) => documentedCodes(o.op, Number(s)) as ErrorCode[]);
      for (const code of codes) expect(WHERE[code]?.(name) ?? true, `${name} lists ${code}`).toBe(true);
    }
  });
});

describe('the examples are the demo data', () => {
  const events = op('get', '/v1/topics/{topic}/events');

  const tryLinks = [...(doc.info.description as string).matchAll(/\]\((\/v1\/topics\/[^)]+)\)/g)].map((m) => m[1]!);

  it('the description links queries on orders, clicks and s3_events', () => {
    expect(tryLinks.map((l) => l.split('/')[3])).toEqual([
      'orders',
      'clicks',
      's3_events',
      'orders',
      'orders',
      's3_events',
    ]);
  });

  it.each(tryLinks)('the description link %s answers with complete rows', async (link) => {
    const res = await app.inject(link);
    expect(res.statusCode, res.body).toBe(200);
    const format = new URL(link, 'http://x').searchParams.get('format') ?? 'json';
    if (format === 'json')
      expect(res.json()).toMatchObject({ complete: true, rows: expect.arrayContaining([expect.anything()]) });
    if (format === 'ndjson') expect(res.body).toMatch(/^\{.*\n\n$/s);
    // CSV: plain RFC 4180, nothing after the last row (no empty line, no #error line).
    if (format === 'csv') expect(res.body).toMatch(/^key,value,.*[^\n]\r\n$/s);
    if (format === 'csv') expect(res.body).not.toContain('\n#error ');
    if (link.includes('s3_events')) expect(res.body).toContain('18014398509481985');
  });

  it('the GET example parameters, sent as they are, give the documented JSON example exactly', async () => {
    const qs = new URLSearchParams();
    let topic = '';
    for (const p of events.parameters as Json[]) {
      if (p.example === undefined) continue;
      if (p.in === 'path') topic = p.example;
      else if (p.style === 'form' && p.explode)
        for (const [k, v] of Object.entries(p.example as Json)) qs.append(k, String(v));
      else qs.append(p.name, String(p.example));
    }
    expect(topic).toBe('orders');
    const res = await app.inject(`/v1/topics/${topic}/events?${qs}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual(events.responses['200'].content['application/json'].schema.example);
    expect(res.body).toContain('"trace_id":9007199254740997'); // exact beyond 2^53
    qs.set('format', 'ndjson');
    const ndjson = await app.inject(`/v1/topics/${topic}/events?${qs}`);
    const lines = ndjson.body.split('\n');
    expect(lines.slice(-2)).toEqual(['', '']); // complete: one extra empty line
    expect(JSON.parse(lines[1]!)).toEqual({
      key: 'order-1000002',
      value: '\\xc3287b2262726f6b656e223a35',
      timestamp_broker: '2026-11-01T00:00:00.000Z',
    });
    qs.set('format', 'csv');
    const csv = await app.inject(`/v1/topics/${topic}/events?${qs}`);
    expect(csv.body.split('\r\n')[2]).toBe('order-1000002,\\xc3287b2262726f6b656e223a35,2026-11-01T00:00:00.000Z');
  });

  it.each(
    Object.entries(op('post', '/v1/topics/{topic}/query').requestBody.content['application/json'].examples as Json),
  )('POST query %s runs on orders', async (_name, example) => {
    const res = await app.inject({ method: 'POST', url: '/v1/topics/orders/query', payload: (example as Json).value });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().complete).toBe(true);
    expect(res.json().rows.length).toBeGreaterThan(0);
  });

  it.each(
    Object.entries(op('post', '/v1/topics/{topic}/sessions').requestBody.content['application/json'].examples as Json),
  )('POST session %s runs on orders, and its first stream reads', async (_name, example) => {
    const res = await app.inject({
      method: 'POST',
      url: '/v1/topics/orders/sessions',
      payload: (example as Json).value,
    });
    expect(res.statusCode, res.body).toBe(201);
    const stream = await app.inject(`${res.json().streams[0].url}&format=json`);
    expect(stream.statusCode, stream.body).toBe(200);
    expect(stream.json().complete).toBe(true);
    expect(stream.json().rows.length).toBeGreaterThan(0);
  });
});

describe('Swagger UI at /docs works offline', () => {
  it('the page loads only same-origin assets, each served', async () => {
    const res = await app.inject('/docs/');
    expect(res.statusCode).toBe(200);
    const refs = [...res.body.matchAll(/(?:src|href)="([^"]*)"/g)].map((m) => m[1]!);
    expect(refs.length).toBeGreaterThanOrEqual(5);
    for (const ref of refs) {
      expect(ref, 'a relative path on this server').toMatch(/^\.\/static\/[\w./-]+$/);
      const asset = await app.inject(`/docs/${ref.slice(2)}`);
      expect(asset.statusCode, ref).toBe(200);
    }
    // The browser may load nothing from elsewhere.
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("default-src 'self'");
    expect(csp).not.toMatch(/https?:|\*/);
  });

  it('the initializer loads the spec from this server, has no validator, and wraps the response view', async () => {
    const withoutComments = (js: string) => js.replace(/^\s*(\/\/|\/?\*).*$/gm, ''); // comments may cite URLs; code may not
    const code = withoutComments((await app.inject('/docs/static/swagger-initializer.js')).body);
    expect(code).not.toMatch(/https?:\/\//);
    expect(code).toContain('"validatorUrl":null');
    expect(code).toContain("resolveUrl('./json')");
    // The response view is wrapped by the plugin of the static asset, which the page loads from this server.
    expect(code).toContain('"plugins":[window.topicgateSwaggerUi]');
    expect((await app.inject('/docs/')).body).toContain('src="./static/theme/topicgate-swagger-ui.js"');
    const asset = await app.inject('/docs/static/theme/topicgate-swagger-ui.js');
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['content-type']).toMatch(/^application\/javascript/);
    const plugin = withoutComments(asset.body);
    expect(plugin).not.toMatch(/https?:\/\//);
    expect(plugin).toContain('window.topicgateSwaggerUi = (system) =>');
    expect(plugin).toContain('SwaggerUIBundle.plugins.DownloadUrl');
    expect(plugin).toContain('wrapComponents');
  });
});

describe('/docs/topics', () => {
  it('lists every served topic with its columns and Trino types, linked from the document', async () => {
    expect(doc.info.description).toContain('(/docs/topics)');
    const res = await app.inject('/docs/topics');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).toContain("default-src 'none'");
    for (const t of ['orders', 'clicks', 's3_events', 'orders_expanded'])
      expect(res.body).toContain(`<section id="topic-${t}">`);
    expect(res.body).toContain(
      '<tr><td><code>headers</code></td><td><code>array(row(key varchar, value varbinary))</code></td><td>table</td><td><code>headers=is.null</code> <code>headers=cs.{a,b}</code> <code>headers=ov.{a,b}</code></td></tr>',
    );
    expect(res.body).toContain(
      '<tr><td><code>amount</code></td><td><code>decimal(12,2)</code></td><td>table</td><td><code>amount=gt.9.99</code>',
    );
    expect(res.body).toContain('<code>key=eq.\\xff00</code>');
  });

  it('shows JSON arrow paths on each demo topic, and every example link runs and finds rows', async () => {
    const page = (await app.inject('/docs/topics')).body;
    const links = [...page.matchAll(/<a href="([^"]*\/events\?[^"]*-&gt;[^"]*)">/g)].map((m) =>
      m[1]!.replaceAll('&amp;', '&').replaceAll('&gt;', '>').replaceAll('&quot;', '"'),
    );
    expect(links.length).toBe(Object.values(PATH_EXAMPLES).flat().length);
    for (const url of links) {
      const res = await app.inject(url);
      expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
      expect(res.json().rows.length, url).toBeGreaterThan(0);
    }
    expect(page).toContain('<code>value-&gt;&gt;field=eq.text</code>');
  });

  it('shows expanded fields from the config file, with their JSON path, and the filters work', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'topicgate-docs-'));
    const file = join(dir, 'topics.yaml');
    writeFileSync(
      file,
      'topics:\n  orders:\n    expand:\n      status: { path: "$.status", type: varchar }\n' +
        '      country: { path: "$.customer.address.country", type: varchar }\n      order_id: { path: "$.order_id", type: bigint }\n',
    );
    const withConfig = await testApp({ TOPICGATE_CONFIG: file });
    try {
      const page = (await withConfig.inject('/docs/topics')).body;
      const orders = page.slice(
        page.indexOf('<section id="topic-orders">'),
        page.indexOf('</section>', page.indexOf('<section id="topic-orders">')),
      );
      expect(orders).toContain(
        '<tr><td><code>country</code></td><td><code>varchar</code></td><td>expansion of <code>value</code> at <code>$.customer.address.country</code>; filters on it need <code>since</code></td>',
      );
      expect(orders).toContain('<code>order_id=in.(1,2,3)</code>');
      // The filters the page shows are accepted as shown.
      const res = await withConfig.inject(
        '/v1/topics/orders/events?country=eq.BR&order_id=in.(1000002,1000009)&since=2026-11-01T00:00:00Z&until=2026-11-01T01:00:00Z&select=key,country',
      );
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().rows).toEqual([
        { key: 'order-1000002', country: 'BR' },
        { key: 'order-1000009', country: 'BR' },
      ]);
    } finally {
      await withConfig.close();
    }
  });

  it('escapes every name it shows', () => {
    const evil = '<script>alert("x")</script>&\'';
    const html = renderTopicDocs(
      new Map(
        [
          {
            id: evil,
            schema: `s${evil}`,
            table: `t${evil}`,
            kind: 'topic',
            columns: [
              { name: 'key', type: 'varbinary' },
              { name: 'value', type: 'varbinary' },
              { name: 'timestamp_broker', type: 'timestamp(3)' },
              { name: `c${evil}`, type: 'varchar' },
            ],
          } as const,
        ].map((t) => [t.id, { ...t, columns: [...t.columns] }]),
      ),
      {
        catalog: `cat${evil}`,
        topics: { [evil]: { expand: { f: { path: `$["${evil.replaceAll('"', '\\"')}"]`, type: 'varchar' } } } },
      },
    );
    expect(html).not.toContain('<script');
    expect(html).not.toContain(`${evil}`);
    expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;');
    expect(html).toContain(
      '<a href="/v1/topics/%3Cscript%3Ealert(%22x%22)%3C%2Fscript%3E%26\'/events?limit=5">'.replace("'", '&#39;'),
    );
  });
});

describe('/docs/topics and native expansion tables', () => {
  it('links a topic to its native expansion table and says why there is no join', async () => {
    const app = await testApp();
    try {
      const html = (await app.inject('/docs/topics')).body;
      expect(html).toContain('Native expansion table: <a href="#topic-orders_expanded">orders_expanded</a>.');
      expect(html).toContain('has no key or timestamp_broker');
      expect(html).toContain('The native expansion table of topic <code>orders</code>');
    } finally {
      await app.close();
    }
  });
});
