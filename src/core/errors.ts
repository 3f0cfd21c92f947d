/**
 * The error catalog: every failure the API reports has a stable code, an HTTP status and a meaning.
 * Codes are never reused or renamed (API.md "Errors"); the OpenAPI document lists this table.
 */
export const ERROR_CATALOG = {
  TG_BAD_REQUEST: { status: 400, meaning: 'The request is malformed (a parameter or body field is invalid).' },
  TG_UNKNOWN_COLUMN: { status: 400, meaning: 'A column or expanded field named in the request does not exist.' },
  TG_BAD_OPERATOR: { status: 400, meaning: 'A filter names an operator that does not exist or does not apply.' },
  TG_BAD_VALUE: { status: 400, meaning: 'A value cannot be read as the type of the column it is compared with.' },
  TG_BAD_TIME: { status: 400, meaning: 'A time (since, until, start, to) is neither ISO-8601 nor relative.' },
  TG_BAD_CURSOR: {
    status: 400,
    meaning:
      "A page cursor, or a follow's event id (Last-Event-ID, after), is malformed, tampered with, or belongs to another query.",
  },
  TG_BAD_BATCH: { status: 400, meaning: 'A batch token is malformed or belongs to another cursor.' },
  TG_BAD_TARGET: {
    status: 400,
    meaning:
      "A load's target is not <catalog>.<schema>.<table> of plain lower-case names, or is outside the schemas loads may write in (loads.targets), or in the topics' catalog.",
  },
  TG_NOT_LOADABLE: {
    status: 400,
    meaning:
      "The topic's payloads are decoded by the gateway (Avro through the Schema Registry), which a load run by Trino cannot do.",
  },
  TG_BAD_SESSION: {
    status: 400,
    meaning: 'A read-session stream URL is malformed, tampered with, or not signed by this service.',
  },
  TG_BAD_SQL: {
    status: 400,
    meaning:
      "A SQL statement (Flight SQL) is not in topicgate's SQL subset: the message names the construct and its line and column.",
  },
  TG_TIME_BOUND_REQUIRED: {
    status: 400,
    meaning:
      'A query that filters, orders, groups or aggregates on JSON fields (and no selective filter) must bound the time window (since/until).',
  },
  TG_UNAUTHENTICATED: {
    status: 401,
    meaning: 'Credentials are missing or not accepted (an API key or a bearer token); see WWW-Authenticate.',
  },
  TG_FORBIDDEN: { status: 403, meaning: 'The caller may not do this on this resource (or Trino denied the query).' },
  TG_TOPIC_NOT_FOUND: { status: 404, meaning: 'The topic is not among the served tables.' },
  TG_CURSOR_NOT_FOUND: { status: 404, meaning: 'No named cursor has this name.' },
  TG_LOAD_NOT_FOUND: { status: 404, meaning: 'No load has this name.' },
  TG_NOT_FOUND: { status: 404, meaning: 'No such route.' },
  TG_METHOD_NOT_ALLOWED: {
    status: 405,
    meaning: 'The route does not take this method (the Allow header names those it takes).',
  },
  TG_NOT_ACCEPTABLE: { status: 406, meaning: 'The requested media type or format is not one the API produces.' },
  TG_REQUEST_TIMEOUT: {
    status: 408,
    meaning: 'The request (headers and body) did not arrive within the request time limit.',
  },
  TG_CURSOR_CONFLICT: {
    status: 409,
    meaning:
      'The cursor exists with another definition (or, asked by an admin, several principals have a cursor of that name).',
  },
  TG_LOAD_CONFLICT: {
    status: 409,
    meaning:
      'The load exists with another definition (or, asked by an admin, several principals have a load of that name).',
  },
  TG_LOAD_TARGET_TAKEN: {
    status: 409,
    meaning:
      "The load's target table is another load's, or an existing table that no load of this principal made (the same answer whoever asks).",
  },
  TG_LOAD_RUNNING: {
    status: 409,
    meaning: 'A run of this load is already going on (on this or another instance); try again when it has ended.',
  },
  TG_STALE_BATCH: {
    status: 409,
    meaning: 'The batch does not start at the committed position (someone else committed).',
  },
  TG_WINDOW_NOT_SETTLED: {
    status: 409,
    meaning:
      "A window asked for as a file has not settled (its until is after now minus the topic's settle time, or is relative): the details name when it settles.",
  },
  TG_SESSION_EXPIRED: {
    status: 410,
    meaning: 'The read session has expired (its expiresAt has passed): create a new session.',
  },
  TG_PAYLOAD_TOO_LARGE: { status: 413, meaning: 'The request body is too large.' },
  TG_UNSUPPORTED_MEDIA_TYPE: { status: 415, meaning: 'The request body is not JSON.' },
  TG_RANGE_NOT_SATISFIABLE: {
    status: 416,
    meaning: 'The Range asked of a file starts at or past its end (Content-Range names its length).',
  },
  TG_MISDIRECTED: {
    status: 421,
    meaning:
      'The Host header names a host this gateway does not answer for (loopback names, its listen address and TOPICGATE_ALLOWED_HOSTS): a guard against DNS rebinding.',
  },
  TG_TOO_EXPENSIVE: { status: 422, meaning: 'The query exceeds a limit (rows, window, sample size).' },
  TG_TOO_MANY_REQUESTS: {
    status: 429,
    meaning:
      "A request-rate or concurrent-query limit (the caller's, the gateway's or Trino's), or the gateway's memory for held rows (limits.maxGatewayBytes), is reached; retry after Retry-After.",
  },
  TG_INTERNAL: { status: 500, meaning: 'A defect in the gateway; the message carries no internals.' },
  TG_TRINO_FAILED: { status: 502, meaning: 'Trino failed to run the query.' },
  TG_TRINO_AUTH: {
    status: 502,
    meaning: "Trino did not accept the gateway's own credentials: an operator must fix the gateway's settings.",
  },
  TG_SCHEMA_REGISTRY: {
    status: 502,
    meaning: 'The Schema Registry failed or could not be reached while decoding Avro or json-sr payloads.',
  },
  TG_TRINO_UNAVAILABLE: { status: 503, meaning: 'Trino cannot be reached or is starting; retry after Retry-After.' },
  TG_STATE_UNAVAILABLE: {
    status: 503,
    meaning:
      'The state store cannot be reached in time: the cursor store, or the PostgreSQL store counting per-caller limits across instances; retry after Retry-After.',
  },
  TG_OVERLOADED: { status: 503, meaning: 'The gateway is overloaded (event loop or memory); retry after Retry-After.' },
  TG_AUTH_UNAVAILABLE: {
    status: 503,
    meaning:
      'The keys that verify bearer tokens cannot be fetched from the identity provider; retry after Retry-After.',
  },
  TG_TIMEOUT: { status: 504, meaning: 'The query ran past its time limit and was cancelled.' },
} as const satisfies Record<string, { status: number; meaning: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOG;

/** The one error type routes throw; the error handler turns it into the one error body. */
export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
    readonly queryId?: string,
    readonly retryAfterS?: number,
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = ERROR_CATALOG[code].status;
  }
}

/** The 404 of a topic that is not served, or that the caller may not see: the two answers are the same. */
export function topicNotFound(id: string): ApiError {
  return new ApiError('TG_TOPIC_NOT_FOUND', `no topic ${JSON.stringify(id)} in the served schemas`);
}

export interface ErrorBody {
  error: { code: ErrorCode; message: string; status: number; details?: unknown; queryId?: string };
}

/** The single producer of error bodies. */
export function errorBody(err: ApiError): ErrorBody {
  const body: ErrorBody['error'] = { code: err.code, message: err.message, status: err.status };
  if (err.details !== undefined) body.details = err.details;
  if (err.queryId) body.queryId = err.queryId;
  return { error: body };
}

export function assertNever(x: never, what = 'value'): never {
  throw new Error(`unexpected ${what}: ${JSON.stringify(x)}`);
}
