/**
 * The OpenAPI document, generated from the routes' own TypeBox schemas (@fastify/swagger), served at
 * /openapi.json and committed as openapi/openapi.json (`npm run openapi`; test/integration/openapi.test.ts fails
 * on drift), with Swagger UI at /docs from the package's bundled assets (works offline: no external URL, a CSP
 * that allows only this origin, no validator badge).
 */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { ERROR_CATALOG, type ErrorCode } from '../errors.js';
import { ErrorSchema } from '../routes/events-schema.js';

type Json = Record<string, unknown>;

/** Marks an operation whose querystring takes any other parameter (column filters); see addFreeFormQuery. */
const FREE_FORM = 'x-topicgate-free-form-query';

const errorTable = (Object.keys(ERROR_CATALOG) as ErrorCode[])
  .map((code) => `| \`${code}\` | ${ERROR_CATALOG[code].status} | ${ERROR_CATALOG[code].meaning} |`)
  .join('\n');

export const DESCRIPTION = `Query VAST Event Broker topics as tables: filtered, aggregated, paged reads through Trino, with filters
pushed down to storage where it can evaluate them.

**Start here:** [the served topics, their columns and expanded fields](/docs/topics) (built from the live catalog: every
column you can select, filter, order or group by), then \`GET /v1/topics/{topic}/events\` below ("Try it out" comes
filled in with a query on the demo data). This document is also at [/openapi.json](/openapi.json).

## Try it on the demo topics
- [\`/v1/topics/orders/events?limit=3&since=2026-11-01T00:00:00Z&until=2026-11-01T00:01:00Z&key=eq.order-1000002\`](/v1/topics/orders/events?limit=3&since=2026-11-01T00:00:00Z&until=2026-11-01T00:01:00Z&key=eq.order-1000002):
  two events of one order, one with a JSON payload, one whose bytes are not UTF-8
- [\`/v1/topics/clicks/events?key=eq.u42&limit=5&format=ndjson\`](/v1/topics/clicks/events?key=eq.u42&limit=5&format=ndjson):
  the clicks of one user, as NDJSON
- [\`/v1/topics/s3_events/events?limit=1&format=csv\`](/v1/topics/s3_events/events?limit=1&format=csv): an S3 event
  notification whose object \`size\` (18014398509481985) keeps every digit
- \`POST /v1/topics/orders/query\` with the examples below: counts per hour, latest value per key, dedupe

## Filters
Any query parameter that is not a reserved one is a filter on the column of that name, in PostgREST's grammar:
\`col=[not.]op.value\` with \`eq\`, \`neq\`, \`gt\`, \`gte\`, \`lt\`, \`lte\`, \`in.(a,b,"c,d")\`, \`like\` / \`ilike\` (\`*\` is the
wildcard), \`is.null\`, \`is.true\`, \`is.false\`; boolean groups \`or=(a.eq.1,b.lt.2)\`, \`and=(...)\`, \`not.or=(...)\`.
\`since\` (inclusive) and \`until\` (exclusive) bound \`timestamp_broker\`: ISO-8601 with a zone, or \`-15m\`, \`-2h\`, \`-7d\`, \`now\`.
In Swagger UI, type filters into the \`filters\` object: \`{"key": "eq.order-1000002"}\` is sent as \`key=eq.order-1000002\`.

## Text representation rules (JSON, NDJSON, CSV)
- **Bytes** (\`varbinary\`: \`key\`, \`value\`, and varbinary inside arrays, rows, maps) are shown, in this order of preference:
  1. **as JSON** when they are UTF-8 text of a JSON object or array: embedded as a JSON value in JSON and NDJSON (every digit
     of its numbers kept as sent: \`9007199254740993\` is not rounded), its JSON text in CSV; multi-line JSON is written on one line;
  2. **as text** when they are valid UTF-8 (a JSON string; the cell text in CSV);
  3. **as \`\\x\` followed by lowercase hex**, two digits per byte (PostgreSQL's \`bytea\` notation), when they are not valid
     UTF-8, so nothing is ever replaced by U+FFFD: bytes \`ff 00 41\` are \`\\xff0041\` (in a JSON string: \`"\\\\xff0041"\`). UTF-8 text
     that itself starts with \`\\x\` is written in hex too, so a value starting with \`\\x\` always means hex.
  A JSON scalar payload (\`42\`, \`"a"\`, \`true\`) is shown as text, so its type cannot change from one event to the next.
  Filters on varbinary columns accept the same notation: \`key=eq.\\xff0000000000000001\`.
- **Integers**, BIGINT included: exact digits as a JSON number, even beyond 2^53 (parse with a big-number aware JSON reader).
- **Decimals**: their exact text with their scale (\`12.30\`), as a JSON number. **double/real** NaN and infinities: the
  strings \`"NaN"\`, \`"Infinity"\`, \`"-Infinity"\`.
- **Timestamps**: ISO-8601 UTC with every fractional digit Trino has: \`2026-11-01T00:00:00.000Z\`. **Dates, times,
  intervals, varchar**: their text. **json** columns: embedded as JSON.
- **array** -> JSON array, **row** -> JSON object keyed by field name, **map** -> JSON object; in CSV, their JSON text.
- **CSV**: RFC 4180, header row, CRLF; an empty unquoted field is NULL, \`""\` is the empty string.
- **Arrow** carries the values natively: varbinary as Binary (exact bytes), bigint as Int64, decimal as Decimal128,
  timestamps as Timestamp in UTC; each field's metadata has \`trino.type\`.

## Complete or visibly not
An error after the first byte never looks like success:
- **JSON**: the body ends with \`"complete": true\`; a cut body still parses and ends with \`"complete": false, "error": {...}\`.
- **NDJSON**: a complete body ends with one extra empty line (\`\\n\\n\`); a cut one ends with a line \`{"error": {...}}\`.
- **CSV**: a complete body ends with one extra empty line (\`\\r\\n\\r\\n\`); a cut one ends with a line \`#error {...}\`.
- **Arrow**: a complete stream ends with the end-of-stream marker; a cut one is aborted without it.

## Paging
Each response holds at most \`limit\` rows (default 100). The next page: \`next\` in the JSON body (a URL for GET, a token
for POST; \`null\` on the last page), or the \`Link: <...>; rel="next"\` and \`Topicgate-Next-Cursor\` headers in the other
formats. **Page cursors are opaque**: send them back unchanged, with the same query; their content is not part of the
contract and may change between versions. Following \`next\` over a fixed query returns every matching row exactly once,
ties and identical duplicates included. Responses carry the Trino query id in \`X-Trino-Query-Id\`.

## Errors
Every failure has one shape: \`{"error": {"code": "TG_...", "message": "...", "status": 400, "details"?: ..., "queryId"?: "..."}}\`;
429 and 503 carry \`Retry-After\`. Codes are stable and never reused:

| code | status | meaning |
| --- | --- | --- |
${errorTable}
`;

