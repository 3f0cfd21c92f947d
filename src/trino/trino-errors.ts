/**
 * Trino failures as typed errors, and the one table that maps them to API errors
 * (by errorName first, then errorType; never by parsing messages).
 */
import type { FastifyBaseLogger } from 'fastify';
import { ApiError, type ErrorCode } from '../core/errors.js';

export type TrinoErrorType = 'USER_ERROR' | 'INTERNAL_ERROR' | 'INSUFFICIENT_RESOURCES' | 'EXTERNAL';

export interface TrinoErrorInfo {
  message: string;
  errorCode: number;
  errorName: string;
  errorType: string;
}

/** An in-band `error` on a page of a query. */
export class TrinoQueryError extends Error {
  constructor(
    readonly info: TrinoErrorInfo,
    readonly queryId: string | undefined,
  ) {
    super(`${info.errorName}: ${info.message}`);
    this.name = 'TrinoQueryError';
  }
}

/** Trino could not be reached, or answered with an HTTP error. */
export class TrinoUnavailableError extends Error {
  constructor(
    message: string,
    readonly httpStatus?: number,
  ) {
    super(message);
    this.name = 'TrinoUnavailableError';
  }
}

/**
 * Trino refused the request itself, before any query: HTTP 401 (the gateway's own credentials are wrong, an
 * operator problem) or 403 (forbidden). Not "unreachable": retrying will not help.
 */
export class TrinoRefusedError extends Error {
  constructor(readonly httpStatus: 401 | 403) {
    super(
      httpStatus === 401
        ? "Trino did not accept the gateway's credentials (HTTP 401)"
        : 'Trino refused the request (HTTP 403)',
    );
    this.name = 'TrinoRefusedError';
  }
}

/** The gateway cancelled the query (client went away, or the gateway's own deadline passed). */
export class QueryCancelledError extends Error {
  constructor(
    readonly reason: 'aborted' | 'deadline',
    readonly queryId: string | undefined,
  ) {
    super(reason === 'deadline' ? 'query ran past its time limit' : 'query cancelled');
    this.name = 'QueryCancelledError';
  }
}

/**
 * Whether `err` is one of the Trino port's own failures (the query failed or was cancelled, Trino could not be reached
 * or refused the request), as opposed to a fault in the gateway's code.
 */
export function isTrinoFailure(err: unknown): boolean {
  return (
    err instanceof TrinoQueryError ||
    err instanceof TrinoUnavailableError ||
    err instanceof TrinoRefusedError ||
    err instanceof QueryCancelledError
  );
}

const BY_NAME: Record<string, ErrorCode> = {
  EXCEEDED_TIME_LIMIT: 'TG_TIMEOUT',
  EXCEEDED_CPU_LIMIT: 'TG_TIMEOUT',
  QUERY_QUEUE_FULL: 'TG_TOO_MANY_REQUESTS',
  QUERY_REJECTED: 'TG_TOO_MANY_REQUESTS',
  SERVER_STARTING_UP: 'TG_TRINO_UNAVAILABLE',
  SERVER_SHUTTING_DOWN: 'TG_TRINO_UNAVAILABLE',
  NO_NODES_AVAILABLE: 'TG_TRINO_UNAVAILABLE',
  // A cluster with fewer active workers than query-manager.required-workers, once it has waited
  // query-manager.required-workers-max-wait: Trino cannot run any query now, whoever asks.
  GENERIC_INSUFFICIENT_RESOURCES: 'TG_TRINO_UNAVAILABLE',
  EXCEEDED_GLOBAL_MEMORY_LIMIT: 'TG_TOO_EXPENSIVE',
  EXCEEDED_LOCAL_MEMORY_LIMIT: 'TG_TOO_EXPENSIVE',
  EXCEEDED_SCAN_LIMIT: 'TG_TOO_EXPENSIVE',
  // Trino's access control (table rules, impersonation rules) denied the query: the caller may not do this.
  PERMISSION_DENIED: 'TG_FORBIDDEN',
  // The gateway writes every query; a user error from Trino is a failed query, not the client's fault...
  // except values the gateway cannot check before Trino evaluates them:
  NUMERIC_VALUE_OUT_OF_RANGE: 'TG_BAD_VALUE',
  INVALID_CAST_ARGUMENT: 'TG_BAD_VALUE',
  DIVISION_BY_ZERO: 'TG_BAD_VALUE',
  // SQL Trino cannot parse is SQL the gateway should never have written: a defect, answered 500 and logged loudly
  // (request caps refuse the known ways to reach it, size and depth, before any SQL is written).
  SYNTAX_ERROR: 'TG_INTERNAL',
  // A statement larger or deeper than Trino's own limits (reachable only with caps raised to their ceilings):
  // the request is too expensive, and the details name the limit Trino hit.
  STACK_OVERFLOW: 'TG_TOO_EXPENSIVE',
  QUERY_TEXT_TOO_LARGE: 'TG_TOO_EXPENSIVE',
  QUERY_EXCEEDED_COMPILER_LIMIT: 'TG_TOO_EXPENSIVE',
};

