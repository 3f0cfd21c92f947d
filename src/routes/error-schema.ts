/**
 * The one error body (API.md "Errors") and the error responses of each route. A route lists the codes its handler
 * and the code it calls can throw, built from the groups below; errorResponses() turns the list into one response
 * per HTTP status whose description names each code with its meaning (test/integration/openapi.test.ts checks them
 * against the catalog and against what the routes answer).
 */
import { Type, type Static } from 'typebox';
import { ERROR_CATALOG, type ErrorCode } from '../core/errors.js';

export const ErrorSchema = Type.Object(
  {
    error: Type.Object({
      code: Type.Enum(Object.keys(ERROR_CATALOG) as ErrorCode[], {
        type: 'string',
        description: 'Stable code from the error catalog (see the document description)',
      }),
      message: Type.String({ description: 'What went wrong, naming the culprit; 5xx messages carry no internals' }),
      status: Type.Integer({ description: 'The HTTP status, repeated' }),
      details: Type.Optional(
        Type.Unknown({ description: 'Machine-readable specifics, e.g. the offending parameter or column' }),
      ),
      queryId: Type.Optional(Type.String({ description: 'The Trino query id, when Trino was involved' })),
    }),
  },
  {
    examples: [
      {
        error: {
          code: 'TG_UNKNOWN_COLUMN',
          message: 'orders has no column "nope"',
          status: 400,
          details: { column: 'nope', available: ['key', 'value', 'timestamp_broker', 'timestamp_producer', 'headers'] },
        },
      },
    ],
  },
);
export type ErrorSchema = Static<typeof ErrorSchema>;

/**
 * A path parameter: not percent-encoding, longer than the router takes, or refused by its schema (400, plugins/
 * errors.ts and app.ts frameworkErrors); `.` or `..`, a dot segment that makes the URL another path, no route (404).
 */
export const PATH_ERRORS = ['TG_BAD_REQUEST', 'TG_NOT_FOUND'] as const satisfies readonly ErrorCode[];

/**
 * A request body that fastify refuses before the handler (plugins/error-plugin.ts): not JSON (415), too large (413),
 * malformed (400). Any POST, PUT or DELETE can carry one, whether or not the route reads it.
 */
export const BODY_ERRORS = [
  'TG_BAD_REQUEST',
  'TG_PAYLOAD_TOO_LARGE',
  'TG_UNSUPPORTED_MEDIA_TYPE',
  'TG_REQUEST_TIMEOUT',
] as const satisfies readonly ErrorCode[];

/**
 * Access control on any protected route (plugins/access-plugin.ts): no or bad credentials (401), the identity provider's
 * keys unreachable (503), the caller's request rate or query quota (429), the gateway overloaded (503), the
 * PostgreSQL store that counts them across instances unreachable (503, access/shared-quotas.ts).
 */
export const AUTH_ERRORS = [
  'TG_UNAUTHENTICATED',
  'TG_AUTH_UNAVAILABLE',
  'TG_TOO_MANY_REQUESTS',
  'TG_OVERLOADED',
  'TG_STATE_UNAVAILABLE',
] as const satisfies readonly ErrorCode[];

/** On a route that acts on a topic (access/authorize.ts): also an action not granted there (403). */
export const ACCESS_ERRORS = [...AUTH_ERRORS, 'TG_FORBIDDEN'] as const satisfies readonly ErrorCode[];

/**
 * What any Trino query can fail with, whatever its SQL (trino/trino-errors.ts toApiError: Trino's access control
 * denying the query, queue and resource limits, memory limits, failures, the gateway's own credentials refused,
 * unreachable or starting, time limit).
 */
export const TRINO_ERRORS = [
  'TG_FORBIDDEN',
  'TG_TOO_MANY_REQUESTS',
  'TG_TOO_EXPENSIVE',
  'TG_TRINO_FAILED',
  'TG_TRINO_AUTH',
  'TG_TRINO_UNAVAILABLE',
  'TG_TIMEOUT',
] as const satisfies readonly ErrorCode[];

/**
 * A filter, `select`, `order`, `groupBy` or `dedupe` read into nodes and planned (query/request/filters.ts, values.ts,
 * request/parse-read-request.ts, plan-read-tree.ts): malformed, unknown column, wrong operator or value, a request past a `limits` cap (422). The
 * values reach Trino, which may refuse one it evaluates (TG_BAD_VALUE too).
 */
export const FILTER_ERRORS = [
  'TG_BAD_REQUEST',
  'TG_UNKNOWN_COLUMN',
  'TG_BAD_OPERATOR',
  'TG_BAD_VALUE',
  'TG_TOO_EXPENSIVE',
] as const satisfies readonly ErrorCode[];

type ErrorStatus = (typeof ERROR_CATALOG)[ErrorCode]['status'];

/**
 * The error responses for `codes` (and, on any route, TG_MISDIRECTED: a Host the gateway does not answer for,
 * server/plugins/allowed-hosts.ts, and TG_INTERNAL: a defect): one per HTTP status, whose description lists each code
 * with its meaning.
 */
export function errorResponses(codes: readonly ErrorCode[]) {
  const listed = new Set<ErrorCode>([...codes, 'TG_MISDIRECTED', 'TG_INTERNAL']);
  // In catalog order, so a description reads the same however a route composes its list.
  const all = (Object.keys(ERROR_CATALOG) as ErrorCode[]).filter((c) => listed.has(c));
  const statuses = [...new Set(all.map((c) => ERROR_CATALOG[c].status))].sort((a, b) => a - b);
  return Object.fromEntries(
    statuses.map((status) => [
      status,
      {
        ...ErrorSchema,
        description: all
          .filter((c) => ERROR_CATALOG[c].status === status)
          .map((c) => `- \`${c}\`: ${ERROR_CATALOG[c].meaning}`)
          .join('\n'),
      },
    ]),
  ) as Partial<Record<ErrorStatus, typeof ErrorSchema & { description: string }>>;
}