/** Browser code for Swagger UI (runs in the page; plain ES5, built with new Function so no bundler helper leaks in). */
const UI_PLUGIN_SOURCE = `
  var React = system.React;
  function responseBody(Original, sys) {
    return function (props) {
      var type = String(props.contentType || '').toLowerCase();
      // JSON and NDJSON are shown as the exact text received: Swagger UI would re-serialize JSON through
      // JSON.parse, rounding integers beyond 2^53, and cannot parse NDJSON at all.
      if (/^application\\/(json|x-ndjson)/.test(type) && typeof props.content === 'string') {
        var ext = type.indexOf('ndjson') >= 0 ? 'ndjson' : 'json';
        var Code = sys.getComponent('HighlightCode', true);
        return React.createElement('div', null, React.createElement('h5', null, 'Response body'),
          React.createElement(Code, { language: ext === 'json' ? 'json' : null, downloadable: true, fileName: 'response.' + ext, canCopy: true }, props.content));
      }
      // Arrow is binary: offer it as a download.
      if (/^application\\/vnd\\.apache\\.arrow/.test(type)) {
        var headers = Object.assign({ 'content-disposition': 'attachment; filename="response.arrow"' }, props.headers);
        return React.createElement(Original, Object.assign({}, props, { headers: headers }));
      }
      return React.createElement(Original, props);
    };
  }
  return [SwaggerUIBundle.plugins.DownloadUrl, { wrapComponents: { responseBody: responseBody } }];
`;