/** Trino's limits on one statement's size and depth (as opposed to its memory or time). */
const STATEMENT_LIMITS = new Set(['STACK_OVERFLOW', 'QUERY_TEXT_TOO_LARGE', 'QUERY_EXCEEDED_COMPILER_LIMIT']);

const BY_TYPE = {
  USER_ERROR: 'TG_TRINO_FAILED',
  INTERNAL_ERROR: 'TG_TRINO_FAILED',
  INSUFFICIENT_RESOURCES: 'TG_TOO_MANY_REQUESTS',
  EXTERNAL: 'TG_TRINO_FAILED',
} as const satisfies Record<TrinoErrorType, ErrorCode>;

/** Maps any error from the Trino port to the ApiError a client sees; 5xx messages carry no internals. */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof TrinoQueryError) {
    const { errorName, errorType } = err.info;
    const code =
      (Object.hasOwn(BY_NAME, errorName) ? BY_NAME[errorName] : undefined) ??
      (Object.hasOwn(BY_TYPE, errorType) ? BY_TYPE[errorType as TrinoErrorType] : undefined) ??
      'TG_TRINO_FAILED';
    const message =
      code === 'TG_BAD_VALUE'
        ? `a value could not be evaluated: ${err.info.message}`
        : code === 'TG_FORBIDDEN'
          ? `Trino denied the query: ${deniedWhat(err.info.message)}`
          : STATEMENT_LIMITS.has(errorName)
            ? `the query this request makes is beyond Trino's limit ${errorName}: name fewer filters, values or levels of nesting`
            : code === 'TG_INTERNAL'
              ? 'internal error'
              : `Trino ${err.info.errorType} ${err.info.errorName}`;
    return new ApiError(
      code,
      message,
      { errorName: err.info.errorName, errorType: err.info.errorType },
      err.queryId,
      code === 'TG_TRINO_UNAVAILABLE' || code === 'TG_TOO_MANY_REQUESTS' ? 5 : undefined,
    );
  }
  if (err instanceof QueryCancelledError) {
    return new ApiError('TG_TIMEOUT', 'the query ran past its time limit and was cancelled', undefined, err.queryId);
  }
  if (err instanceof TrinoRefusedError) {
    return err.httpStatus === 401
      ? new ApiError('TG_TRINO_AUTH', "the gateway's credentials were not accepted by Trino")
      : new ApiError('TG_FORBIDDEN', 'Trino refused the request');
  }
  if (err instanceof TrinoUnavailableError) {
    return new ApiError('TG_TRINO_UNAVAILABLE', 'Trino is not reachable', undefined, undefined, 5);
  }
  return new ApiError('TG_INTERNAL', 'internal error');
}

/**
 * Logs a failure once, by what it means: a refused request at info, a 5xx at error. Trino refusing the gateway's
 * own credentials is an operator problem that every request will meet until fixed: it says so, naming the
 * settings to check (never their values).
 */
export function logFailure(log: FastifyBaseLogger, apiErr: ApiError, err: unknown): void {
  if (apiErr.code === 'TG_TRINO_AUTH') {
    log.error(
      { code: apiErr.code },
      'TRINO REFUSED THE GATEWAY CREDENTIALS: check TOPICGATE_TRINO_USER and TOPICGATE_TRINO_PASSWORD, ' +
        'TOPICGATE_TRINO_PASSWORD_FILE or TOPICGATE_TRINO_TOKEN_FILE; every query fails until they are fixed',
    );
  } else if (err instanceof TrinoQueryError && apiErr.code === 'TG_INTERNAL') {
    // Trino failures the table maps to a gateway defect (SQL the gateway should not have written).
    // The message says where Trino's parser stopped; the SQL itself is not logged (it holds the request's values).
    log.error(
      {
        code: apiErr.code,
        queryId: err.queryId,
        errorName: err.info.errorName,
        trinoMessage: err.info.message.slice(0, 300),
      },
      'GATEWAY DEFECT: Trino could not parse SQL the gateway wrote',
    );
  } else if (apiErr.status >= 500) log.error({ err }, 'request failed');
  else log.info({ code: apiErr.code, msg: apiErr.message }, 'request refused');
}

/**
 * What Trino's access control denied, from its message ("Access Denied: Cannot select from columns [a] in table
 * or view c.s.t"): the first line, without the prefix, bounded. A 403 is the caller's to read (which table,
 * which user may not be impersonated); nothing past the first line (no stack, no cause) is passed on.
 */
function deniedWhat(message: string): string {
  const line = (message.split('\n')[0] ?? '').replace(/^Access Denied:\s*/i, '').trim();
  return line.length > 300 ? `${line.slice(0, 300)}...` : line || 'access denied';
}
