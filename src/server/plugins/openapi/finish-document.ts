/**
 * The document transforms: what @fastify/swagger generates from the route schemas becomes the committed OpenAPI
 * 3.0 document (openapi/openapi.json): one shared error schema, 3.0-style examples and enums, the column filters as
 * one free-form parameter, links from a creating PUT to the operations under it, and the generated marker.
 */
import { ErrorSchema } from '../../../routes/error-schema.js';

type Json = Record<string, unknown>;

/** Marks an operation whose querystring takes any other parameter (column filters); see addFreeFormQuery. */
export const FREE_FORM = 'x-topicgate-free-form-query';

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
 * JSON (plugins/error-plugin.ts), whatever media types a route's success has (`produces` applies to all its responses).
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
  const parameters = [...((op.parameters as Json[] | undefined) ?? [])];
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

/** Path parameters first: the order a reader fills them in. */
function pathParametersFirst(op: Json): void {
  const parameters = op.parameters as Json[] | undefined;
  if (parameters) op.parameters = parameters.slice().sort((a, b) => Number(b.in === 'path') - Number(a.in === 'path'));
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
const PUBLIC_PATHS = ['/healthz', '/readyz'];

export function finishDocument(doc: Json): Json {
  const components = (doc.components ?? {}) as Json;
  const schemas = ((components.schemas as Json | undefined) ?? {}) as Json;
  schemas.Error = JSON.parse(JSON.stringify(ErrorSchema)) as Json;
  doc.components = { ...components, schemas };
  for (const path of Object.values((doc.paths as Json | undefined) ?? {})) {
    for (const op of Object.values(path as Json) as Json[]) {
      addFreeFormQuery(op);
      pathParametersFirst(op);
      shareErrorSchema(op);
      operationSchemas(op).forEach(normalizeSchema);
    }
  }
  Object.values(schemas).forEach(normalizeSchema);
  addCreationLinks((doc.paths ?? {}) as Json);
  // Health probes are public whatever `auth.public` says (API.md "Access"); every other operation needs credentials
  // unless the operator lists its group (docs, metrics) as public.
  for (const path of PUBLIC_PATHS) {
    for (const op of Object.values(((doc.paths as Json | undefined)?.[path] ?? {}) as Json)) (op as Json).security = [];
  }
  // First member, as near the top as JSON allows (JSON has no comments).
  return { 'x-generated': 'by npm run openapi (scripts/openapi.ts) from the route schemas; do not edit', ...doc };
}

/**
 * @fastify/swagger's per-route transform: a querystring open to any other parameter carries its description and
 * first example under FREE_FORM, for addFreeFormQuery to turn into the `filters` parameter.
 */
export function markFreeFormQuery<T extends { schema: unknown; url: string }>(route: T): T {
  const qs = (route.schema as { querystring?: Json } | undefined)?.querystring;
  if (!qs?.additionalProperties) return route;
  const example = Array.isArray(qs.examples) ? qs.examples[0] : undefined;
  return { ...route, schema: { ...(route.schema as Json), [FREE_FORM]: { description: qs.description, example } } };
}