/**
 * Makes a JSON Schema (TypeBox) an OpenAPI 3.0 schema, in place and recursively through subschemas only (never into
 * example values): `examples: [x]` -> `example: x`, `const` -> `enum`, and a union of enums of one type -> one enum
 * (so Swagger UI shows a drop-down).
 */
function normalizeSchema(schema: unknown): void {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return;
  const s = schema as Json;
  if (Array.isArray(s.examples)) {
    if (s.example === undefined && s.examples.length) s.example = s.examples[0];
    delete s.examples;
  }
  if ('const' in s) {
    s.enum = [s.const];
    delete s.const;
  }
  for (const key of ['properties', 'patternProperties']) {
    if (s[key] && typeof s[key] === 'object') Object.values(s[key] as Json).forEach(normalizeSchema);
  }
  for (const key of ['items', 'additionalProperties', 'not']) normalizeSchema(s[key]);
  for (const key of ['anyOf', 'oneOf', 'allOf'])
    if (Array.isArray(s[key])) (s[key] as unknown[]).forEach(normalizeSchema);
  const items = s.anyOf as Json[] | undefined;
  if (
    items?.length &&
    items.every((i) => Array.isArray(i.enum) && i.type === items[0]!.type && Object.keys(i).length === 2)
  ) {
    delete s.anyOf;
    s.type = items[0]!.type;
    s.enum = items.flatMap((i) => i.enum as unknown[]);
  }
}

/** Every schema position of an operation: parameters, request body, responses. */
function operationSchemas(op: Json): unknown[] {
  const out: unknown[] = [];
  for (const p of (op.parameters as Json[] | undefined) ?? []) out.push(p.schema);
  const contents = [op.requestBody, ...Object.values((op.responses as Json | undefined) ?? {})].map(
    (x) => (x as Json | undefined)?.content,
  );
  for (const c of contents)
    for (const media of Object.values((c as Json | undefined) ?? {})) out.push((media as Json).schema);
  return out;
}

/**
 * Error responses share one schema (components.schemas.Error); their descriptions list the codes. Every error is
 * JSON (plugins/errors.ts), whatever media types a route's success has (`produces` applies to all its responses).
 */
function shareErrorSchema(op: Json): void {
  for (const [status, response] of Object.entries((op.responses as Json | undefined) ?? {})) {
    const r = response as Json;
    if (Number(status) >= 400 && r.content)
      r.content = { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } };
  }
}

/**
 * OpenAPI cannot name parameters it does not know: a querystring open to any other parameter (the column filters)
 * becomes one exploded form object, `{"key": "eq.x"}` -> `key=eq.x`, which Swagger UI and generators understand.
 */
function addFreeFormQuery(op: Json): void {
  const free = op[FREE_FORM] as { description?: string; example?: unknown } | undefined;
  if (!free) return;
  delete op[FREE_FORM];
  // Path parameters first: the order a reader fills them in.
  const parameters = ((op.parameters as Json[] | undefined) ?? [])
    .slice()
    .sort((a, b) => Number(b.in === 'path') - Number(a.in === 'path'));
  parameters.push({
    name: 'filters',
    in: 'query',
    required: false,
    style: 'form',
    explode: true,
    description: `${free.description ?? ''} (Sent as separate parameters: this object's name is not sent.)`.trim(),
    schema: { type: 'object', additionalProperties: { type: 'string' } },
    ...(free.example !== undefined ? { example: free.example } : {}),
  });
  op.parameters = parameters;
}

/**
 * OpenAPI links from a PUT that creates a resource to the operations on and under its path (`PUT /v1/cursors/{name}`
 * -> read, commit, seek, history, delete), so readers and stateful test tools see how the calls chain.
 */
function addCreationLinks(paths: Json): void {
  for (const [path, item] of Object.entries(paths)) {
    const put = (item as Json).put as Json | undefined;
    const params = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
    if (!put || params.length === 0) continue;
    const links: Json = {};
    for (const [other, otherItem] of Object.entries(paths)) {
      if (other !== path && !other.startsWith(`${path}/`)) continue;
      for (const method of Object.keys(otherItem as Json).filter((m) => m !== 'put')) {
        const ref = `#/paths/${other.replaceAll('~', '~0').replaceAll('/', '~1')}/${method}`;
        const name = `${method}${other.slice(path.length).replace(/\W+/g, '_')}`.replace(/_$/, '');
        links[name] = {
          operationRef: ref,
          parameters: Object.fromEntries(params.map((p) => [p, `$request.path.${p}`])),
        };
      }
    }
    for (const [status, response] of Object.entries(put.responses as Json)) {
      if (/^2\d\d$/.test(status) && Object.keys(links).length) (response as Json).links = links;
    }
  }
}

/** The document as committed: shared error schema, 3.0-style examples, free-form filters, the generated marker. */
export function finishDocument(doc: Json): Json {
  const components = (doc.components ?? {}) as Json;
  const schemas = ((components.schemas as Json | undefined) ?? {}) as Json;
  schemas.Error = JSON.parse(JSON.stringify(ErrorSchema)) as Json;
  doc.components = { ...components, schemas };
  for (const path of Object.values((doc.paths as Json | undefined) ?? {})) {
    for (const op of Object.values(path as Json) as Json[]) {
      addFreeFormQuery(op);
      shareErrorSchema(op);
      operationSchemas(op).forEach(normalizeSchema);
    }
  }
  Object.values(schemas).forEach(normalizeSchema);
  addCreationLinks((doc.paths ?? {}) as Json);
  // First member, as near the top as JSON allows (JSON has no comments).
  return { 'x-generated': 'by npm run openapi (scripts/openapi.ts) from the route schemas; do not edit', ...doc };
}

async function openapiPlugin(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: { title: 'topicgate', version: '0.1.0', description: DESCRIPTION },
      tags: [
        { name: 'topics', description: 'What topics exist and what is in them' },
        { name: 'events', description: 'Reading events: filters, paging, formats, explain' },
        { name: 'cursors', description: 'Named cursors for scheduled batch loaders' },
        { name: 'operations', description: 'Health, readiness, metrics' },
        { name: 'docs', description: 'Documentation built from the live catalog' },
      ],
    },
    // Shared schemas (TypeBox `$id`) keep their names in components.schemas.
    refResolver: {
      buildLocalReference: (json, _base, _fragment, i) =>
        typeof json.$id === 'string' && /^[A-Z]\w*$/.test(json.$id) ? json.$id : `def-${i}`,
    },
    transform: ({ schema, url }) => {
      const qs = (schema as { querystring?: Json } | undefined)?.querystring;
      if (!qs?.additionalProperties) return { schema, url };
      const example = Array.isArray(qs.examples) ? qs.examples[0] : undefined;
      return { schema: { ...schema, [FREE_FORM]: { description: qs.description, example } }, url };
    },
    transformObject: (documentObject) =>
      finishDocument((documentObject as { openapiObject: Json }).openapiObject) as never,
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    theme: { title: 'topicgate API' },
    staticCSP:
      "default-src 'self'; base-uri 'self'; connect-src 'self'; img-src 'self' data: blob:; font-src 'self' data:; " +
      "object-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; frame-ancestors 'self'",
    uiConfig: {
      validatorUrl: null, // no badge that would call an online validator
      deepLinking: true,
      displayRequestDuration: true,
      defaultModelsExpandDepth: 0,
      // Built from source text: swagger-ui serializes the function into the page with toString().
      plugins: [new Function('system', UI_PLUGIN_SOURCE)],
    } as Record<string, unknown>,
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}

export default fp(openapiPlugin, { name: 'topicgate-openapi' });
